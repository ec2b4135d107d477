"""The last resort of a compile: a formula TeX still rejects is printed as code, and the PDF builds.

The MathJax-compatibility rewrites (``mechnb.tex.mathcompat``) make the known MathJax-only
constructs valid LaTeX before TeX runs. Whatever else MathJax accepts and LaTeX does not (a
macro of a MathJax extension, unbalanced ``\\left``…) stops the compile at a line of the
``.tex``; when that line holds math the exporter wrote, the math is replaced by its source as
code (display math as typewriter lines, inline math in ``\\texttt``), a warning names the
cell, and TeX runs again — at most ``MAX_FORMULAS_AS_CODE`` times. An error outside math is
left as it is: it is reported at its cell as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..tex.escape import escape_latex
from .context import typewriter_lines

MAX_FORMULAS_AS_CODE = 3
"""Compiles retried with a formula printed as code, per export."""

_ERROR_LINE_RE = re.compile(r"^(?:\./)?[^:\n]+\.tex:(\d+): ", re.MULTILINE)
_DISPLAY_OPEN_RE = re.compile(
    r"^[ \t]*(\\\[|\\begin\{(equation|align|gather|multline|flalign|alignat|eqnarray)\*?\})")
_INLINE_RE = re.compile(r"(?<!\\)\$((?:[^$\\]|\\.)+)(?<!\\)\$")


@dataclass(frozen=True)
class Replaced:
    """One formula printed as code: the ``.tex`` lines it spanned and its source."""

    first_line: int
    formula: str


def error_line(log: str) -> int | None:
    """The ``.tex`` line of the first ``file:line:`` error of a latexmk log."""
    m = _ERROR_LINE_RE.search(log)
    return int(m.group(1)) if m else None


def formula_as_code(tex: str, line: int) -> tuple[str, Replaced] | None:
    """``tex`` with the math around ``line`` (1-based) printed as code, or ``None`` when that
    line holds no math the exporter wrote. Only the body (after ``\\begin{document}``) is
    touched; the preamble is never rewritten."""
    lines = tex.split("\n")
    if not 1 <= line <= len(lines):
        return None
    body_start = next((i for i, text in enumerate(lines) if text.startswith("\\begin{document}")),
                      len(lines))
    index = line - 1
    if index <= body_start:
        return None
    display = _display_around(lines, index, body_start)
    if display is not None:
        first, last = display
        formula = "\n".join(lines[first:last + 1])
        lines[first:last + 1] = [typewriter_lines(formula)]
        return "\n".join(lines), Replaced(first + 1, formula)
    # inline math: the formulas of the paragraph that touch the error line, over their whole
    # extent (a `$…$` spanning lines is reported at any of them)
    first = index
    while first > body_start + 1 and lines[first - 1].strip():
        first -= 1
    last = index
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    block = "\n".join(lines[first:last + 1])
    at = sum(len(text) + 1 for text in lines[first:index])
    end_at = at + len(lines[index])
    found = [m for m in _INLINE_RE.finditer(block) if m.start() <= end_at and m.end() >= at]
    if not found:
        return None
    out, pos = [], 0
    for m in found:
        out += [block[pos:m.start()], "\\texttt{" + escape_latex(" ".join(m.group(0).split()))
                + "}"]
        pos = m.end()
    out.append(block[pos:])
    replaced = "".join(out).split("\n")
    lines[first:last + 1] = replaced
    start_line = first + 1 + block.count("\n", 0, found[0].start())
    return "\n".join(lines), Replaced(start_line, " ".join(m.group(0) for m in found))


def _display_around(lines: list[str], index: int, floor: int) -> tuple[int, int] | None:
    """The first and last line of the display math block containing line ``index``."""
    for start in range(index, max(floor, index - 200), -1):
        m = _DISPLAY_OPEN_RE.match(lines[start])
        if m is None:
            if start < index and lines[start].strip() == "":
                return None  # a paragraph break before any opening: not in a display
            continue
        closer = "\\]" if m.group(1) == "\\[" else "\\end{" + m.group(1)[len("\\begin{"):]
        for end in range(start, min(len(lines), start + 400)):
            if closer in lines[end]:
                return (start, end) if end >= index else None
        return None
    return None


_DEFINITION_RE = re.compile(r"\\((?:re)?newcommand)\*?[ \t]*"
                            r"(\{[ \t]*\\([A-Za-z]+)[ \t]*\}|\\([A-Za-z]+))"
                            r"[ \t]*(?:\[(\d)\])?(?:[ \t]*\[[^\]\n]*\])?[ \t]*\{")


def definition_as_code(tex: str, name: str, redefine: bool = False
                       ) -> tuple[str, Replaced] | None:
    """``tex`` with the notebook's ``\\newcommand``/``\\renewcommand`` of ``\\name`` (the
    definition TeX failed in, or failed while expanding) replaced by one with the same
    arguments that prints the macro's name in typewriter — MathJax marks such a macro as an
    error where it is used; every use then prints ``\name`` and the PDF builds in one more
    run, however often the macro is used. ``None`` when no such definition is found (a
    ``\\def``, a ``\\DeclareMathOperator``: the uses are printed as code instead).
    ``redefine`` (TeX said the name is already defined): the ``\\newcommand`` becomes a
    ``\\renewcommand`` with its own body — MathJax lets a definition replace the old one."""
    for m in _DEFINITION_RE.finditer(tex):
        if (m.group(3) or m.group(4)) != name:
            continue
        line = tex.count("\n", 0, m.start()) + 1
        if redefine:
            if m.group(1) != "newcommand":
                return None
            start = m.start() + 1
            return (tex[:start] + "re" + tex[start:],
                    Replaced(line, tex[m.start():m.end()]))
        depth, end = 1, m.end()
        while end < len(tex) and depth:
            ch = tex[end]
            if ch == "\\":
                end += 2
                continue
            depth += 1 if ch == "{" else -1 if ch == "}" else 0
            end += 1
        if depth:
            return None
        arity = f"[{m.group(5)}]" if m.group(5) else ""
        safe = ("\\" + m.group(1) + "{\\" + name + "}" + arity
                + "{\\texttt{\\textbackslash " + name + "}}")
        return tex[:m.start()] + safe + tex[end:], Replaced(line, tex[m.start():end])
    return None
