"""The trust policy's cost to legitimate papers (issue 21): how many notebooks and cells the
gate (``mechnb.tex.gate``) sends to review or refuses.

Sets: the example papers (``notebooks/``), the scaffolds (3 types × en/zh), the real notebooks
of ``../shared/corpus/notebooks`` (when present; read-only, never at run time of mechnb) and
the test fixtures (which include deliberate attacks, so they are reported apart). A notebook
"compiles without review" when nothing is refused and nothing needs review; notebooks held for
review only because of raw LaTeX cells or non-math ``text/latex`` outputs are counted apart,
as the issue asks.

Runs under ``benchmarks/run.py`` (``make bench``) or alone: ``python benchmarks/bench_gate.py``.
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus" / "notebooks"
WHOLE_CELL_KINDS = frozenset({"raw", "latex-output"})


def _papers(paths: Iterable[Path]) -> Iterable[object]:
    from mechnb.errors import MechnbError
    from mechnb.notebook import read_paper

    for path in paths:
        try:
            yield read_paper(path)
        except (MechnbError, OSError, ValueError):
            continue


def measure(papers: Iterable[object]) -> dict[str, object]:
    """Counts of one set: notebooks, those that compile without review, review kinds."""
    from mechnb.notebook import Paper
    from mechnb.tex.gate import assess

    counts: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    cells_review = cells_refused = 0
    for paper in papers:
        assert isinstance(paper, Paper)
        verdict = assess(paper)
        counts["notebooks"] += 1
        review_kinds = {r.kind for r in verdict.review}
        kinds.update(r.kind for r in verdict.review)
        cells_review += len({r.cell for r in verdict.review if r.cell is not None})
        cells_refused += len({r.cell for r in verdict.refused if r.cell is not None})
        if verdict.refused:
            counts["refused"] += 1
        elif not review_kinds:
            counts["clean"] += 1
        elif review_kinds <= WHOLE_CELL_KINDS:
            counts["held for raw LaTeX"] += 1
        else:
            counts["review (off-list)"] += 1
    return {"counts": counts, "kinds": kinds, "cells_review": cells_review,
            "cells_refused": cells_refused}


def _rows(name: str, result: dict[str, object]) -> list[tuple[str, str]]:
    counts = result["counts"]
    assert isinstance(counts, collections.Counter)
    n = counts["notebooks"]
    judged = n - counts["held for raw LaTeX"]
    share = 100 * counts["clean"] / judged if judged else 100.0
    return [
        (f"{name}: notebooks", str(n)),
        (f"{name}: compile without review or trust",
         f"{counts['clean']}/{judged} ({share:.1f}%; raw-LaTeX holds apart: "
         f"{counts['held for raw LaTeX']})"),
        (f"{name}: needs review beyond raw LaTeX / refused",
         f"{counts['review (off-list)']} / {counts['refused']} notebooks"),
        (f"{name}: cells needing review / refused",
         f"{result['cells_review']} / {result['cells_refused']}"),
        (f"{name}: review items by kind", ", ".join(
            f"{k} {v}" for k, v in sorted(result["kinds"].items())) or "none"),  # type: ignore[attr-defined]
    ]


def run(report: Callable[[str, str], None]) -> None:
    """Every set's numbers."""
    from mechnb.notebook import paper_from_dict
    from mechnb.templates import scaffold_notebook

    t0 = time.perf_counter()
    sets: list[tuple[str, Iterable[object]]] = [
        ("examples", _papers(sorted((REPO / "notebooks").glob("*.ipynb")))),
        ("scaffolds", (paper_from_dict(scaffold_notebook(k, lang=lang))
                       for k in ("dynamics", "failure", "expressivity") for lang in ("en", "zh"))),
    ]
    if CORPUS.is_dir():
        sets.append(("corpus", _papers(sorted(CORPUS.rglob("*.ipynb")))))
    sets.append(("test fixtures (attacks included)",
                 _papers(sorted((REPO / "tests" / "fixtures").rglob("*.ipynb")))))
    for name, papers in sets:
        for row in _rows(name, measure(papers)):
            report(*row)
    report("gate time for every set", f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    run(lambda name, value: print(f"{name:<60} {value}"))
