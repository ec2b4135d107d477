"""MathJax-compatibility rewrites: math Jupyter renders and LaTeX rejects, made valid LaTeX.

Math is copied verbatim on its way to LaTeX, with the short list of exceptions DESIGN §2
documents, all made here (the checker reports each as an info finding at its cell, from the same
function, so ``check`` says exactly what ``export`` does):

* ``text-special`` — a bare ``_ ^ # & %`` inside ``\\text{…}``-like arguments is escaped
  (``\\text{hidden_states}`` → ``\\text{hidden\\_states}``);
* ``nested-display`` — a display environment inside other math takes its inner form
  (``align*`` → ``aligned``, ``gather`` → ``gathered``, ``equation`` unwrapped), so
  ``$$\\left\\{\\begin{align*}…\\end{align*}\\right.$$`` and ``$\\begin{align}…$`` compile; a
  display that is only one environment is left alone (it is exported as that environment);
* ``array-columns`` — an ``array`` whose rows use more cells than its column specification
  declares gets ``c`` columns appended;
* ``stray-dollar`` — a ``$`` inside display math (outside a text argument) is dropped;
* ``eqnarray-columns`` — an ``eqnarray`` with rows of more than three cells becomes ``align``;
* ``cjk-in-math`` — Chinese, Japanese or Korean text in math (``|w| ≥ n 且 w``) goes into
  ``\\text{…}``, where the CJK fonts apply (MathJax falls back to a text font by itself).

Every scan is linear in the math's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TEXT_COMMANDS = ("text", "textrm", "textit", "textbf", "textsf", "texttt", "mbox", "hbox")
"""Commands whose argument MathJax and LaTeX both typeset as text inside math."""
TEXT_SPECIALS = {
    "_": "`_` (a subscript)", "^": "`^` (a superscript)", "#": "`#` (a macro parameter)",
    "&": "`&` (an alignment tab)", "%": "`%` (a comment: TeX drops the rest of the line)",
}
"""Characters MathJax prints literally inside ``\\text{…}`` and LaTeX reads as TeX syntax."""
ESCAPED = {"_": "\\_", "^": "\\^{}", "#": "\\#", "&": "\\&", "%": "\\%"}
"""How each of ``TEXT_SPECIALS`` is written in LaTeX text."""

DISPLAY_ENVIRONMENTS = frozenset(
    name + star for name in ("equation", "align", "gather", "multline", "flalign", "alignat",
                             "eqnarray")
    for star in ("", "*"))
"""Environments that start display math themselves (their ``…ed`` forms nest; these cannot)."""
INNER_FORM = {"align": "aligned", "flalign": "aligned", "eqnarray": "aligned",
              "gather": "gathered", "multline": "gathered", "alignat": "alignedat",
              "equation": ""}
"""What a display environment becomes inside other math (``""``: its content alone)."""


@dataclass(frozen=True)
class Rewrite:
    """One compatibility rewrite, at an offset of the math it was made in."""

    offset: int
    kind: str
    """``text-special``, ``nested-display``, ``array-columns`` or ``stray-dollar``."""
    detail: str
    """The character, the environment, ``"3 → 4"`` columns, or ``"$"``."""


_TEXT_COMMAND = re.compile(r"(?<!\\)(?P<run>\\+)(?P<name>" + "|".join(
    sorted(TEXT_COMMANDS, key=len, reverse=True)) + r")(?![A-Za-z])")
_ARG_OPEN = re.compile(r"[ \t]*\{")
_TEXT_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}$_^#&%]", re.DOTALL)
_ENV = re.compile(r"\\(begin|end)[ \t]*\{[ \t]*([A-Za-z]+\*?)[ \t]*\}")
_ARRAY_SPEC = re.compile(r"\\begin[ \t]*\{array\}[ \t]*(?:\[[a-z]\])?[ \t]*\{")
_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}&$]", re.DOTALL)


def text_argument_specials(source: str, start: int, end: int) -> tuple[list[tuple[int, str]], int]:
    """The unescaped ``TEXT_SPECIALS`` of the braced argument opening at ``start`` (outside any
    ``$…$`` nested in it), and the offset after the argument (``end`` if it is not closed)."""
    found: list[tuple[int, str]] = []
    depth = 0
    in_math = False
    for t in _TEXT_TOKEN.finditer(source, start, end):
        token = t.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return found, t.end()
        elif token == "$":
            in_math = not in_math
        elif token in TEXT_SPECIALS and not in_math:
            found.append((t.start(), token))
    return found, end


def text_arguments(math: str) -> list[tuple[int, int, list[tuple[int, str]]]]:
    """Every ``\\text{…}``-like argument of ``math``: (start, end, its bare specials)."""
    out = []
    resume = 0
    for m in _TEXT_COMMAND.finditer(math):
        if len(m.group("run")) % 2 == 0 or m.start() < resume:
            continue  # an even run of backslashes is line breaks, then a word of text
        arg = _ARG_OPEN.match(math, m.end())
        if arg is None:
            continue
        specials, resume = text_argument_specials(math, arg.end() - 1, len(math))
        out.append((arg.end() - 1, resume, specials))
    return out


def _single_environment(math: str) -> str | None:
    """The display environment ``math`` consists of, if it is exactly one."""
    stripped = math.strip()
    m = _ENV.match(stripped)
    if (m and m.group(1) == "begin" and m.group(2) in DISPLAY_ENVIRONMENTS
            and stripped.endswith("\\end{" + m.group(2) + "}")):
        return m.group(2)
    return None


def rewrites(math: str, *, display: bool, alone_ok: bool | None = None) -> list[Rewrite]:
    """The rewrites ``rewrite_math`` makes in ``math`` (``display``: ``$$…$$`` or a bare
    environment, else inline ``$…$``; ``alone_ok``, by default ``display``: ``math`` may be one
    display environment, exported as that environment — false for the inside of one)."""
    found: list[Rewrite] = []
    texts = text_arguments(math)
    for _start, _end, specials in texts:
        found += [Rewrite(offset, "text-special", char) for offset, char in specials]

    def in_text(offset: int) -> bool:
        return any(start <= offset < end for start, end, _ in texts)

    outer = _single_environment(math) if (display if alone_ok is None else alone_ok) else None
    skip_outer = outer is not None
    depth_outer = 0
    for m in _ENV.finditer(math):
        kind, name = m.groups()
        if name not in DISPLAY_ENVIRONMENTS or in_text(m.start()):
            continue
        if skip_outer and name == outer:
            if kind == "begin":
                depth_outer += 1
                if depth_outer == 1:
                    continue
            else:
                depth_outer -= 1
                if depth_outer == 0:
                    continue
        if kind == "begin":
            found.append(Rewrite(m.start(), "nested-display", name))
    found += _array_rewrites(math)
    found += _eqnarray_rewrites(math)
    if not math.isascii():
        found += [Rewrite(m.start(), "cjk-in-math", m.group()) for m in _CJK_RUN.finditer(math)
                  if not in_text(m.start())]
    if display and "$" in math:
        found += [Rewrite(t.start(), "stray-dollar", "$") for t in _TOKEN.finditer(math)
                  if t.group() == "$" and not in_text(t.start())]
    return sorted(found, key=lambda r: r.offset)


def _spec_columns(spec: str) -> int:
    """Columns an ``array`` specification declares (``*{n}{…}`` expanded, rules and
    ``@{…}``/``>{…}`` ignored)."""
    count = 0
    i = 0
    while i < len(spec):
        ch = spec[i]
        if ch in "@!<>":
            _, i = _group(spec, i + 1)
            continue
        if ch in "pmbw":
            _, i = _group(spec, i + 1)
            count += 1
            continue
        if ch == "*":
            times, i = _group(spec, i + 1)
            inner, i = _group(spec, i)
            count += (int(times) if times.strip().isdigit() else 1) * _spec_columns(inner)
            continue
        if ch.isalpha():
            count += 1
        i += 1
    return count


def _group(text: str, i: int) -> tuple[str, int]:
    """The braced group at ``text[i:]`` (after blanks): its content and the offset after it."""
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] != "{":
        return (text[i], i + 1) if i < len(text) else ("", i)
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return text[i + 1:], len(text)


def _array_rewrites(math: str) -> list[Rewrite]:
    if "array" not in math:
        return []
    found = []
    for m in _ARRAY_SPEC.finditer(math):
        spec, body_start = _group(math, m.end() - 1)
        declared = _spec_columns(spec)
        used = _used_columns(math, body_start)
        if declared and used > declared:
            found.append(Rewrite(m.end() - 1, "array-columns", f"{declared} → {used}"))
    return found


_EQNARRAY = re.compile(r"\\begin[ \t]*\{eqnarray(\*?)\}")
_CJK_RUN = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
                      r"\uff00-\uffef]+")


def _eqnarray_rewrites(math: str) -> list[Rewrite]:
    """An ``eqnarray`` with a row of more than its three cells (MathJax allows any number)."""
    if "eqnarray" not in math:
        return []
    return [Rewrite(m.start(), "eqnarray-columns", "eqnarray" + m.group(1))
            for m in _EQNARRAY.finditer(math) if _used_columns(math, m.end(), "eqnarray") > 3]


def _used_columns(math: str, start: int, env: str = "array") -> int:
    """The most cells a row of the ``env`` (an array, an eqnarray) whose body starts at ``start``
    uses."""
    depth = 0
    nested = 0
    cells = most = 1
    for t in _TOKEN.finditer(math, start):
        token = t.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == "\\begin" or token == "\\end":
            found = _ENV.match(math, t.start())
            if found and found.group(2) == env:
                if token == "\\end":
                    if nested == 0:
                        break
                    nested -= 1
                else:
                    nested += 1
        elif depth == 0 and nested == 0:
            if token == "&":
                cells += 1
                most = max(most, cells)
            elif token == "\\\\":
                cells = 1
    return most


def rewrite_math(math: str, *, display: bool) -> tuple[str, list[Rewrite]]:
    """``math`` with every rewrite of ``rewrites`` made, and the rewrites."""
    found = rewrites(math, display=display)
    if not found:
        return math, found
    out: list[str] = []
    at = 0
    open_envs: list[str] = []  # inner forms of the rewritten environments still open
    retitled: list[str] = []  # eqnarrays set as align
    nested_names = {r.offset: r.detail for r in found if r.kind == "nested-display"}
    for r in found:
        out.append(math[at:r.offset])
        at = r.offset
        if r.kind == "text-special":
            out.append(ESCAPED[r.detail])
            at += 1
        elif r.kind == "stray-dollar":
            at += 1
        elif r.kind == "cjk-in-math":
            out.append("\\text{" + r.detail + "}")
            at += len(r.detail)
        elif r.kind == "eqnarray-columns":
            star = r.detail.removeprefix("eqnarray")
            out.append("\\begin{align" + star + "}")
            at = math.index("}", r.offset) + 1
            retitled.append(r.detail)
        elif r.kind == "array-columns":
            spec, after = _group(math, r.offset)
            declared, used = (int(n) for n in r.detail.split(" → "))
            out.append("{" + spec + "c" * (used - declared) + "}")
            at = after
        elif r.kind == "nested-display":
            m = _ENV.match(math, r.offset)
            assert m is not None
            inner = INNER_FORM[r.detail.rstrip("*")]
            out.append("\\begin{" + inner + "}" if inner else "")
            at = m.end()
            open_envs.append(r.detail)
    text = "".join(out) + math[at:]
    for name in retitled:
        end = "\\end{" + name + "}"
        pos = text.find(end)
        if pos >= 0:
            align = "\\end{align" + name.removeprefix("eqnarray") + "}"
            text = text[:pos] + align + text[pos + len(end):]
    if nested_names:
        text = _close_rewritten(text, [n for n in nested_names.values()])
    return text, found


def _close_rewritten(text: str, names: list[str]) -> str:
    """The ``\\end{…}`` of each rewritten environment, in its inner form."""
    for name in names:
        inner = INNER_FORM[name.rstrip("*")]
        end = "\\end{" + name + "}"
        # the first end after the last rewritten begin closes it (they do not interleave)
        pos = text.find(end)
        if pos < 0:
            continue
        text = text[:pos] + ("\\end{" + inner + "}" if inner else "") + text[pos + len(end):]
    return text
