"""Linear regexes (issue 9): ``mechnb check`` / ``mechnb export`` on 500 KB adversarial cells.

Target: ``mechnb check`` under 1 s per cell as a whole process (best of 3). Export (no PDF) is
reported too; it is dominated by markdown-it. Runs under ``benchmarks/run.py`` or alone.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adversarial import NAMES, write_adversarial


def wall(cmd: list[str], repeats: int = 3) -> float:
    """Best wall time of ``cmd`` (exit codes 0 and 1 are normal runs)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
        took = time.perf_counter() - t0
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        best = min(best, took)
    return best


def run(report: Callable[[str, str], None]) -> None:
    """One row per adversarial cell: check and export process times."""
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in NAMES:
            path = write_adversarial(Path(tmp), name)
            check = wall([sys.executable, "-m", "mechnb", "check", str(path)])
            export = wall([sys.executable, "-m", "mechnb", "export", str(path), "-o",
                           str(Path(tmp) / name), "--no-cache", "--force"], repeats=1)
            worst = max(worst, check)
            report(f"500 KB {name}: check / export (s)", f"{check:.2f} / {export:.2f}")
    report("worst check (target < 1 s)", f"{worst:.2f} s {'ok' if worst < 1 else 'SLOW'}")


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:<50} {value}"))
