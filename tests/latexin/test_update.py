"""``mechnb import --update``: a co-author's edits to an exported ``.tex`` back in the notebook."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.exporter.api import render
from mechnb.latexin.update import update_notebook
from mechnb.notebook import read_paper
from mechnb.tex.markers import segments

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "notebooks" / "example_paper.ipynb"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def exported(tmp_path: Path) -> tuple[Path, Path, str]:
    """The example paper, its bibliography, and its exported ``.tex`` text."""
    nb = tmp_path / "example_paper.ipynb"
    shutil.copy(EXAMPLE, nb)
    shutil.copy(EXAMPLE.with_suffix(".bib"), tmp_path)
    tex = render(read_paper(nb)).latex
    return nb, tmp_path / "edited.tex", tex


def by_id(nb: dict) -> dict[str, dict]:
    return {c["id"]: c for c in nb["cells"]}


def test_markers_carry_cell_ids(exported: tuple[Path, Path, str]) -> None:
    nb, _, tex = exported
    ids = [c["id"] for c in json.loads(nb.read_text())["cells"]]
    tokens = [s.token for s in segments(tex)]
    assert tokens and set(tokens) <= set(ids)


def test_a_co_authors_edits_come_back(exported: tuple[Path, Path, str]) -> None:
    nb, edited, tex = exported
    before = json.loads(nb.read_text())
    cells = by_id(before)
    theory = next(i for i, c in cells.items() if "".join(c["source"]).startswith("# Theory"))
    theorem = next(i for i, c in cells.items()
                   if c["metadata"].get("mechnb", {}).get("label") == "thm:growth")
    interp = next(i for i, c in cells.items()
                  if c["metadata"].get("mechnb", {}).get("role") == "interpretation")
    definition = next(i for i, c in cells.items()
                      if c["metadata"].get("mechnb", {}).get("label") == "def:model")
    assert "The first step removes the token identities." in tex
    text = tex.replace("The first step removes the token identities.", "The first step removes "
                       "the \\emph{names of the tokens}.")
    assert "\\begin{theorem}[{Growth laws on the plateau}]" in text
    text = text.replace("\\begin{theorem}[{Growth laws on the plateau}]",
                        "\\begin{theorem}[{Plateau growth laws}]")
    interp_seg = next(s for s in segments(text) if s.token == interp)
    text = text.replace(interp_seg.text, interp_seg.text.rstrip("\n") + "\n\nA co-author adds "
                        "that the bound is tight \\citep{olsson2022context}.\n")
    start = text.index(f"% mechnb:cell {definition}")
    end = text.index("% mechnb:cell ", start + 10)
    text = text[:start] + text[end:]  # the definition deleted, marker and all
    edited.write_text(text)

    code, out, err = run("import", "--update", str(nb), str(edited))
    assert code == 0, err
    after = json.loads(nb.read_text())
    cells_after = by_id(after)
    assert "The first step removes the *names of the tokens*." in cells_after[theory]["source"]
    assert "$V\\times V$" in cells_after[theory]["source"]  # the math as it was written
    assert cells_after[theorem]["metadata"]["mechnb"]["title"] == "Plateau growth laws"
    ids = [c["id"] for c in after["cells"]]
    added = after["cells"][ids.index(interp) + 1]
    assert added["cell_type"] == "markdown"
    assert added["source"] == "A co-author adds that the bound is tight [@olsson2022context]."
    assert definition not in cells_after
    # code cells and their outputs are untouched
    assert [c for c in before["cells"] if c["cell_type"] == "code"] == \
        [c for c in after["cells"] if c["cell_type"] == "code"]
    # the summary says what changed; the previous notebook is kept
    assert "deleted in the LaTeX" in out and "text updated" in out and "title updated" in out
    backups = list(nb.parent.glob("example_paper.before-update-*.ipynb"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == before
    # exported again, the notebook gives the co-author's text
    again = render(read_paper(nb)).latex
    assert "the \\emph{names of the tokens}" in again and "\\citep{olsson2022context}" in again


def test_nothing_changed_writes_nothing(exported: tuple[Path, Path, str]) -> None:
    nb, edited, tex = exported
    edited.write_text(tex)
    data = nb.read_bytes()
    summary = update_notebook(nb, edited)
    assert not summary.changes and summary.backup is None and nb.read_bytes() == data
    assert not list(nb.parent.glob("*.before-update-*"))


def test_a_file_without_markers_is_refused(exported: tuple[Path, Path, str]) -> None:
    nb, edited, _ = exported
    edited.write_text("\\documentclass{article}\n\\begin{document}\nHello.\n\\end{document}\n")
    data = nb.read_bytes()
    code, _, err = run("import", "--update", str(nb), str(edited))
    assert code == 1 and "no `% mechnb:cell` markers" in err and nb.read_bytes() == data
    code, _, err = run("import", "--update", str(nb), str(nb.parent / "missing.tex"))
    assert code == 1 and "missing.tex" in err and "Traceback" not in err


def test_an_imported_paper_round_trips_its_edits(tmp_path: Path) -> None:
    from mechnb.latexin.importer import import_latex

    paper = REPO / "tests" / "fixtures" / "latexin" / "copying"
    nb = import_latex(paper, tmp_path / "c.ipynb", record_trust=False).notebook_path
    tex = render(read_paper(nb)).latex
    edited = tmp_path / "edited.tex"
    edited.write_text(tex.replace("Matching score and previous-token score during training",
                                  "Matching and previous-token scores over training"))
    summary = update_notebook(nb, edited)
    assert [c.what for c in summary.changes] == ["raw LaTeX updated, caption updated"]
    figure = next(c for c in json.loads(nb.read_text())["cells"]
                  if c["metadata"].get("mechnb", {}).get("label") == "fig:order")
    assert figure["metadata"]["mechnb"]["caption"].startswith("Matching and previous-token")
    assert "\\caption{Matching and previous-token scores over training" in figure["source"]


def test_preamble_edits_are_reported_not_carried(exported: tuple[Path, Path, str]) -> None:
    nb, edited, tex = exported
    title = json.loads(nb.read_text())["metadata"]["mechnb"]["title"]
    edited.write_text(tex.replace("\\title{" + title, "\\title{A new title"))
    data = nb.read_bytes()
    summary = update_notebook(nb, edited)
    assert [c.cell for c in summary.changes] == [None]
    assert "Paper Settings" in summary.changes[0].what
    assert nb.read_bytes() == data and summary.backup is None
