"""Escaping text for LaTeX: one table-driven function (plus URLs and verbatim), tested alone.

ASCII specials go through ``str.translate``; characters the default XeLaTeX fonts lack (Greek,
arrows, math symbols outside math) are encoded with pylatexenc, imported only when such a
character occurs. Latin letters, common punctuation and CJK text pass through unchanged:
XeLaTeX (with ctex for Chinese) typesets them directly.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Any

LATEX_SPECIALS: dict[str, str] = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\x00": "",
}
"""Every ASCII character that means something to TeX, and what it becomes in running text."""

_TABLE = str.maketrans(LATEX_SPECIALS)

_BAD_NAME_RE = re.compile(r"[\s#%\\{}$&~^,]")


def is_safe_name(name: str) -> bool:
    """True if ``name`` can be written inside ``\\label{}`` / ``\\cite{}`` as is (nothing that
    ends the argument, starts a comment or a command: spaces, ``# % \\ { } $ & ~ ^ ,``)."""
    return bool(name) and _BAD_NAME_RE.search(name) is None


def is_safe_label(name: str) -> bool:
    """True if ``name`` can be written inside ``\\label{}`` / ``\\ref{}`` as is: as
    ``is_safe_name``, except that single spaces between words are allowed — LaTeX keeps them in
    a label (``\\label{sec:my intro}`` and ``\\ref{sec:my intro}`` name the same key), while a
    BibTeX key cannot hold one."""
    return (bool(name) and name == name.strip(" ") and "  " not in name
            and is_safe_name(name.replace(" ", "_")))

URL_SPECIALS: dict[str, str] = {"\\": "/", "%": r"\%", "#": r"\#", "{": "%7B", "}": "%7D"}
"""Characters that cannot appear raw inside ``\\href{...}`` / ``\\url{...}``."""

_URL_TABLE = str.maketrans(URL_SPECIALS)

# Characters typeset directly: Latin-1 and Latin Extended, general punctuation (dashes, quotes,
# ellipsis), Cyrillic (T2A under pdfLaTeX, the font plan under XeLaTeX: ``fontplan.py``), CJK
# scripts and punctuation, fullwidth forms. A Greek *word* is text in Greek and is left as it is
# too (the font plan sets it); a lone Greek letter in other text is a symbol (``\ensuremath``).
_NEEDS_ENCODING_CLASS = (
    "[\u0370-\u03ff\u1f00-\u1fff]{2,}|"
    "[^\x00-\x7f\u00a0-\u024f\u0400-\u052f\u2010-\u205f\u3000-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


@cache
def _pattern(regex: str) -> re.Pattern[str]:
    """Compiled on first use: the Unicode classes cost milliseconds at import."""
    return re.compile(regex)


def needs_encoding(text: str) -> bool:
    """Whether the escaping looks ``text`` (one character, or a Greek word) up in pylatexenc's
    table rather than writing it as it is."""
    return _pattern(_NEEDS_ENCODING_CLASS).fullmatch(text) is not None


@cache
def unusable_encodings() -> frozenset[int]:
    """Code points whose pylatexenc LaTeX does not compile with mechnb's templates (a command of
    a package they do not load, or of an encoding they do not use: ``\\mathscr``,
    ``\\textschwa``); ``data/latex/unusable-encodings.txt``, written by
    ``scripts/probe_encodings.py``. The escaping keeps these characters as they are."""
    text = resources.files("mechnb").joinpath("data/latex/unusable-encodings.txt").read_text(
        "utf-8")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(int(line, 16) for line in lines if line and not line.startswith("%"))


@cache
def _pylatexenc() -> Any:
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(
        non_ascii_only=True, unknown_char_policy="keep", unknown_char_warning=False,
        replacement_latex_protection="braces-all")


def encode_with_pylatexenc(text: str) -> str:
    """``text`` as pylatexenc's table writes it, unusable encodings included (for the probe)."""
    encoded: str = _pylatexenc().unicode_to_latex(text)
    return encoded


@cache
def _encoder() -> Any:
    from pylatexenc.latexencode import (
        RULE_DICT,
        UnicodeToLatexConversionRule,
        UnicodeToLatexEncoder,
    )

    keep = UnicodeToLatexConversionRule(RULE_DICT, {p: chr(p) for p in unusable_encodings()},
                                        replacement_latex_protection="none")
    return UnicodeToLatexEncoder(
        conversion_rules=[keep, "defaults"], non_ascii_only=True, unknown_char_policy="keep",
        unknown_char_warning=False, replacement_latex_protection="braces-all")


def _encode_char(match: re.Match[str]) -> str:
    if len(match.group(0)) > 1:  # a Greek word
        return match.group(0)
    encoded: str = _encoder().unicode_to_latex(match.group(0))
    return encoded


def escape_latex(text: str) -> str:
    """``text`` as LaTeX that typesets exactly those characters (never math, never commands)."""
    out = text.translate(_TABLE)
    if not out.isascii():
        out = _pattern(_NEEDS_ENCODING_CLASS).sub(_encode_char, out)
    return out


def escape_url(url: str) -> str:
    """A URL made safe for the argument of ``\\href`` or ``\\url``."""
    return url.translate(_URL_TABLE)


_MATH_FALLBACKS = {
    r"\textrightarrow": r"\rightarrow", r"\textleftarrow": r"\leftarrow",
    r"\textuparrow": r"\uparrow", r"\textdownarrow": r"\downarrow",
    r"\textpm": r"\pm", r"\texttimes": r"\times", r"\textdiv": r"\div",
    r"\textperiodcentered": r"\cdot", r"\textdegree": r"^{\circ}",
}
_CJK_OR_ASCII_CLASS = ("[\x00-\x7f\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                       "\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+")


def unicode_declarations(latex: str) -> list[str]:
    """``\\newunicodechar`` lines for the symbols in ``latex`` that the fonts lack in math.

    Text is encoded by ``escape_latex`` already; what remains non-ASCII is math and code copied
    unchanged (``$α → β$``), which XeLaTeX's default math fonts cannot typeset. Each symbol gets
    a definition that works in both modes; letters with accents and CJK are left alone.
    """
    if latex.isascii():
        return []
    from .symbols import replacement

    chars = sorted(ch for ch in set(_pattern(_CJK_OR_ASCII_CLASS).sub("", latex))
                   if replacement(ch) is None)  # those are drawn (symbols.py)
    lines = []
    for ch in chars:
        encoded = _encoder().unicode_to_latex(ch)
        inner = encoded[1:-1] if encoded.startswith("{") and encoded.endswith("}") else encoded
        if inner.startswith("\\ensuremath{") and ord(ch) >= 0x370 and ch.isalpha():
            # a letter of a script (Greek): math in math, the letter itself in XeLaTeX text
            # (the font plan sets it), math letters as before under pdfLaTeX
            lines.append("\\newunicodechar{" + ch + "}{\\ifmmode" + inner[len("\\ensuremath"):]
                         + "\\else\\ifPDFTeX" + inner + "\\else\\symbol{\"" + f"{ord(ch):04X}"
                         + "}\\fi\\fi}")
        elif inner.startswith("\\ensuremath{"):
            lines.append("\\newunicodechar{" + ch + "}{" + inner + "}")
        elif inner in _MATH_FALLBACKS:
            lines.append("\\newunicodechar{" + ch + "}{\\ifmmode" + _MATH_FALLBACKS[inner]
                         + "\\else" + inner + "\\fi}")
    return lines


@cache
def pdftex_characters() -> frozenset[int]:
    """Code points pdfLaTeX typesets with the templates' inputenc + T1 (``pdftex-unicode.txt``)."""
    text = resources.files("mechnb").joinpath("data/latex/pdftex-unicode.txt").read_text("utf-8")
    points: set[int] = set()
    for line in text.splitlines():
        if not line.strip() or line.startswith("%"):
            continue
        first, _, last = line.strip().partition("-")
        points.update(range(int(first, 16), int(last or first, 16) + 1))
    from .fontplan import PDFTEX_CYRILLIC, pdftex_cyrillic

    if pdftex_cyrillic():  # T2A (texlive-lang-cyrillic), loaded by the font plan
        points.update(PDFTEX_CYRILLIC)
    return frozenset(points)


def pdflatex_lacks(char: str) -> bool:
    """True when ``char`` written in notebook text would stop pdfLaTeX: escaping leaves it as it
    is and inputenc has no definition for it. (CJK is the caller's call: ctex typesets it.)"""
    from .symbols import replacement

    return (ord(char) >= 0x80 and ord(char) not in pdftex_characters()
            and escape_latex(char) == char and replacement(char) is None)
