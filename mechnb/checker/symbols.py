"""Best-effort check that the main theorem's symbols were introduced before it.

A *symbol* is a single Latin letter or a Greek-letter macro in math, with its font command
(``W``, ``\\mathbf{W}``, ``\\alpha``); sub- and superscripts, multi-letter words, ``\\text{…}``
and operator names are ignored, as are symbols the theorem binds itself ("Let $k$ …",
"for any $\\epsilon$", ``\\forall x``) and a few constants (``e``, ``i``, ``d``, ``O``, ``\\pi``).
A symbol counts as introduced when it appears in the math of any exported cell before the
main theorem.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

GREEK = frozenset((
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "varrho", "sigma",
    "varsigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta",
    "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"))
CONSTANTS = frozenset({"e", "i", "d", "O", "o", "\\pi", "\\Theta", "\\Omega"})
_DROP_ARG = re.compile(
    r"\\(?:text\w*|mathrm|operatorname\*?|label|ref|eqref|cref|Cref|autoref|begin|end|"
    r"mathbb|mbox|hbox|cite\w*)\s*\{[^{}]*\}")
_SCRIPT = re.compile(r"[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|.)")
_FONT = re.compile(r"\\(mathbf|mathcal|boldsymbol|bm|mathsf|mathfrak|mathscr|vec|hat|tilde|"
                   r"bar|widehat|widetilde|overline|dot)\s*\{\s*(\\[A-Za-z]+|[A-Za-z])\s*\}")
_DECORATION = frozenset({"vec", "hat", "tilde", "bar", "widehat", "widetilde", "overline", "dot"})
_TOKEN = re.compile(r"\\(?P<macro>[A-Za-z]+)|(?<![A-Za-z])(?P<letter>[A-Za-z])(?![A-Za-z])")
_BINDER_BEFORE = re.compile(
    r"(?i)(?:\blet|\bfor (?:all|any|every|each|some)|\bthere (?:is|are|exists?)|\bgiven|\bwith|"
    r"\bwhere|\bsuppose|\bassume|\bif|设|令|对任意|对于|存在|其中|若|如果)[^.$]{0,40}$")
_BINDER_MACRO = re.compile(r"\\(?:forall|exists)\s*(\\[A-Za-z]+|[A-Za-z])")


def math_symbols(math: str) -> set[str]:
    """The symbols of one math string (see the module docstring)."""
    symbols: set[str] = set()
    math = _DROP_ARG.sub(" ", math)
    math = _SCRIPT.sub(" ", math)

    def font(m: re.Match[str]) -> str:
        inner = m.group(2)
        if m.group(1) in _DECORATION:
            symbols.add(inner)
        else:
            symbols.add(f"\\{m.group(1)}{{{inner}}}")
        return " "

    math = _FONT.sub(font, math)
    for m in _TOKEN.finditer(math):
        macro = m.group("macro")
        if macro is not None:
            if macro in GREEK:
                symbols.add("\\" + macro)
        else:
            symbols.add(m.group("letter"))
    return symbols


def _cell_symbols(doc: Document, index: int) -> set[str]:
    scan = doc.scans.get(index)
    out: set[str] = set()
    if scan is not None:
        for _, text in scan.text_of("math"):
            out |= math_symbols(text)
    return out


def theorem_symbols(doc: Document, index: int) -> tuple[set[str], set[str]]:
    """(used, bound) symbols of the theorem in cell ``index``."""
    scan = doc.scans.get(index)
    used: set[str] = set()
    bound: set[str] = set()
    if scan is None:
        return used, bound
    prose_before = ""
    for span in scan.spans:
        text = scan.source[span.start:span.end]
        if span.kind == "prose":
            prose_before = text
            continue
        if span.kind != "math":
            continue
        symbols = math_symbols(text)
        used |= symbols
        if _BINDER_BEFORE.search(prose_before[-60:]):
            bound |= symbols
        for m in _BINDER_MACRO.finditer(text):
            bound |= math_symbols(m.group(1))
    return used, bound


def check_theorem_symbols(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Symbols of the main theorem that no earlier cell's math mentions."""
    main = doc.main_theorem
    if main is None:
        return
    used, bound = theorem_symbols(doc, main.index)
    missing = used - bound - CONSTANTS
    if not missing:
        return
    introduced: set[str] = set()
    for idx in doc.scans:
        if idx < main.index:
            introduced |= _cell_symbols(doc, idx)
    missing -= introduced
    if missing:
        listed = ", ".join(f"${s}$" for s in sorted(missing))
        yield rule.at(doc, f"the main theorem uses {listed} but no earlier cell introduces "
                           f"{'it' if len(missing) == 1 else 'them'}; define "
                           f"{'it' if len(missing) == 1 else 'them'} in a `setup` or "
                           f"`definition` cell before the theorem", main.index, None,
                      (main.label,) if main.label else ())
