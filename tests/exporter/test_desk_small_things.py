"""Issue 38's small things on the export side, on real outputs: a raw cell with no format, the
visible placeholder a pending reference prints (no ``??``), stale bundle check logs and the
build folder of a notebook's old name (fixture: ``tests/fixtures/desk/small_things.ipynb``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mechnb.exporter import export
from mechnb.exporter.bundle import build_bundles
from mechnb.exporter.cleanup import remove_stale_build
from mechnb.serverext import renamed_notebook_cleanup

from .conftest import FIXTURES, needs_tex

DESK = FIXTURES.parent / "desk"
SMALL = DESK / "small_things.ipynb"


def test_raw_cells_and_pending_references_in_the_tex() -> None:
    result = export(SMALL, write=False)
    tex = result.latex
    by_code = {(f.code, f.cell) for f in result.findings}
    # no format: printed as JupyterLab shows it (verbatim), one note names the cell
    assert "Reviewer 2 asked: 50% of runs & {seeds} -- keep \\emph{this} note_1" in tex
    assert ("MECH836", 6) in by_code
    # a YAML header is not printed, and said so; an HTML raw cell is for the HTML export only
    assert "author: someone" not in tex and ("MECH836", 0) in by_code
    assert "only for the HTML export" not in tex and not any(c == 7 for _, c in by_code)
    # \cref{asm:[name]} (a slot) and \cref{exp:…} of the experiment not yet run: visible
    # placeholders, never a reference to a label LaTeX does not have
    assert "[\\texttt{asm:[name]}]" in tex and "\\cref{asm:" not in tex
    assert "[\\texttt{exp:copy-intervention}]" in tex
    assert "\\cref{exp:copy-intervention}" not in tex
    assert "\\cref{thm:copy}" in tex  # a label the paper has stays a reference


@needs_tex()
@pytest.mark.tex
def test_the_pdf_prints_placeholders_not_question_marks(tmp_path: Path) -> None:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    result = export(SMALL, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(result.pdf_path), "-"],
                          capture_output=True, text=True, check=True, timeout=60).stdout
    assert "??" not in text
    assert "[asm:[name]]" in text and "[exp:copy-intervention]" in text
    assert "Reviewer 2 asked: 50% of runs & {seeds} -- keep \\emph{this} note_1" in text
    # once the experiment has run and drawn its figure, the same text is a real reference
    nb = json.loads(SMALL.read_text("utf-8"))
    code = next(c for c in nb["cells"] if c["cell_type"] == "code")
    png = (FIXTURES / "notebooks" / "figure.png").read_bytes()
    import base64
    code["outputs"] = [{"output_type": "display_data", "metadata": {},
                        "data": {"image/png": base64.b64encode(png).decode()}}]
    code["execution_count"] = 1
    run = tmp_path / "run.ipynb"
    run.write_text(json.dumps(nb), "utf-8")
    tex = export(run, tmp_path / "run", write=False).latex
    assert "\\cref{exp:copy-intervention}" in tex and "[\\texttt{exp:" not in tex


def _notebook(folder: Path, name: str, ids: list[str]) -> Path:
    path = folder / name
    path.write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"lang": "en"}},
        "cells": [{"cell_type": "markdown", "id": i, "metadata": {},
                   "source": f"# Part {k}\n\nText of part {k}." if k else "Opening text."}
                  for k, i in enumerate(ids)]}), "utf-8")
    return path


def test_a_renamed_notebooks_old_build_folder_goes_after_the_next_build(tmp_path: Path) -> None:
    ids = ["a1", "b2", "c3", "d4"]
    old = _notebook(tmp_path, "draft.ipynb", ids)
    export(old)
    other = _notebook(tmp_path, "other.ipynb", ["x1", "y2"])
    export(other)
    assert (tmp_path / "build" / "draft" / "draft.tex").is_file()
    new = old.rename(tmp_path / "final.ipynb")
    export(new)
    assert (tmp_path / "build" / "final" / "final.tex").is_file()
    assert not (tmp_path / "build" / "draft").exists()  # this notebook's, under its old name
    assert (tmp_path / "build" / "other" / "other.tex").is_file()  # another notebook's: kept


def test_an_old_build_folder_with_anything_of_the_users_stays(tmp_path: Path) -> None:
    ids = ["a1", "b2", "c3"]
    old = _notebook(tmp_path, "draft.ipynb", ids)
    export(old)
    tex = tmp_path / "build" / "draft" / "draft.tex"
    tex.write_text(tex.read_text("utf-8") + "% my edit\n", "utf-8")
    notes = tmp_path / "build" / "draft"
    new = old.rename(tmp_path / "final.ipynb")
    export(new)
    assert tex.read_text("utf-8").endswith("% my edit\n")  # edited by hand: nothing removed
    tex.write_text(tex.read_text("utf-8").removesuffix("% my edit\n"), "utf-8")
    (notes / "reading-notes.txt").write_text("mine", "utf-8")
    assert not remove_stale_build(notes, current_ids=set(ids))
    (notes / "reading-notes.txt").unlink()
    # a different notebook that took the old name's place keeps the folder too
    assert not remove_stale_build(notes, current_ids={"zz"})
    assert remove_stale_build(notes, current_ids=set(ids))


def test_the_server_tidies_the_old_build_folder_on_rename(tmp_path: Path) -> None:
    old = _notebook(tmp_path / "papers", "draft.ipynb", ["a1", "b2"]) \
        if (tmp_path / "papers").mkdir() is None else None
    assert old is not None
    export(old)
    new = old.rename(old.with_name("final.ipynb"))
    # what the contents API's rename event carries: paths relative to the server root
    assert renamed_notebook_cleanup(tmp_path, "/papers/draft.ipynb", "papers/final.ipynb") == \
        (tmp_path / "papers" / "build" / "draft").resolve()
    assert not (tmp_path / "papers" / "build" / "draft").exists()
    assert new.is_file()
    # outside the root, or not a notebook: nothing happens
    assert renamed_notebook_cleanup(tmp_path / "papers", "../x.ipynb", "final.ipynb") is None
    assert renamed_notebook_cleanup(tmp_path, "papers/a.txt", "papers/b.txt") is None


@needs_tex()
@pytest.mark.tex
def test_a_bundle_that_builds_removes_the_check_log_of_its_failure(tmp_path: Path) -> None:
    path = tmp_path / "paper.ipynb"
    shutil.copy(FIXTURES / "notebooks" / "undefined_reference.ipynb", path)
    out = tmp_path / "out"
    out.mkdir()
    # what a failed check left (test_export_bundle.py makes one with this very notebook)
    log = out / "paper-arxiv-check.log"
    log.write_text("! LaTeX Warning: Reference `thm:missing' on page 1 undefined.\n", "utf-8")
    nb = json.loads(path.read_text("utf-8"))
    nb["cells"][2]["source"] = "See the details below."
    path.write_text(json.dumps(nb), "utf-8")
    built = build_bundles(export(path, out), ["arxiv"], out)
    assert built[0].path == out / "paper-arxiv.tar.gz" and built[0].path.is_file()
    assert not log.exists()


@pytest.mark.tex
def test_show_in_pdf_boxes_the_whole_theorem(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from mechnb.exporter import preview
    from mechnb.notebook import read_paper

    if not (shutil.which("pdflatex") and shutil.which("latexmk") and shutil.which("synctex")):
        pytest.skip("TeX Live (pdflatex, latexmk, synctex) is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    nb = json.loads((FIXTURES.parent / "preview" / "preview_paper.ipynb").read_text("utf-8"))
    theorem = next(c for c in nb["cells"] if c["id"] == "thm")
    theorem["source"] = (
        "If the margin is $\\gamma > 0$ and the learning rate is small enough that every step "
        "keeps the previous-token head aligned with the copy direction, the head forms after "
        "at most\n\n$$\nT \\le \\frac{C}{\\gamma^2}\n$$\n\nsteps, and the attention it puts "
        "on the matching position stays above one half from then on, for every context whose "
        "tokens are distinct and every length up to the training length.")
    path = tmp_path / "paper.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    try:
        assert preview.build(path).status == "ok"
        paper = read_paper(path)
        whole = preview.place_of(path, 3, paper)
        first = preview.place_of(path, 3, paper, line=1)
        assert whole is not None and first is not None and whole.page == first.page
        # the box covers the theorem down to its last line, not its first line alone
        assert whole.height > 3 * first.height
        assert whole.y <= first.y + 1
        bottom = preview.source_at(path, whole.page, whole.x + 20,
                                   whole.y + whole.height - 3, paper)
        assert bottom is not None and bottom["cell_id"] == "thm"
    finally:
        preview.settle()
