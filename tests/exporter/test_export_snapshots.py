"""Fixture notebooks → expected ``.tex`` (and findings/resources) snapshots."""

from __future__ import annotations

import json

import pytest

from mechnb.exporter.api import render
from mechnb.notebook import read_paper
from mechnb.roles import registry

from .conftest import EXPECTED, FIXTURE_NOTEBOOKS, NOTEBOOKS, assert_snapshot


def summary(name: str) -> tuple[str, str]:
    result = render(read_paper(NOTEBOOKS / f"{name}.ipynb"))
    record = {
        "findings": [f"{f.code} {f.name} cell={f.cell}" for f in result.findings],
        "resources": sorted(result.resources),
    }
    return result.latex, json.dumps(record, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", FIXTURE_NOTEBOOKS)
def test_tex_snapshot(name: str) -> None:
    latex, record = summary(name)
    assert_snapshot(EXPECTED / f"{name}.tex", latex)
    assert_snapshot(EXPECTED / f"{name}.json", record)


def test_every_role_is_covered_by_the_english_fixture() -> None:
    nb = json.loads((NOTEBOOKS / "all_roles_en.ipynb").read_text("utf-8"))
    used = {c["metadata"].get("mechnb", {}).get("role") for c in nb["cells"]}
    assert set(registry()) <= used


def test_every_theorem_like_role_gets_an_environment_from_the_registry() -> None:
    latex = render(read_paper(NOTEBOOKS / "all_roles_en.ipynb")).latex
    for role in registry().values():
        if role.latex_kind == "environment":
            env = role.latex["env"]
            assert f"\\begin{{{env}}}" in latex, env
            assert f"{{{role.display('en')}}}" in latex  # the \newtheorem display name


def test_chinese_paper_uses_ctexart_and_chinese_names() -> None:
    latex = render(read_paper(NOTEBOOKS / "chinese_zh.ipynb")).latex
    assert "\\documentclass[11pt,UTF8]{ctexart}" in latex
    assert "\\newtheorem{theorem}[definition]{定理}" in latex
    assert "\\begin{theorem}[{汇聚判据}]\\label{thm:sink}" in latex
    assert "\\paragraph{解读}" in latex and "\\paragraph{局限性}" in latex


def test_note_cells_are_never_exported() -> None:
    latex = render(read_paper(NOTEBOOKS / "all_roles_en.ipynb")).latex
    assert "Private: check the constants again." not in latex


def test_appendix_comes_after_the_bibliography() -> None:
    latex = render(read_paper(NOTEBOOKS / "all_roles_en.ipynb")).latex
    assert latex.index("\\bibliography{") < latex.index("\\appendix") < latex.index(
        "\\section{Full proofs}")


def test_every_block_is_marked_with_its_cell() -> None:
    result = render(read_paper(NOTEBOOKS / "all_roles_en.ipynb"))
    line = next(n for n, text in enumerate(result.latex.split("\n"), 1)
                if "\\begin{theorem}" in text)
    assert result.rendered.cell_at(line) == 12
    assert result.rendered.cell_at(1) is None


def test_annotations_sit_at_their_cells_block() -> None:
    from mechnb.findings import Finding, Severity

    paper = read_paper(NOTEBOOKS / "all_roles_en.ipynb")
    notes = [Finding("MECH003", "theorem-without-interpretation", Severity.ERROR,
                     "interpret 100% of it", cell=12),
             Finding("MECH001", "missing-required-role", Severity.ERROR, "no gap", cell=None),
             Finding("MECH099", "on-a-note", Severity.INFO, "note cell", cell=30)]
    latex = render(paper, annotations=notes).latex
    ids = {c.index: c.id for c in paper.cells}
    assert (f"% mechnb:cell {ids[12]}\n"
            "\\todo{MECH003: interpret 100\\% of it}\n\\begin{theorem}") in latex
    assert (f"% mechnb:cell {ids[31]}\n"
            "\\todo{MECH099: note cell}\n\\paragraph{Limitations.}") in latex
    assert "\\end{abstract}\n\\todo{MECH001: no gap}" in latex
    assert "{todonotes}" in latex
    assert "{todonotes}" not in render(paper).latex


def test_a_label_tex_cannot_use_is_left_out_with_a_finding() -> None:
    from mechnb.notebook import paper_from_dict

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "Claim.",
         "metadata": {"mechnb": {"role": "theorem", "label": "thm:my #1"}}}]}
    result = render(paper_from_dict(nb))
    assert "\\label" not in result.latex.split("\\begin{document}")[1]
    assert [(f.code, f.cell) for f in result.findings] == [("MECH814", 0)]
