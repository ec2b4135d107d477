"""Engines and venue styles without running TeX: choice, pre-check, log mapping, style hook."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from mechnb.cli import main
from mechnb.exporter.api import export, render
from mechnb.exporter.bundle import latexmkrc
from mechnb.exporter.engines import choose_engine, pdftex_characters
from mechnb.exporter.latex import data_text
from mechnb.exporter.pdf import parse_log
from mechnb.exporter.styles import Style, apply_style, parse_style
from mechnb.notebook import paper_from_dict, read_paper

from .conftest import EXAMPLE, FIXTURES, NOTEBOOKS

STYLES = FIXTURES / "styles"
ENGINES_NB = FIXTURES / "engines" / "pdflatex_characters.ipynb"
STYLE_CASES = json.loads((FIXTURES / "style_cases.json").read_text("utf-8"))


def _nb(**mech: Any) -> dict[str, Any]:
    return {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "Text."}],
            "metadata": {"mechnb": mech}, "nbformat": 4, "nbformat_minor": 5}


@pytest.mark.parametrize("lang, declared, requested, expected", [
    ("en", None, None, "pdflatex"),
    ("zh", None, None, "xelatex"),
    ("en", "lualatex", None, "lualatex"),
    ("zh", "pdflatex", None, "pdflatex"),
    ("en", "xelatex", "pdflatex", "pdflatex"),
])
def test_engine_comes_from_option_then_metadata_then_language(
        lang: str, declared: str | None, requested: str | None, expected: str) -> None:
    meta = {"lang": lang, **({"engine": declared} if declared else {})}
    assert choose_engine(paper_from_dict(_nb(**meta)), requested).name == expected


def test_a_bad_engine_in_metadata_is_a_reading_finding() -> None:
    paper = paper_from_dict(_nb(lang="en", engine="pdftex"))
    assert paper.meta.engine is None
    [f] = paper.findings
    assert (f.code, f.name) == ("MECH903", "malformed-notebook-metadata")
    assert "pdftex" in f.message and "pdflatex, xelatex, lualatex" in f.message
    assert choose_engine(paper).name == "pdflatex"


def test_the_pdftex_table_is_what_inputenc_knows() -> None:
    known = pdftex_characters()
    assert {ord(c) for c in "éüßçøÆœ“”‘’–—…€£§°×"} <= known
    assert not {ord(c) for c in "αβ∀🔥"} & known
    # Cyrillic through T2A (texlive-lang-cyrillic, installed by make tex: issue 34)
    assert ord("Ж") in known


def test_pdflatex_precheck_finds_only_what_pdflatex_cannot_typeset() -> None:
    result = render(read_paper(ENGINES_NB))
    found = [f for f in result.findings if f.name == "pdflatex-unsupported-character"]
    # cell 1 (accents, curly quotes, CJK through ctex, Greek and arrows in math) is fine
    assert [(f.code, f.cell, f.line, f.column, f.labels) for f in found] == [
        ("MECH825", 2, 1, 10, ("U+1F525",))]
    # the default engine gave way to XeLaTeX: a warning for arXiv, not an error for this PDF
    assert result.engine == "xelatex" and found[0].severity.value == "warning"
    assert "arXiv's pdfLaTeX would stop" in found[0].message
    chosen = render(read_paper(ENGINES_NB), engine="pdflatex")
    [error] = [f for f in chosen.findings if f.name == "pdflatex-unsupported-character"]
    assert error.severity.value == "error" and "--engine xelatex" in error.message


def test_no_precheck_for_xelatex() -> None:
    result = render(read_paper(ENGINES_NB), engine="xelatex")
    assert result.engine == "xelatex"
    assert not [f for f in result.findings if f.name == "pdflatex-unsupported-character"]


def test_inputenc_error_in_the_log_is_a_finding_at_its_cell() -> None:
    log = (FIXTURES / "logs" / "pdflatex_unicode.texlog").read_text("utf-8")
    cells = (None,) * 5 + (3,) * 3
    [f] = parse_log(log, "paper.tex", cells, {3: "Intro.\nIt fires \U0001F525 here."})
    assert (f.code, f.cell, f.line, f.column, f.labels) == ("MECH825", 3, 2, 10, ("U+1F525",))


def test_english_sources_compile_under_every_engine() -> None:
    tex = render(read_paper(EXAMPLE)).latex
    assert "\\ifPDFTeX\n  \\usepackage[utf8]{inputenc}" in tex
    assert "\\else\n  \\usepackage{fontspec}\n\\fi" in tex
    assert "\\usepackage{fontspec}\n\\usepackage" not in tex  # never unconditionally


@pytest.mark.parametrize("case", STYLE_CASES, ids=[c["id"] for c in STYLE_CASES])
def test_style_values(case: dict[str, Any]) -> None:
    style, problems = parse_style(case["style"])
    assert len(problems) == case["problems"], problems
    if case["expected"] is None:
        assert style is None
    else:
        assert style is not None
        expected = {**asdict(Style()), **case["expected"]}
        actual = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(style).items()}
        assert actual == {k: list(v) if isinstance(v, tuple) else v for k, v in expected.items()}


def test_style_replaces_class_and_geometry() -> None:
    template = data_text("article.tex")
    styled = apply_style(template, Style(document_class="scrartcl", class_options=("a4paper",),
                                         package="neurips_2025", options=("preprint",)))
    assert "\\documentclass[a4paper]{scrartcl}" in styled
    assert "{geometry}" not in styled
    # after the font set-up, so the venue's fonts win
    assert styled.index("\\usepackage[preprint]{neurips_2025}") > styled.index("{fontspec}")
    class_only = apply_style(template, Style(document_class="scrartcl"))
    assert "{geometry}" not in class_only and "\\documentclass{scrartcl}" in class_only


def test_style_hook_in_the_tex(tmp_path: Path) -> None:
    result = export(STYLES / "venue_paper.ipynb", tmp_path)
    tex = result.latex
    assert "\\usepackage[preprint]{mechtest2026}" in tex
    assert "{geometry}" not in tex
    # the style defines `theorem` itself: ours is only defined when missing
    assert "\\ifcsname theorem\\endcsname\\else \\newtheorem{theorem}" in tex
    assert "\\@ifpackageloaded{natbib}{}{\\usepackage[round]{natbib}}" in tex
    # the author block venues expect: name, affiliation, e-mail on lines under it
    assert ("\\author{Ada Lovelace\\\\ Analytical Engines Ltd\\\\ \\texttt{ada@example.org} "
            "\\and Alan Turing}") in tex
    assert (tmp_path / "mechtest2026.sty").read_bytes() == (
        STYLES / "mechtest2026.sty").read_bytes()
    assert not [f for f in result.findings if f.code.startswith("MECH82")]


def test_style_files_must_exist(tmp_path: Path) -> None:
    paper = paper_from_dict(_nb(lang="en", style={"package": "nosuchvenue2099"}),
                            tmp_path / "p.ipynb")
    found = [f for f in render(paper).findings if f.name == "style-not-found"]
    assert len(found) == 1 and "nosuchvenue2099.sty" in found[0].message
    assert found[0].code == "MECH827"


@pytest.mark.skipif(shutil.which("kpsewhich") is None, reason="kpsewhich (TeX Live) missing")
def test_tex_live_class_by_name(tmp_path: Path) -> None:
    paper = paper_from_dict(_nb(lang="en", style={"class": "scrartcl"}), tmp_path / "p.ipynb")
    result = render(paper)
    assert not [f for f in result.findings if f.code.startswith("MECH82")]
    assert "\\documentclass{scrartcl}" in result.latex
    assert "scrartcl.cls" not in result.resources  # TeX Live's own copy is used


def test_style_file_linked_from_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sty"
    outside.write_text("\\ProvidesPackage{venue}\n", "utf-8")
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "venue.sty").symlink_to(outside)
    paper = paper_from_dict(_nb(lang="en", style="venue"), folder / "p.ipynb")
    result = render(paper)
    assert [f.code for f in result.findings if f.code.startswith("MECH82")] == ["MECH828"]
    assert "venue.sty" not in result.resources


def test_invalid_style_metadata_is_a_finding() -> None:
    paper = paper_from_dict(_nb(lang="en", style={"options": ["x"]}))
    assert [f.code for f in render(paper).findings] == ["MECH826"]


def test_bad_style_option_is_a_one_line_cli_error(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(NOTEBOOKS / "title_from_heading.ipynb"), "-o", str(tmp_path),
                 "--style", "{oops"], out, err)
    assert code == 1
    assert err.getvalue().startswith("mechnb export: --style '{oops': ")
    assert len(err.getvalue().strip().splitlines()) == 1


@pytest.mark.parametrize("engine, mode", [("pdflatex", 1), ("xelatex", 5), ("lualatex", 4)])
def test_latexmkrc_names_the_engine(engine: str, mode: int) -> None:
    rc = latexmkrc(render(read_paper(EXAMPLE), engine=engine), "example_paper")
    assert f"$pdf_mode = {mode};" in rc
    assert "@default_files = ('example_paper.tex');" in rc
