"""Math that Jupyter renders (MathJax) but LaTeX rejects, found before TeX fails (MECH036-039).

MathJax is lenient where LaTeX is not: ``_`` inside ``\\text{…}``, text-only commands in math,
a display environment inside ``$…$``, macros of MathJax extensions that no LaTeX package
mechnb loads, and ``\\newcommand`` of a name LaTeX already has. The exporter copies math
unchanged (it only defines the harmless MathJax-only macros, ``data/latex/mathjax.tex``), so
each of these would stop the compile; the rules point at the cell and line first. They read
the math spans of the shared scanner (``mechnb.tex.scan``); every pattern is linear and each text
argument is walked once.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from ..findings import Finding
from ..tex.mathcompat import (
    ESCAPED,
    INNER_FORM,
    TEXT_COMMANDS,
    TEXT_SPECIALS,
    rewrites,
    text_argument_specials,
)
from ..tex.scan import Span
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

MATHJAX_ONLY: dict[str, str] = {
    "LaTeX": "LaTeX's `\\LaTeX` works in text only; write `\\text{\\LaTeX}`",
    "TeX": "LaTeX's `\\TeX` works in text only; write `\\text{\\TeX}`",
    "url": "hyperref's `\\url` cannot be used in math; move the link out of the math",
    "unicode": "`\\unicode{…}` exists only in MathJax; type the character itself or use a LaTeX "
               "symbol command",
    "cancel": "`\\cancel` is MathJax's cancel extension; mechnb's templates do not load the "
              "LaTeX `cancel` package (use a template that does, or write it another way)",
    "bcancel": "`\\bcancel` is MathJax's cancel extension; mechnb's templates do not load the "
               "LaTeX `cancel` package",
    "xcancel": "`\\xcancel` is MathJax's cancel extension; mechnb's templates do not load the "
               "LaTeX `cancel` package",
    "cancelto": "`\\cancelto` is MathJax's cancel extension; mechnb's templates do not load "
                "the LaTeX `cancel` package",
    "enclose": "`\\enclose` exists only in MathJax; use `\\boxed{…}` or write it another way",
    "ce": "`\\ce` is MathJax's mhchem extension; mechnb's templates do not load the LaTeX "
          "`mhchem` package",
    "pu": "`\\pu` is MathJax's mhchem extension; mechnb's templates do not load the LaTeX "
          "`mhchem` package",
    "Space": "`\\Space` exists only in MathJax; use `\\hspace{…}` or `\\rule{0pt}{…}`",
    "Tiny": "`\\Tiny` exists only in MathJax; use `\\scriptscriptstyle`",
    "toggle": "`\\toggle` is MathJax's action extension (interactive); write the math once",
    "mathtip": "`\\mathtip` is MathJax's action extension (a tooltip); write the math alone",
    "texttip": "`\\texttip` is MathJax's action extension (a tooltip); write the math alone",
}
"""Commands MathJax accepts in math that LaTeX with mechnb's preamble rejects, with the fix."""

_COMMAND = re.compile(
    r"(?<!\\)(?P<run>\\+)(?P<name>"
    + "|".join(sorted({*TEXT_COMMANDS, *MATHJAX_ONLY}, key=len, reverse=True))
    + r")(?![A-Za-z])")
_ARG_OPEN = re.compile(r"[ \t]*\{")
_DEFINE = re.compile(
    r"(?<!\\)\\(?P<how>newcommand|DeclareMathOperator)\*?[ \t]*\{?[ \t]*\\(?P<name>[A-Za-z]+)")


@dataclass
class _Found:
    """Every construct of the three rules, by ``(cell, key)``: the offsets where it occurs."""

    specials: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    special_command: dict[tuple[int, str], str] = field(default_factory=dict)
    commands: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    nested: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    nested_in: dict[tuple[int, str], str] = field(default_factory=dict)
    defined: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    defined_by: dict[tuple[int, str], str] = field(default_factory=dict)
    other: dict[tuple[int, str], list[tuple[int, str]]] = field(default_factory=dict)
    """``array-columns`` and ``stray-dollar`` rewrites: (offset, detail)."""


@cache
def latex_defined() -> frozenset[str]:
    """Control words LaTeX already defines with mechnb's preamble (``defined-commands.txt``)."""
    text = resources.files("mechnb").joinpath("data/latex/defined-commands.txt").read_text(
        "utf-8")
    return frozenset(word for line in text.splitlines() if not line.startswith("#")
                     for word in line.split())


_CACHE: weakref.WeakKeyDictionary[Document, _Found] = weakref.WeakKeyDictionary()


def _found(doc: Document) -> _Found:
    """One pass over the math of every cell for all three rules (cached per document)."""
    cached = _CACHE.get(doc)
    if cached is None:
        cached = _CACHE[doc] = _Found()
        for cell, scan in doc.scans.items():
            for span in scan.spans:
                if span.kind != "math":
                    continue
                math = scan.source[span.start:span.end]
                backslash = "\\" in math
                if not backslash and "$" not in math and math.isascii():
                    continue  # no rewrite can apply (commands, a stray $, CJK)
                opened = _delimiter(scan.source, span)
                if opened in ("\\[", "\\("):
                    # markdown reads these as escaped brackets: Jupyter and the PDF show text
                    continue
                _scan_rewrites(cached, cell, scan.source, span, opened)
                if backslash:
                    _scan_commands(cached, cell, scan.source, span)
                    _scan_definitions(cached, cell, scan.source, span)
    return cached


def _scan_definitions(found: _Found, cell: int, src: str, span: Span) -> None:
    if (src.find("newcommand", span.start, span.end) < 0
            and src.find("DeclareMathOperator", span.start, span.end) < 0):
        return
    known = latex_defined()
    for m in _DEFINE.finditer(src, span.start, span.end):
        if m.group("name") in known:
            key = (cell, m.group("name"))
            found.defined.setdefault(key, []).append(m.start())
            found.defined_by.setdefault(key, m.group("how"))


def _scan_commands(found: _Found, cell: int, src: str, span: Span) -> None:
    resume = span.start  # each text argument is walked once, nested \text included
    for m in _COMMAND.finditer(src, span.start, span.end):
        if len(m.group("run")) % 2 == 0 or m.start() < resume:
            continue  # an even run of backslashes is line breaks, then a word of text
        name = m.group("name")
        if name not in TEXT_COMMANDS:
            offset = m.start() + len(m.group("run")) - 1
            found.commands.setdefault((cell, name), []).append(offset)
            continue
        arg = _ARG_OPEN.match(src, m.end(), span.end)
        if arg is None:
            continue
        specials, resume = text_argument_specials(src, arg.end() - 1, span.end)
        for _offset, char in specials:  # the offsets come from the rewrites (_scan_rewrites)
            found.special_command.setdefault((cell, char), name)


_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)(?:\\\\)*\$")


def _scan_rewrites(found: _Found, cell: int, src: str, span: Span, opened: str) -> None:
    start, end = span.start, span.end
    if opened == "env":  # read the environment whole, as the exporter does
        begin = src.rfind("\\begin", max(0, start - 60), start)
        close = src.find("}", end + 4, end + 60)
        if begin >= 0 and close >= 0 and src.startswith("\\end", end):
            start, end = begin, close + 1
    math = src[start:end]
    if opened == "$":
        # inline math ends at its first unescaped `$`, as markdown-it (the exporter's parser)
        # and Jupyter read it (`$… W $，原命题得证。`); the scanner's span can run past one
        closer = _UNESCAPED_DOLLAR.search(math)
        if closer is not None:
            math = math[:closer.start()]
    for r in rewrites(math, display=opened != "$", alone_ok=opened in ("$$", "env")):
        key = (cell, r.detail)
        if r.kind == "text-special":
            found.specials.setdefault(key, []).append(start + r.offset)
        elif r.kind == "nested-display":
            found.nested.setdefault(key, []).append(start + r.offset)
            found.nested_in.setdefault(key, opened)
        else:
            found.other.setdefault((cell, r.kind), []).append((start + r.offset, r.detail))


def _more(n: int) -> str:
    return f" (and {n} more in this cell)" if n else ""


def _delimiter(source: str, span: Span) -> str:
    """How the math span was opened: ``$``, ``$$``, ``\\(``, ``\\[`` or ``env`` (bare)."""
    before = source[max(0, span.start - 2):span.start]
    if before in ("$$", "\\[", "\\("):
        return before
    if before.endswith("$"):
        return "$"
    return "env"


def check_text_specials(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``_ ^ # & %`` written bare inside ``\\text{…}``-like arguments in math: escaped on
    export (``mechnb.tex.mathcompat``)."""
    found = _found(doc)
    for (cell, char), offsets in found.specials.items():
        command = found.special_command.get((cell, char), "text")
        yield rule.at(doc, f"{TEXT_SPECIALS[char]} inside `\\{command}{{…}}` in math: MathJax "
                           f"prints it, LaTeX would stop; rewritten on export as `{ESCAPED[char]}`"
                           f"{_more(len(offsets) - 1)}", cell, offsets[0], labels=(char,))


def check_mathjax_only(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Commands in math that only MathJax (or a LaTeX package mechnb does not load) knows;
    inside ``\\text{…}`` they are text (``\\text{\\LaTeX}`` is right) and not reported."""
    for (cell, name), offsets in _found(doc).commands.items():
        yield rule.at(doc, f"`\\{name}` in math renders in Jupyter but not in LaTeX: "
                           f"{MATHJAX_ONLY[name]}{_more(len(offsets) - 1)}", cell, offsets[0],
                      labels=(name,))


def check_nested_display(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A display environment inside other math (``$…$``, ``$$ x \\begin{align}…$$``,
    ``\\begin{equation}\\begin{align}``): exported in its inner form (``aligned``…);
    ``$$\\begin{align}…\\end{align}$$`` alone is fine."""
    found = _found(doc)
    for (cell, name), offsets in found.nested.items():
        where = {"$": "inline math `$…$`", "$$": "`$$…$$` next to other math",
                 "env": "another display environment"}[found.nested_in[(cell, name)]]
        yield rule.at(doc, f"`\\begin{{{name}}}` inside {where}: MathJax renders it, LaTeX "
                           f"would stop (display environments do not nest); rewritten on export "
                           f"as {_inner(name)}{_more(len(offsets) - 1)}", cell, offsets[0],
                      labels=(name,))


def check_other_rewrites(doc: Document, rule: Rule) -> Iterator[Finding]:
    """An ``array`` using more columns than it declares, a ``$`` inside display math: both
    rewritten on export (``mechnb.tex.mathcompat``)."""
    for (cell, kind), hits in _found(doc).other.items():
        offset, detail = hits[0]
        if kind == "array-columns":
            declared, used = detail.split(" → ")
            message = (f"an `array` declares {declared} column{'s' if declared != '1' else ''} "
                       f"and a row uses {used}: MathJax renders it, LaTeX would stop (\"Extra "
                       f"alignment tab\"); exported with {used} columns")
        elif kind == "eqnarray-columns":
            message = (f"an `{detail}` with rows of more than three cells: MathJax renders it, "
                       f"LaTeX would stop (\"Extra alignment tab\"); exported as "
                       f"`align{detail.removeprefix('eqnarray')}`")
        elif kind == "script-argument":
            message = (f"a sub- or superscript `\\{detail}{{…}}` without braces: MathJax takes "
                       f"the command with its arguments, LaTeX would stop (\"Missing {{ "
                       f"inserted\"); exported in braces")
        elif kind == "cjk-in-math":
            message = (f"{detail!r} written in math: MathJax sets it in a text font, LaTeX's math "
                       "fonts have none of its letters (it would vanish); exported inside "
                       "`\\text{…}`")
        else:
            message = ("a `$` inside display math: MathJax ignores it, LaTeX would stop (\"Display "
                       "math should end with $$\"); dropped on export")
        yield rule.at(doc, message + _more(len(hits) - 1), cell, offset, labels=(kind,))


def check_redefined(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``\\newcommand`` / ``\\DeclareMathOperator`` of a name LaTeX already defines."""
    found = _found(doc)
    for (cell, name), offsets in found.defined.items():
        how = found.defined_by[(cell, name)]
        if how.startswith("newcommand"):  # the export writes \renewcommand, as MathJax means it
            message = (f"`\\{how}` of `\\{name}`, which LaTeX already defines: exported as "
                       f"`\\renewcommand` (MathJax lets a definition replace the old meaning), "
                       f"so LaTeX's `\\{name}` is gone in the whole paper, text included; pick "
                       f"a new name to keep both")
        else:
            message = (f"`\\{how}` of `\\{name}`, which LaTeX already defines: MathJax lets "
                       f"the notebook redefine it, LaTeX stops (\"Command \\{name} already "
                       f"defined\"); pick a new name, or write `\\renewcommand` if you mean "
                       f"to replace it")
        yield rule.at(doc, message + _more(len(offsets) - 1), cell, offsets[0], labels=(name,))


def _inner(name: str) -> str:
    inner = INNER_FORM[name.rstrip("*")]
    return f"`{inner}`" if inner else "its bare content"
