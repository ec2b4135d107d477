"""Characters the default engine cannot typeset: the XeLaTeX fallback (MECH820) and glyphs the
fonts lack, reported at their cell instead of silently dropped (MECH821)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mechnb.cli import main
from mechnb.exporter.api import export, render
from mechnb.exporter.bundle import latexmkrc
from mechnb.exporter.pdf import missing_glyphs
from mechnb.notebook import paper_from_dict, read_paper
from mechnb.tex.fontplan import font_plan

from .conftest import REPO, needs_tex

GLYPHS = REPO / "tests" / "fixtures" / "foreign" / "glyphs.ipynb"


def _with_engine(engine: str | None) -> dict[str, Any]:
    nb: dict[str, Any] = json.loads(GLYPHS.read_text("utf-8"))
    if engine:
        nb["metadata"]["mechnb"] = {"engine": engine}
    return nb


def test_the_default_engine_gives_way_to_xelatex_and_says_so() -> None:
    result = render(read_paper(GLYPHS), include_code=True)
    assert result.engine == "xelatex"
    [note] = [f for f in result.findings if f.code == "MECH820"]
    assert note.severity.value == "info" and "cell 2 has" in note.message
    # the pdfLaTeX findings stay: arXiv and most venues compile with pdfLaTeX; the box-drawing
    # tree of cells 3 and 4 is drawn (mechnb/tex/symbols.py), the emoji of cell 2 is not
    assert {f.cell for f in result.findings if f.code == "MECH825"} == {1}


@pytest.mark.parametrize("declared, requested", [("pdflatex", None), (None, "pdflatex"),
                                                 ("lualatex", "pdflatex")])
def test_a_chosen_engine_is_obeyed(declared: str | None, requested: str | None) -> None:
    result = render(paper_from_dict(_with_engine(declared)), include_code=True,
                    engine=requested)
    assert result.engine == (requested or declared)
    assert not [f for f in result.findings if f.code == "MECH820"]
    assert [f for f in result.findings if f.code == "MECH825"]


def test_no_fallback_when_pdflatex_can_typeset_everything() -> None:
    nb = _with_engine(None)
    nb["cells"] = [nb["cells"][0], nb["cells"][4]]  # headings and accents only
    result = render(paper_from_dict(nb))
    assert result.engine == "pdflatex"
    assert not [f for f in result.findings if f.code in ("MECH820", "MECH825")]


def test_the_overleaf_latexmkrc_names_the_engine_that_compiles() -> None:
    rc = latexmkrc(render(read_paper(GLYPHS), include_code=True), "glyphs")
    assert "$pdf_mode = 5;" in rc  # XeLaTeX


def test_missing_characters_in_the_log_are_traced_to_their_cells() -> None:
    log = ("Missing character: There is no \U0001F525 (U+1F525) in font "
           "[lmroman10-regular]:mapping=tex-text;!\n"
           "Missing character: There is no \u2500 (U+2500) in font [lmmono10-regular]:!\n"
           "Missing character: There is no \u2603 (U+2603) in font [lmroman10-regular]:!\n")
    tex = "\\title{x}\n\nIt fires \U0001F525.\n\u2500\u2500\u2500\nmore \u2500\n"
    cells = (None, None, 4, 7, 7)
    found = missing_glyphs(log, tex, cells, {4: "One.\nIt fires \U0001F525."})
    assert [(f.code, f.cell, f.line, f.column, f.labels) for f in found] == [
        ("MECH821", None, None, None, ("U+2603",)),  # not in the .tex as typed: notebook-level
        ("MECH821", 4, 2, 10, ("U+1F525",)),
        ("MECH821", 7, None, None, ("U+2500",))]
    assert "lmroman10-regular" in found[1].message and "missing from the PDF" in found[1].message
    assert missing_glyphs("no such lines\n", tex, cells) == []


@pytest.mark.tex
@needs_tex()
def test_emoji_and_box_drawing_compile_with_a_finding_at_each_cell(tmp_path: Path) -> None:
    src = tmp_path / "glyphs.ipynb"
    shutil.copy(GLYPHS, src)
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(src), "-o", str(tmp_path / "out"), "--pdf", "--include-code"],
                out, err)
    assert code == 0, err.getvalue()
    assert (tmp_path / "out" / "glyphs.pdf").read_bytes().startswith(b"%PDF")
    log = (tmp_path / "out" / "glyphs.log").read_text("utf-8", "replace")
    text = err.getvalue()
    assert "MECH820 info engine-fallback" in text
    if font_plan("\U0001F525").families:  # the font plan prints the emoji (fonts-symbola)
        assert "There is no \U0001F525" not in log and "MECH821" not in text
        pdf = tmp_path / "out" / "glyphs.pdf"
        assert "\U0001F525" in subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
                                               capture_output=True, text=True).stdout
    else:
        assert "Missing character: There is no \U0001F525" in log  # TeX really dropped it
        assert "glyphs.ipynb[cell 2]:1:16: MECH821 warning missing-glyph" in text
    # the box-drawing tree (text and output) is drawn with rules, not lost
    assert "There is no \u2500" not in log and "There is no \u250c" not in log
    assert "\\newunicodechar{\u2500}{\\mechboxdraw{1}{1}{0}{0}}" in (
        tmp_path / "out" / "glyphs.tex").read_text("utf-8")
    assert "[cell 3]" not in text and "[cell 4]" not in text
    assert "[cell 5]" not in text  # accents are in every font


@pytest.mark.tex
@needs_tex()
def test_glyph_findings_come_back_when_the_pdf_is_reused(tmp_path: Path) -> None:
    src = tmp_path / "glyphs.ipynb"
    # U+1FAE0 (an emoji of 2021) is in none of the fonts `make tex` installs
    src.write_text(GLYPHS.read_text("utf-8").replace("\U0001F525", "\U0001FAE0"), "utf-8")
    first = export(src, tmp_path / "out", pdf=True, include_code=True)
    again = export(src, tmp_path / "out", pdf=True, include_code=True)
    codes = sorted((f.code, f.cell) for f in first.findings if f.code == "MECH821")
    assert codes == [("MECH821", 1)]
    # the font plan said so before TeX ran: one finding at the cell, naming the script
    [planned] = [f for f in first.findings if f.code == "MECH835"]
    assert planned.cell == 1 and "symbols/emoji" in planned.message
    assert sorted((f.code, f.cell) for f in again.findings if f.code == "MECH821") == codes


@pytest.mark.tex
@needs_tex()
def test_pdflatex_when_chosen_still_stops_at_the_emoji(tmp_path: Path) -> None:
    src = tmp_path / "glyphs.ipynb"
    src.write_text(json.dumps(_with_engine("pdflatex")), "utf-8")
    result = export(src, tmp_path / "out", pdf=True, include_code=True)
    assert result.engine == "pdflatex" and result.pdf_path is None
    assert not [f for f in result.findings if f.code in ("MECH820", "MECH821")]


def test_a_macro_latex_already_has_is_blamed_on_the_cell_that_defines_it() -> None:
    from mechnb.exporter.pdf import parse_log

    # the definition was moved to the preamble, which belongs to no cell
    log = ("./paper.tex:54: LaTeX Error: Command \\d already defined.\n"
           "l.54 \\newcommand{\\d}{\\mathrm{d}}\n")
    sources = {0: "Intro.", 2: "Text.\n$\\newcommand{\\d}{\\mathrm{d}}$ then $\\d x$",
               3: "$\\newcommand{\\dd}{x}$"}
    [f] = parse_log(log, "paper.tex", (None,) * 60, sources)
    assert (f.code, f.cell, f.line, f.column) == ("MECH810", 2, 2, 2)
    [g] = parse_log(log, "paper.tex", (None,) * 60, {0: "no definition here"})
    assert g.cell is None
