"""LaTeX input (issue 25): ``mechnb check paper.tex`` and ``mechnb import`` on real papers.

For the 26 papers of ``../shared/corpus/latex`` it times, in process (best of 3):

* ``check_latex(folder)`` — read, flatten, parse, build the notebook model, run the rules;
* the floor: pylatexenc alone parsing the same flattened text in tolerant mode (no rules);
* ``import_latex`` into a scratch folder (trust record left alone).

Reported: the largest paper by characters (target: checked in under 3 s; the 170,000-character
one), the slowest paper, and the median ratio check / pylatexenc parse. Skipped when the shared
corpus is absent. Runs under ``make bench`` or alone: ``python benchmarks/bench_latex.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "latex"


def best_of(fn: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(report: Callable[[str, str], None]) -> None:
    from pylatexenc.latexwalker import LatexWalker

    from mechnb.latexin.check import check_latex
    from mechnb.latexin.importer import import_latex
    from mechnb.latexin.source import load_source

    folders = sorted(p for p in CORPUS.glob("[0-9][0-9]") if p.is_dir())
    if not folders:
        report("latex corpus", f"skipped: {CORPUS} not found")
        return
    rows = []
    for folder in folders:
        text = load_source(folder).text
        check = best_of(lambda f=folder: check_latex(f))
        parse = best_of(lambda t=text: LatexWalker(t, tolerant_parsing=True).get_latex_nodes())
        with tempfile.TemporaryDirectory() as tmp:
            imp = best_of(lambda f=folder, t=tmp: import_latex(
                f, Path(t) / "p.ipynb", force=True, record_trust=False), repeats=1)
        rows.append((folder.name, len(text), check, parse, imp))
    biggest = max(rows, key=lambda r: r[1])
    slowest = max(rows, key=lambda r: r[2])
    report("latex check, largest paper",
           f"{biggest[0]}: {biggest[1]:,} chars in {biggest[2]:.2f} s (target < 3 s)")
    report("latex check, slowest paper",
           f"{slowest[0]}: {slowest[1]:,} chars in {slowest[2]:.2f} s")
    report("latex check / pylatexenc parse (median)",
           f"{statistics.median(r[2] / r[3] for r in rows):.1f}x")
    report("latex import, slowest paper", f"{max(r[4] for r in rows):.2f} s")


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:45s} {value}"))
