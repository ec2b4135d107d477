"""The balance check used on the templates catches what it should."""

from __future__ import annotations

import pytest

from .texbalance import tex_problems


@pytest.mark.parametrize("text", [
    r"$a + b$ and $$\frac{1}{2}$$",
    r"\begin{equation}\label{eq:x} x = \{1, 2\} \end{equation}",
    r"\begin{align} a &= \left( b \right) \\ c &= d \end{align}",
    r"costs \$5 [slot] and [another slot]",
], ids=["dollars", "equation-escaped-braces", "align-left-right", "escaped-dollar-slots"])
def test_balanced_text_passes(text: str) -> None:
    assert tex_problems(text) == []


@pytest.mark.parametrize("text", [
    r"\frac{1}{2",
    r"x}",
    r"$a + b",
    r"$$ x",
    r"\begin{equation} x \end{align}",
    r"\begin{equation} x",
    r"\left( x",
    "[symbol]: its meaning",
], ids=["open-brace", "close-brace", "dollar", "double-dollar", "env-mismatch", "env-open",
        "left-right", "link-definition"])
def test_unbalanced_text_fails(text: str) -> None:
    assert tex_problems(text)
