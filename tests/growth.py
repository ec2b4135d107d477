"""How the tests tell linear from quadratic work without asserting a speed.

Speed is measured, not asserted: ``benchmarks/bench_adversarial.py`` reports it. A test that
says "stays linear" runs the same work on an input and on one ``FACTOR`` times larger and
compares the process's CPU time of the two (best of three each): linear work grows about
``FACTOR`` times, quadratic work ``FACTOR ** 2`` times. The ratio does not depend on how fast
or how busy the machine is, so a slow CI machine cannot fail it, and a quadratic walk cannot
pass it. ``HANG_GUARD`` only tells a hang from a slow machine.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FACTOR = 16
LIMIT = 3 * FACTOR  # linear: about 16 (up to 28 on a busy machine), quadratic: about 256
HANG_GUARD = 60.0  # seconds


def cpu_seconds(work: Callable[[], object], repeats: int = 3) -> float:
    """The least CPU time of this process that ``work`` took in ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()  # a collection falling in one run and not the other is noise
        try:
            start = time.process_time()
            work()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def growth(work: Callable[[int], object], size: int) -> float:
    """How many times more CPU ``work(size * FACTOR)`` takes than ``work(size)``."""
    small = cpu_seconds(lambda: work(size))
    large = cpu_seconds(lambda: work(size * FACTOR))
    assert large < HANG_GUARD, f"{large:.1f} s of CPU: a hang, not a slow machine"
    return large / max(small, 1e-3)


def assert_linear(work: Callable[[int], object], size: int, what: str = "") -> None:
    """Fails when ``work`` grows clearly faster than its input (quadratic or worse)."""
    ratio = growth(work, size)
    assert ratio < LIMIT, f"{what}: {FACTOR}x the input took {ratio:.0f}x the CPU time"
