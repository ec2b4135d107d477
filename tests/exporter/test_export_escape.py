"""The escaping table: data-driven cases plus properties."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechnb.tex.escape import LATEX_SPECIALS, escape_latex, escape_url

from .conftest import FIXTURES

CASES = json.loads((FIXTURES / "escape_cases.json").read_text("utf-8"))


@pytest.mark.parametrize("text,expected", [(c["in"], c["out"]) for c in CASES["latex"]],
                         ids=[c["id"] for c in CASES["latex"]])
def test_escape_latex_cases(text: str, expected: str) -> None:
    assert escape_latex(text) == expected


@pytest.mark.parametrize("url,expected", [(c["in"], c["out"]) for c in CASES["url"]],
                         ids=[c["id"] for c in CASES["url"]])
def test_escape_url_cases(url: str, expected: str) -> None:
    assert escape_url(url) == expected


_ESCAPES = re.compile(r"\\(?:textbackslash|textasciicircum|textasciitilde|textless|textgreater"
                      r"|textbar)\{\}|\\[{}$&#%_]")


@given(st.text())
def test_escaped_text_has_no_bare_specials(text: str) -> None:
    out = _ESCAPES.sub("", escape_latex(text))
    # pylatexenc's encodings are brace-protected commands: drop them before looking
    out = re.sub(r"\{\\[a-zA-Z]+(?:\{[^{}]*\})?\}|\{\\[^a-zA-Z\s]\w?\}|\\ensuremath\{[^{}]*\}",
                 "", out)
    for special in "$&#%_^~<>|":
        assert special not in out
    assert "\x00" not in out


@given(st.text(alphabet=st.characters(codec="ascii")))
def test_ascii_escaping_is_the_table(text: str) -> None:
    assert escape_latex(text) == "".join(LATEX_SPECIALS.get(ch, ch) for ch in text)


def test_unicode_symbols_in_math_get_declarations() -> None:
    from mechnb.tex.escape import unicode_declarations

    lines = unicode_declarations("$α ≤ x → y$ naïve 中文 “q” plain")
    # a Greek letter: math in math, under XeLaTeX the letter itself in text (the font plan)
    assert lines == ["\\newunicodechar{α}{\\ifmmode{\\alpha}\\else\\ifPDFTeX\\ensuremath{\\alpha}"
                     "\\else\\symbol{\"03B1}\\fi\\fi}",
                     "\\newunicodechar{→}{\\ifmmode\\rightarrow\\else\\textrightarrow\\fi}",
                     "\\newunicodechar{≤}{\\ensuremath{\\leq}}"]
    assert unicode_declarations("only ascii $x$") == []
