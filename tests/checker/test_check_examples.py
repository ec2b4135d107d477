"""Real notebooks of the project: the bundled example paper and the paper scaffolds."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.checker import check
from mechnb.checker.argmap import argument_map_svg
from mechnb.findings import Severity
from mechnb.notebook import paper_from_dict, read_paper

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
# the papers among them (getting-started.ipynb is a tour, not a paper)
EXAMPLES = sorted(p for p in NOTEBOOKS.glob("*.ipynb")
                  if '"paper_type"' in p.read_text("utf-8"))


@pytest.mark.skipif(not EXAMPLES, reason="notebooks/example_paper.ipynb (exporter helper) is "
                                         "not in the repository yet")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_bundled_example_papers_have_no_errors(path: Path) -> None:
    findings = check(path)
    errors = [f.format(path.name) for f in findings if f.severity == Severity.ERROR]
    assert errors == []
    svg = argument_map_svg(read_paper(path), findings)
    assert 'class="node open' not in svg and 'class="edge open"' not in svg


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("paper_type", ["expressivity", "dynamics", "failure"])
def test_scaffolds_close_the_loop_but_report_every_unfilled_slot(paper_type: str,
                                                                 lang: str) -> None:
    from mechnb.templates import scaffold_notebook

    paper = paper_from_dict(scaffold_notebook(paper_type, lang=lang))
    findings = check(paper)
    codes = {f.code for f in findings}
    # the skeleton already has every move of the argument; only the blanks, the runs, the
    # pending experiments (errors until they plot real measurements) and the abstract, whose
    # every sentence is still a template (MECH060), are left
    assert codes == {"MECH025", "MECH007", "MECH046", "MECH060"}
    moves = [f for f in findings if f.code == "MECH060"]
    # the moves whose sentences are still templates are named in one finding, not six
    assert sum("template slots" in f.message for f in moves) == 1
    named = {m for f in moves for m in ("context", "gap", "contribution", "mechanism",
                                         "validation", "implication") if f" {m}" in f.message}
    assert len(named) == 6
    slots = [f for f in findings if f.code == "MECH025"]
    assert sum(f.line is not None for f in slots) > 100  # in cell text, with a position
    assert any(f.line is None and f.cell is not None for f in slots)  # in captions
