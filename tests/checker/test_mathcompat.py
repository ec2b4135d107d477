"""The MathJax-compatibility rewrites (``mechnb.tex.mathcompat``), one kind at a time: what the
export writes and what the checker reports come from this one function."""

from __future__ import annotations

import pytest
from growth import assert_linear

from mechnb.tex.mathcompat import rewrite_math

CASES = [
    (r"\text{hidden_states}", False, r"\text{hidden\_states}", ["text-special"]),
    (r"\mbox{50% of a#b}", False, r"\mbox{50\% of a\#b}", ["text-special", "text-special"]),
    (r"\text{cost $x_1$}", False, r"\text{cost $x_1$}", []),  # math inside text is math
    (r" \left\{ \begin{align*} a &= b \\ c &= d \end{align*} \right. ", True,
     r" \left\{ \begin{aligned} a &= b \\ c &= d \end{aligned} \right. ", ["nested-display"]),
    (r"\begin{align} a &= b \end{align}", True, r"\begin{align} a &= b \end{align}", []),
    (r"\begin{equation}\begin{gather} a \end{gather}\end{equation}", True,
     r"\begin{equation}\begin{gathered} a \end{gathered}\end{equation}", ["nested-display"]),
    (r"x + \begin{equation} y \end{equation}", True, r"x +  y ", ["nested-display"]),
    (r"\begin{array}{cc} a & b & c \\ d \end{array}", True,
     r"\begin{array}{ccc} a & b & c \\ d \end{array}", ["array-columns"]),
    (r"\begin{array}{*{2}{c}|l} a & b & c \end{array}", True,
     r"\begin{array}{*{2}{c}|l} a & b & c \end{array}", []),  # *{2}{c}|l declares three
    (r"\begin{array}{c} \begin{array}{cc} a & b \end{array} \end{array}", True,
     r"\begin{array}{c} \begin{array}{cc} a & b \end{array} \end{array}", []),  # inner & only
    (r"x = $y$ + 1", True, "x = y + 1", ["stray-dollar", "stray-dollar"]),
    (r"\begin{eqnarray} x &=& a &+& b \end{eqnarray}", True,
     r"\begin{align} x &=& a &+& b \end{align}", ["eqnarray-columns"]),
    (r"\begin{eqnarray*} x &=& a \end{eqnarray*}", True,
     r"\begin{eqnarray*} x &=& a \end{eqnarray*}", []),
    ("|w| \\ge n 且 w", False, "|w| \\ge n \\text{ 且 } w", ["cjk-in-math"]),
    ("\\text{长度} n", False, "\\text{长度} n", []),
]


@pytest.mark.parametrize(("math", "display", "expected", "kinds"), CASES)
def test_each_rewrite(math: str, display: bool, expected: str, kinds: list[str]) -> None:
    out, found = rewrite_math(math, display=display)
    assert out == expected
    assert [r.kind for r in found] == kinds


@pytest.mark.parametrize("unit", [r"\text{a_", r"\begin{align}", r"\begin{array}{c}a&b", "$",
                                  "且", r"\begin{eqnarray}a&b&c&d\\", r"\text{a}$",
                                  r"\text{a}\begin{align}", r"\end{align}"])
def test_rewrites_stay_linear_on_adversarial_math(unit: str) -> None:
    assert_linear(lambda n: rewrite_math(unit * n, display=True), 2_000, unit)
