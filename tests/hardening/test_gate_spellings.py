"""Ways around the TeX gate found by review: math the scanner took for code, venue-style options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechnb.checker import dangerous_tex
from mechnb.exporter.api import UntrustedTexError, export
from mechnb.exporter.styles import StyleError, parse_style, parse_style_argument
from mechnb.notebook import paper_from_dict, read_paper

REPO = Path(__file__).resolve().parents[2]
HIDDEN = REPO / "tests" / "fixtures" / "hardening" / "hidden_math.ipynb"


def test_math_the_scanner_takes_for_code_is_judged() -> None:
    """A backtick in a raw HTML tag or an autolink, a fence whose info string holds a backtick,
    a fence closed by the end of its list item: markdown-it (and so the .tex) reads math where
    the scanner saw code. The gate judges what the exporter writes."""
    paper = read_paper(HIDDEN)
    found = dangerous_tex(paper)
    assert sorted({f.cell for f in found}) == [0, 1, 2, 3], [f.message for f in found]
    assert all("\\special" in f.message for f in found)
    for f in found:  # at the line of the cell where the math is written
        assert f.line == paper.cells[f.cell].source[:paper.cells[f.cell].source.index(
            "$\\special")].count("\n") + 1
    assert export(paper, write=False).latex.count("$\\special{pdf:fstream") == 4  # written as TeX
    # code that stays code (a code span, a fenced block) is not TeX: cell 4 passes
    assert 4 not in {f.cell for f in found}


def test_hidden_math_stops_the_pdf(tmp_path: Path) -> None:
    with pytest.raises(UntrustedTexError, match="cell 1 line 1"):
        export(HIDDEN, tmp_path / "out", pdf=True)
    assert not (tmp_path / "out").exists()


HOSTILE_OPTIONS = ["margin=1in]{geometry}\\special{pdf:fstream @x (/etc/passwd)}%",
                   "a}\\input{/etc/passwd}", "x%", "a,b[c]"]


@pytest.mark.parametrize("option", HOSTILE_OPTIONS)
@pytest.mark.parametrize("key", ["options", "class_options"])
def test_style_options_cannot_write_tex(key: str, option: str) -> None:
    style, problems = parse_style({"class": "article", "package": "geometry",
                                   key: ["preprint", option]})
    assert style is not None and len(problems) == 1 and key in problems[0]
    assert getattr(style, key) == ("preprint",)


@pytest.mark.parametrize("text", [
    "geometry[a}\\special{pdf:fstream @x (/etc/passwd)}\\def\\q{]",
    "x}\\input{/etc/passwd}%",
    "jmlr.cls[twoside, a}\\input{/etc/passwd}]",
])
def test_compact_styles_cannot_write_tex(text: str) -> None:
    style, problems = parse_style(text)
    assert problems
    assert "\\" not in json.dumps([style and style.package, style and style.document_class,
                                   style and style.options, style and style.class_options])
    with pytest.raises(StyleError):
        parse_style_argument(text)


def test_style_options_from_the_notebook_stay_out_of_the_tex(tmp_path: Path) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": [],
          "metadata": {"mechnb": {"title": "T", "style": {
              "package": "geometry", "options": ["margin=1in]{geometry}\\special{x}%"]}}}}
    result = export(nb, write=False)
    assert "\\special" not in result.latex
    assert [f.name for f in result.findings if "options" in f.message] == ["invalid-style"]


def test_hidden_math_in_a_cell_too_large_to_parse_is_refused() -> None:
    cell = '<a href="`">$\\special{pdf:fstream @x (/etc/passwd)}$ and `y`\n\n' + "Padding. " * 5000
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "id": "big", "metadata": {}, "source": cell}]}
    found = dangerous_tex(paper_from_dict(nb))
    assert found and found[0].cell == 0 and found[0].line == 1
