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
* ``cjk-in-math`` — text in a script LaTeX's math fonts lack (Chinese, Japanese, Korean,
  Cyrillic, Hebrew, Arabic, the Indic scripts, Thai …) in math (``|w| ≥ n 且 w``,
  ``y = sin(x) + шум``) goes into ``\\text{…}``, where the text fonts (the font plan, the CJK
  fonts, T2A) apply (MathJax falls back to a text font by itself);
* ``script-argument`` — a sub- or superscript that is a command with arguments, without braces
  (``\\nabla_\\boldsymbol{\\theta}``, ``x^\\frac{1}{2}``: MathJax takes the command with its
  arguments, LaTeX stops with "Missing { inserted"), gets the braces (``_{\\boldsymbol{\\theta}}``).

Every scan is linear in the math's length.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..lazyre import lazy

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


_TEXT_COMMAND = lazy(r"(?<!\\)(?P<run>\\+)(?P<name>" + "|".join(
    sorted(TEXT_COMMANDS, key=len, reverse=True)) + r")(?![A-Za-z])")
_ARG_OPEN = lazy(r"[ \t]*\{")
_TEXT_TOKEN = lazy(r"\\[A-Za-z]+|\\.|[{}$_^#&%]", re.DOTALL)
_ENV = lazy(r"\\(begin|end)[ \t]*\{[ \t]*([A-Za-z]+\*?)[ \t]*\}")
_ARRAY_SPEC = lazy(r"\\begin[ \t]*\{array\}[ \t]*(?:\[[a-z]\])?[ \t]*\{")
_TOKEN = lazy(r"\\[A-Za-z]+|\\.|[{}&$]", re.DOTALL)


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

    starts = [start for start, _end, _ in texts]  # in order, not overlapping

    def in_text(offset: int) -> bool:
        k = bisect.bisect_right(starts, offset) - 1
        return k >= 0 and offset < texts[k][1]

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
    found += _column_rewrites(math)
    found += _script_rewrites(math, in_text)
    if not math.isascii():
        found += [Rewrite(m.start(), "cjk-in-math", m.group()) for m in _CJK_RUN.finditer(math)
                  if not in_text(m.start())]
    if display and "$" in math:
        found += [Rewrite(t.start(), "stray-dollar", "$") for t in _TOKEN.finditer(math)
                  if t.group() == "$" and not in_text(t.start())]
    return sorted(found, key=lambda r: r.offset)


SCRIPT_ARGUMENT_COMMANDS = {
    **dict.fromkeys(("boldsymbol", "bm", "mathbf", "mathrm", "mathit", "mathsf", "mathtt",
                     "mathcal", "mathbb", "mathfrak", "mathscr", "text", "textrm", "textbf",
                     "textit", "operatorname", "vec", "hat", "tilde", "bar", "dot", "ddot",
                     "overline", "underline", "widehat", "widetilde", "sqrt", "mbox",
                     "pmb"), 1),
    **dict.fromkeys(("frac", "dfrac", "tfrac", "binom", "tbinom", "dbinom"), 2)}
"""Commands with arguments MathJax accepts as a bare sub-/superscript, and how many."""
_SCRIPT_COMMAND = lazy(r"(?<!\\)[_^][ \t]*(\\(" + "|".join(SCRIPT_ARGUMENT_COMMANDS)
                       + r")(?![A-Za-z]))")


def _script_argument_end(math: str, start: int, name: str) -> int | None:
    """The offset after ``\\name`` at ``start`` and its braced arguments, or ``None`` when one
    is not braced (left as it is)."""
    k = start + 1 + len(name)
    if name == "sqrt":
        while k < len(math) and math[k] in " \t":
            k += 1
        if k < len(math) and math[k] == "[":
            close = math.find("]", k)
            if close < 0:
                return None
            k = close + 1
    for _ in range(SCRIPT_ARGUMENT_COMMANDS[name]):
        while k < len(math) and math[k] in " \t":
            k += 1
        if k >= len(math) or math[k] != "{":
            return None
        _content, k = _group(math, k)
    return k


def _script_rewrites(math: str, in_text: Callable[[int], bool]) -> list[Rewrite]:
    if "_\\" not in math and "^\\" not in math and "_ \\" not in math and "^ \\" not in math:
        return []
    found = []
    for m in _SCRIPT_COMMAND.finditer(math):
        if in_text(m.start()) or _script_argument_end(math, m.start(1), m.group(2)) is None:
            continue
        found.append(Rewrite(m.start(1), "script-argument", m.group(2)))
    return found


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


_CJK_RUN = lazy(r"[\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0700-\u08ff"
                r"\u0900-\u0dff\u0e00-\u0eff\u0f00-\u0fff\u10a0-\u10ff\u1100-\u11ff"
                r"\u1200-\u137f\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                r"\uac00-\ud7af\uff00-\uffef]+")
"""Letters of scripts LaTeX's math fonts lack (Cyrillic, Armenian, Hebrew, Arabic, the Indic
scripts, Thai, Georgian, Ethiopic, CJK, Hangul): MathJax sets them in a text font."""


def _column_rewrites(math: str) -> list[Rewrite]:
    """``array``s whose rows use more cells than their specification declares, and
    ``eqnarray``s with rows of more than three cells; one pass with a stack of the open ones."""
    if "array" not in math:
        return []
    found = []
    frames: list[_Frame] = []
    depth = 0
    for t in _TOKEN.finditer(math):
        token = t.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token in ("\\begin", "\\end"):
            env = _ENV.match(math, t.start())
            if env is None or env.group(2).rstrip("*") not in ("array", "eqnarray"):
                continue
            name = env.group(2)
            if token == "\\begin":
                spec = _ARRAY_SPEC.match(math, t.start()) if name == "array" else None
                declared = (_spec_columns(_group(math, spec.end() - 1)[0]) if spec
                            else 0 if name == "array" else 3)
                frames.append(_Frame(name, spec.end() - 1 if spec else t.start(), declared,
                                     depth))
            elif frames and frames[-1].name == name:
                frame = frames.pop()
                if frame.declared and frame.most > frame.declared:
                    found.append(Rewrite(frame.offset, "array-columns",
                                         f"{frame.declared} → {frame.most}")
                                 if name == "array" else
                                 Rewrite(frame.offset, "eqnarray-columns", name))
        elif frames and depth == frames[-1].depth:
            if token == "&":
                frames[-1].cells += 1
                frames[-1].most = max(frames[-1].most, frames[-1].cells)
            elif token == "\\\\":
                frames[-1].cells = 1
    return found


@dataclass
class _Frame:
    """An open ``array`` or ``eqnarray`` of ``_column_rewrites``."""

    name: str
    offset: int
    declared: int
    depth: int
    cells: int = 1
    most: int = 1


def rewrite_math(math: str, *, display: bool) -> tuple[str, list[Rewrite]]:
    """``math`` with every rewrite of ``rewrites`` made, and the rewrites."""
    found = rewrites(math, display=display)
    if not found:
        return math, found
    out: list[str] = []
    at = 0
    # per environment name, the ends of its rewritten occurrences, in the order they opened
    closing: dict[str, deque[str]] = {}
    for r in found:
        out.append(math[at:r.offset])
        at = r.offset
        if r.kind == "text-special":
            out.append(ESCAPED[r.detail])
            at += 1
        elif r.kind == "stray-dollar":
            at += 1
        elif r.kind == "script-argument":
            end = _script_argument_end(math, r.offset, r.detail)
            assert end is not None
            out.append("{" + math[r.offset:end] + "}")
            at = end
        elif r.kind == "cjk-in-math":
            out.append("\\text{ " + r.detail + " }")  # a word among symbols: spaced
            at += len(r.detail)
        elif r.kind == "array-columns":
            spec, after = _group(math, r.offset)
            declared, used = (int(n) for n in r.detail.split(" → "))
            out.append("{" + spec + "c" * (used - declared) + "}")
            at = after
        else:  # nested-display, eqnarray-columns: a new environment name
            m = _ENV.match(math, r.offset)
            assert m is not None
            if r.kind == "eqnarray-columns":
                new = "align" + r.detail.removeprefix("eqnarray")
            else:
                new = INNER_FORM[r.detail.rstrip("*")]
            out.append("\\begin{" + new + "}" if new else "")
            at = m.end()
            closing.setdefault(r.detail, deque()).append("\\end{" + new + "}" if new else "")
    text = "".join(out) + math[at:]
    if closing:
        text = _END.sub(lambda m: _closed(m, closing), text)
    return text, found


_END = lazy(r"\\end[ \t]*\{([A-Za-z]+\*?)\}")


def _closed(m: re.Match[str], closing: dict[str, deque[str]]) -> str:
    """The end of a rewritten environment in its new form: the first ends of a name close its
    rewritten occurrences (environments of one name do not interleave); other ends unchanged."""
    queue = closing.get(m.group(1))
    return queue.popleft() if queue else m.group(0)
