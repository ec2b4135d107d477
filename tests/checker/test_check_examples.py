"""Real notebooks of the project: the bundled example paper and the paper scaffolds."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.checker import check
from mechnb.checker.argmap import argument_map_svg
from mechnb.checker.report import slot_count
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
    # one finding per cell, naming its slots, at the first one
    assert len({f.cell for f in slots}) == len(slots)
    assert sum(f.line is not None for f in slots) > 20  # in cell text, with a position
    assert any(f.line is None and f.cell is not None for f in slots)  # code cells: captions
    assert sum(slot_count(f) for f in slots) > 150
    # every cell is still the template as inserted: a note, never a coloured bar — the only
    # cells marked are the abstract (its moves) and the pending experiments (errors)
    assert {f.severity for f in slots} == {Severity.INFO}
    marked = {f.cell for f in findings if f.severity != Severity.INFO}
    experiments = {c.index for c in paper.cells if c.role == "experiment" and not c.is_markdown}
    abstract = {c.index for c in paper.cells if c.role == "abstract"}
    assert marked == experiments | abstract


def test_a_slot_the_author_left_in_a_written_cell_is_a_warning() -> None:
    from mechnb.templates import scaffold_notebook

    nb = scaffold_notebook("dynamics")
    cell = next(c for c in nb["cells"] if c["metadata"].get("mechnb", {}).get("role") == "gap")
    cell["source"] = cell["source"].replace("[", "", 1).replace("]", "", 1)  # one slot filled
    slots = {f.cell: f for f in check(paper_from_dict(nb)) if f.code == "MECH025"}
    index = nb["cells"].index(cell)
    assert slots[index].severity == Severity.WARNING
    assert "template slots still unfilled: [" in slots[index].message
    assert slots[index].line == 1
    assert all(f.severity == Severity.INFO for i, f in slots.items() if i != index)


def test_a_title_from_paper_settings_overrides_the_title_cell() -> None:
    from mechnb.templates import scaffold_notebook

    nb = scaffold_notebook("dynamics")
    title_cell = next(i for i, c in enumerate(nb["cells"])
                      if c["metadata"].get("mechnb", {}).get("role") == "title")
    before = [f for f in check(paper_from_dict(nb)) if f.cell == title_cell]
    assert [f.code for f in before] == ["MECH025"] and "[Model Class]" in before[0].message
    nb["metadata"]["mechnb"]["title"] = "Induction Heads Form When the Gradient Aligns"
    after = [f for f in check(paper_from_dict(nb)) if f.cell == title_cell]
    # the cell is not printed: one note says so, no slot of it is reported, nothing marked
    assert [(f.code, f.severity) for f in after] == [("MECH025", Severity.INFO)]
    assert "Paper Settings" in after[0].message and "[" not in after[0].message
