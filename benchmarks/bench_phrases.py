"""Phrase search latency per keystroke over the whole library (target: p99 under 1 ms).

Replays typing: every prefix of a dozen realistic queries (English and Chinese), with and without
a function filter and a language, against the full library; each call is timed on its own.
Also reports the cold load of the library and one panel update per keystroke (headless widgets,
no frontend attached). ``python benchmarks/bench_phrases.py`` runs it alone.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

QUERIES = [
    "closed form", "training dynamics", "gradient leading term", "research question",
    "numerical error propagation", "causal chain intervention", "logit lens",
    "limitations scope", "partial mismatch", "transition to theorem",
    "闭式", "训练动力学", "因果链", "残差流", "研究问题", "局限",
    "remains unclear", "to the best of our knowledge", "we hypothesize", "characterise",
    "为了验证", "值得注意",
]
FILTERS: list[tuple[str | None, str | None]] = [
    (None, None), ("introduction", None), (None, "zh"), ("formula", "en"),
]
ROUNDS = 20


def keystrokes() -> list[str]:
    """Every prefix of every query, as typed."""
    return [q[:n] for q in QUERIES for n in range(1, len(q) + 1)]


def _percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def run(report: Callable[[str, str], None]) -> None:
    """Report load time, search p50/p99/max per keystroke and panel update p50/p99."""
    from mechnb.phrases.library import load_library
    from mechnb.phrases.lookup import search

    load_library.cache_clear()
    t0 = time.perf_counter()
    library = load_library()
    report("library cold load (parse + validate + index)", _ms(time.perf_counter() - t0))
    report("phrases in library", str(len(library.phrases)))

    typed = keystrokes()
    samples: list[float] = []
    cpu: list[float] = []  # CPU time of this thread: what the search costs, without preemption
    per_key: dict[tuple[str, str | None, str | None], list[float]] = {}
    for _ in range(ROUNDS):
        for function, lang in FILTERS:
            for query in typed:
                c = time.thread_time()
                t = time.perf_counter()
                search(query, function=function, lang=lang)  # type: ignore[arg-type]
                took = time.perf_counter() - t
                cpu.append(time.thread_time() - c)
                samples.append(took)
                per_key.setdefault((query, function, lang), []).append(took)
    report("search calls timed", f"{len(samples)} ({len(typed)} keystrokes x "
                                 f"{len(FILTERS)} filters x {ROUNDS} rounds)")
    report("search p50 per keystroke", _ms(statistics.median(samples)))
    report("search p99 per keystroke", _ms(_percentile(samples, 99)))
    report("search max", _ms(max(samples)))
    report("search p99 per keystroke, thread CPU time", _ms(_percentile(cpu, 99)))
    # The median of each keystroke's rounds removes scheduler noise of a busy machine.
    typical = [statistics.median(v) for v in per_key.values()]
    report("search p99 of per-keystroke medians", _ms(_percentile(typical, 99)))
    report("search slowest keystroke (median)", _ms(max(typical)))
    if hasattr(os, "getloadavg"):
        report("machine load average (1 min) / CPUs",
               f"{os.getloadavg()[0]:.1f} / {os.cpu_count()}")

    try:
        from mechnb.phrases.panel import PhrasePanel
    except ImportError:  # ipywidgets missing: the search numbers above still stand
        return
    panel = PhrasePanel(on_insert=lambda _text: True, library=library)
    updates: list[float] = []
    for _ in range(3):
        for query in typed:
            t = time.perf_counter()
            panel.query = query
            updates.append(time.perf_counter() - t)
    report("panel update p50 per keystroke (headless)", _ms(statistics.median(updates)))
    report("panel update p99 per keystroke (headless)", _ms(_percentile(updates, 99)))


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:<48} {value}"))
