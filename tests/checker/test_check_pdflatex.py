"""MECH040: what pdfLaTeX cannot typeset, found in the notebook text (checker side)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mechnb.checker import check
from mechnb.notebook import paper_from_dict, read_paper

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "exporter" / "engines"
           / "pdflatex_characters.ipynb")


def _mech040(paper: Any) -> list[tuple[int | None, int | None, int | None, tuple[str, ...]]]:
    return [(f.cell, f.line, f.column, f.labels) for f in check(paper) if f.code == "MECH040"]


def test_emoji_in_an_english_paper_is_reported_at_its_character() -> None:
    # cell 1 holds accents, curly quotes, CJK and Greek/arrows in math: all typeset
    assert _mech040(read_paper(FIXTURE)) == [(2, 1, 10, ("U+1F525",))]


def test_not_reported_when_the_paper_compiles_with_xelatex() -> None:
    nb = json.loads(FIXTURE.read_text("utf-8"))
    nb["metadata"]["mechnb"]["engine"] = "xelatex"
    assert _mech040(paper_from_dict(nb)) == []
    nb["metadata"]["mechnb"] = {"lang": "zh"}  # Chinese papers default to XeLaTeX
    assert _mech040(paper_from_dict(nb)) == []


def test_captions_and_titles_count_and_each_character_once_per_cell() -> None:
    nb = json.loads(FIXTURE.read_text("utf-8"))
    # (a check mark or a star would be drawn: mechnb/tex/symbols.py; a snowman is not)
    nb["metadata"]["mechnb"]["title"] = "Heads \u2603"
    nb["cells"][3]["source"] = "\u2708 and \u2708 again, \u05e9."
    found = _mech040(paper_from_dict(nb))
    assert [(c, labels) for c, _, _, labels in found] == [
        (None, ("U+2603",)), (2, ("U+1F525",)), (3, ("U+2708",)), (3, ("U+05E9",))]


def test_a_korean_cell_gives_three_characters_then_one_line() -> None:
    from mechnb.notebook import paper_from_dict

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"engine": "pdflatex"}},
          "cells": [{"cell_type": "markdown", "id": "k", "metadata": {},
                     "source": "Intro: 트랜스포머로 무엇을 할 수 있나요?"}]}
    found = [f for f in check(paper_from_dict(nb)) if f.code == "MECH040"]
    assert [f.labels for f in found] == [("U+D2B8",), ("U+B79C",), ("U+C2A4",), ("U+D3EC",)]
    assert "11 more characters of this cell either (포머로무엇을할수있나요)" in found[3].message
