"""Every query of ``tests/fixtures/phrases/first_results.json`` finds the phrase a writer wants
first (issue 24: no empty result for common academic words and connectives)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechnb.phrases.lookup import search

DATA = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "phrases" /
                   "first_results.json").read_text("utf-8"))


@pytest.mark.parametrize(("query", "expected"), sorted(DATA["first"].items()))
def test_comes_first(query: str, expected: str) -> None:
    found = [p.id for p in search(query, limit=5)]
    assert found and found[0] == expected, found


@pytest.mark.parametrize(("query", "expected"), sorted(DATA["among_first_three"].items()))
def test_among_the_first_three(query: str, expected: str) -> None:
    assert expected in [p.id for p in search(query, limit=3)]
