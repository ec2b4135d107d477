"""The TeX delimiter scanner, on cases kept as data (tests/fixtures/checker/texscan.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mechnb.tex.scan import scan_markdown

DATA = Path(__file__).resolve().parent.parent / "fixtures" / "checker" / "texscan.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scanner(case: dict[str, Any]) -> None:
    scan = scan_markdown(case["text"])
    if "spans" in case:
        assert [[s.kind, case["text"][s.start:s.end]] for s in scan.spans] == case["spans"]
    got = [(*scan.position(p.start), p.message) for p in scan.problems]
    assert len(got) == len(case["problems"]), got
    for (line, col, message), (want_line, want_col, fragment) in zip(
            got, case["problems"], strict=True):
        assert (line, col) == (want_line, want_col)
        assert fragment in message


def test_spans_cover_the_text_in_order() -> None:
    text = "a $b$ `c` $$d$$ \\begin{align}e\\end{align} f"
    scan = scan_markdown(text)
    starts = [s.start for s in scan.spans]
    assert starts == sorted(starts)
    assert all(0 <= s.start < s.end <= len(text) for s in scan.spans)
