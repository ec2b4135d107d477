"""Sentence splitting: math, citations, abbreviations, lists and Chinese (cases are data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mechnb.moves.sentences import split_sentences

CASES = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "moves" /
                    "split.json").read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_split(case: dict[str, Any]) -> None:
    got = split_sentences(case["text"])
    assert [s.text for s in got] == case["sentences"]
    for s in got:  # offsets point back into the text (whitespace may differ inside)
        assert case["text"][s.start:s.end].split()[0] == s.text.split()[0][:len(
            case["text"][s.start:s.end].split()[0])]


def test_empty_and_blank_text() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\n # Only a heading\n") == []


def test_etc_ends_a_list_and_its_sentence_but_not_before_lower_case() -> None:
    text = ("It explains many aspects: size, decay, etc. Guided by this, we test it. "
            "Heads, layers, etc. are ablated.")
    assert [s.text for s in split_sentences(text)] == [
        "It explains many aspects: size, decay, etc.", "Guided by this, we test it.",
        "Heads, layers, etc. are ablated."]
