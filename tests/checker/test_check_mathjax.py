"""MECH036-039: MathJax math that LaTeX rejects — the rules fire on it, and the export copes.

``fixtures/checker/mathjax/constructs.json`` lists the constructs each rule fires on and
near misses it must not fire on. The ``tex`` tests compile every one of them with the real
exporter (pdfLaTeX, the English default): MECH036/038 constructs are rewritten into valid LaTeX,
MECH037 ones are printed as code at their cell (MECH834), MECH039's \\newcommand is exported as
\\renewcommand and its \\DeclareMathOperator stops TeX at its cell; the
accepted ones and the rules' ``passes`` fixtures must give a PDF.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from growth import FACTOR, assert_linear
from trust_helper import approve_review

from mechnb.checker import check
from mechnb.checker.mathjax import text_argument_specials
from mechnb.exporter.api import export

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"
CONSTRUCTS = json.loads((FIXTURES / "mathjax" / "constructs.json").read_text("utf-8"))
REJECTED = [pytest.param(c["rule"], c["markdown"], id=f"{c['rule']}-{n}")
            for n, c in enumerate(CONSTRUCTS["rejected"])]
ACCEPTED: list[str] = CONSTRUCTS["accepted"]
RULES = ("MECH036", "MECH037", "MECH038", "MECH039")
RULE_DIRS = ("MECH036-text-special-in-math", "MECH037-mathjax-only-command",
             "MECH038-nested-display-math", "MECH039-macro-already-defined")
needs_tex = pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("latexmk")),
                               reason="TeX Live (pdflatex, latexmk) is not installed")


def notebook(*markdown: str) -> dict[str, Any]:
    """A plain English notebook with one markdown cell per text."""
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "markdown", "metadata": {}, "source": text}
                      for text in markdown]}


def mathjax_findings(path: Path) -> list[tuple[str, int | None]]:
    return [(f.code, f.cell) for f in check(path) if f.code in RULES]


def write(tmp_path: Path, name: str, nb: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(nb), "utf-8")
    return path


@pytest.mark.parametrize(("rule", "markdown"), REJECTED)
def test_the_rule_fires_on_the_construct(tmp_path: Path, rule: str, markdown: str) -> None:
    path = write(tmp_path, "paper.ipynb", notebook(markdown))
    assert mathjax_findings(path) == [(rule, 0)]


def test_no_rule_fires_on_the_near_misses(tmp_path: Path) -> None:
    path = write(tmp_path, "paper.ipynb", notebook(*ACCEPTED))
    assert mathjax_findings(path) == []


def test_finding_points_at_the_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "paper.ipynb", notebook("First line.\n\nThe $\\text{max_len}$ cap."))
    [f] = [f for f in check(path) if f.code == "MECH036"]
    assert (f.cell, f.line, f.column) == (0, 3, 15)
    assert "`\\_`" in f.message


def test_the_rules_stay_linear_on_adversarial_input() -> None:
    # thousands of unclosed \\text{ (and \\begin{align}, \\LaTeX) in one math span: each text
    # argument is walked once (the next walk resumes where the last stopped)
    from mechnb.checker.document import Document
    from mechnb.checker.rules import RULES_BY_CODE
    from mechnb.notebook import paper_from_dict

    for unit in ("\\text{a_", "\\begin{align}", "\\LaTeX\\text{", "\\\\text{a_",
                 "\\newcommand{\\d}", "\\newcommand{"):
        papers = {n: paper_from_dict(notebook("$$" + unit * n + "$$"))
                  for n in (1_000, 1_000 * FACTOR)}

        def rules(n: int, papers: dict[int, Any] = papers) -> list[Any]:
            doc = Document(papers[n])
            return [f for code in RULES for f in RULES_BY_CODE[code].check(doc,
                                                                            RULES_BY_CODE[code])]

        assert_linear(rules, 1_000, unit)
        assert len(rules(1_000 * FACTOR)) <= 2, unit  # one finding per construct and cell
    found, end = text_argument_specials("{a_{b}c}d", 0, 9)
    assert found == [(2, "_")] and end == 8


# --------------------------------------------------------------------------- real TeX


def _assert_outcome(rule: str, markdown: str, result: Any) -> None:
    """What the export does with a construct of ``rule``: MECH036/038 are rewritten into valid
    LaTeX (a PDF, no formula printed as code); MECH037's commands make TeX stop, so the formula
    is printed as code at its cell (MECH834) and the PDF builds; MECH039's ``\\newcommand`` is
    exported as ``\\renewcommand`` (MathJax's meaning: the new definition replaces the old), a
    ``\\DeclareMathOperator`` sits in the preamble, where nothing is rewritten: TeX stops, at
    the cell."""
    said = [f.format("paper") for f in result.findings]
    as_code = [f.cell for f in result.findings if f.code == "MECH834"]
    if rule in ("MECH036", "MECH038"):
        assert result.pdf_path is not None and not as_code, (markdown, said)
    elif rule == "MECH037":
        assert result.pdf_path is not None and as_code == [1], (markdown, said)
    elif "newcommand" in markdown:
        assert result.pdf_path is not None and not as_code, (markdown, said)
    else:
        errors = [f for f in result.findings if f.code == "MECH810"]
        assert result.pdf_path is None and errors and errors[0].cell == 1, (markdown, said)
        assert "already defined" in errors[0].message and errors[0].line == 1


@pytest.mark.tex
@needs_tex
@pytest.mark.parametrize(("rule", "markdown"), REJECTED)
def test_the_export_makes_the_construct_compile(tmp_path: Path, rule: str, markdown: str
                                                ) -> None:
    path = write(tmp_path, "paper.ipynb", notebook("An ordinary first paragraph.", markdown))
    approve_review(path)  # MathJax-only constructs are off the allow-list: read, approved
    result = export(path, tmp_path / "out", pdf=True)
    assert result.engine == "pdflatex"
    _assert_outcome(rule, markdown, result)


FIRST_OF_EACH = [pytest.param(rule, next(c["markdown"] for c in CONSTRUCTS["rejected"]
                                        if c["rule"] == rule), id=rule) for rule in RULES]


@pytest.mark.tex
@needs_tex
@pytest.mark.parametrize(("rule", "markdown"), FIRST_OF_EACH)
def test_the_same_under_xelatex(tmp_path: Path, rule: str, markdown: str) -> None:
    path = write(tmp_path, "paper.ipynb", notebook("An ordinary first paragraph.", markdown))
    approve_review(path)  # MathJax-only constructs are off the allow-list: read, approved
    _assert_outcome(rule, markdown, export(path, tmp_path / "out", pdf=True, engine="xelatex"))


@pytest.mark.tex
@needs_tex
def test_tex_accepts_every_near_miss(tmp_path: Path) -> None:
    path = write(tmp_path, "paper.ipynb", notebook(*ACCEPTED))
    approve_review(path)  # MathJax-only constructs are off the allow-list: read, approved
    result = export(path, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None and result.pdf_path.read_bytes().startswith(b"%PDF"), \
        [f.format("paper") for f in result.findings]


@pytest.mark.tex
@needs_tex
@pytest.mark.parametrize("folder", RULE_DIRS)
def test_the_passes_fixture_compiles(tmp_path: Path, folder: str) -> None:
    # the cells the passes fixture changed in the clean paper, compiled on their own (the rest of
    # the fixture paper is about other rules and carries stand-in images)
    clean = json.loads((FIXTURES / "clean.ipynb").read_text("utf-8"))["cells"]
    passes = json.loads((FIXTURES / "rules" / folder / "passes.ipynb").read_text("utf-8"))
    changed = [c["source"] for c, before in zip(passes["cells"], clean, strict=True)
               if c["source"] != before["source"]]
    assert changed
    path = write(tmp_path, "passes.ipynb", notebook(*changed))
    approve_review(path)  # MathJax-only constructs are off the allow-list: read, approved
    result = export(path, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None, [f.format("passes") for f in result.findings]
