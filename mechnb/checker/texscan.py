"""Split markdown cell text into prose, math and code, and check that its TeX is balanced.

This is a small purpose-built scanner (no markdown parser on the check path, DESIGN.md §6). It
knows the math syntaxes of DESIGN.md §2 — ``$…$``, ``$$…$$``, ``\\[…\\]``, ``\\(…\\)`` and bare
amsmath environments — skips fenced and inline code, and inside math tracks braces,
``\\begin``/``\\end`` and ``\\left``/``\\right``. Every problem keeps the offsets of both ends.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Literal

SpanKind = Literal["prose", "math", "code"]

MATH_ENVIRONMENTS = frozenset(
    name + star
    for name in ("equation", "align", "gather", "multline", "flalign", "alignat", "eqnarray",
                 "math", "displaymath", "dmath", "subequations")
    for star in ("", "*")
)
"""Environments that open display math when written bare in markdown (amsmath style)."""

# The next thing that changes the scanner's mode, in prose.
_PROSE_TOKEN = re.compile(
    r"(?P<fence>^[ \t]{0,3}(?:```|~~~))"
    r"|(?P<tick>`+)"
    r"|(?P<escape>\\[\\$`\[\]()])"
    r"|(?P<dollars>\$\$?)"
    r"|\\begin\{(?P<begin>[^{}\n]*)\}"
    r"|\\end\{(?P<end>[^{}\n]*)\}",
    re.MULTILINE,
)
_ESCAPED_BRACKET = {"\\[": "\\]", "\\(": "\\)"}
# Tokens that matter inside math.
_MATH_TOKEN = re.compile(
    r"\\[\\{}%$&#_ ]"
    r"|\\begin\{(?P<begin>[^{}\n]*)\}"
    r"|\\end\{(?P<end>[^{}\n]*)\}"
    r"|\\(?P<lr>left|right)(?![A-Za-z])"
    r"|\\[A-Za-z@]+"
    r"|(?P<brace>[{}])"
    r"|(?P<comment>%[^\n]*)"
)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_INLINE_CLOSER = re.compile(r"(?<![\\$\s])\$(?!\$)")


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the text: ``prose``, ``math`` or ``code``, as offsets ``[start, end)``."""

    kind: SpanKind
    start: int
    end: int
    display: bool = False
    """For math: display math (``$$``, ``\\[``, an environment) rather than inline ``$``."""


@dataclass(frozen=True, slots=True)
class TexProblem:
    """An unbalanced delimiter: what, where it opens and where the scanner gave up on it."""

    message: str
    """What is unbalanced and what to do, with ``{start}`` / ``{end}`` already filled in."""
    start: int
    """Offset of the offending delimiter."""
    end: int | None = None
    """Offset of the other end (the mismatched closer, or where the enclosing region ends)."""


@dataclass
class ScannedText:
    """The result of scanning one text: spans in order, TeX problems, and a line index."""

    source: str
    spans: list[Span] = field(default_factory=list)
    problems: list[TexProblem] = field(default_factory=list)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        src = self.source
        return src.count("\n", 0, offset) + 1, offset - src.rfind("\n", 0, offset)

    def where(self, offset: int) -> str:
        """``line L, column C`` of ``offset`` (for messages)."""
        line, col = self.position(offset)
        return f"line {line}:{col}"

    def segments(self, kind: SpanKind) -> list[Span]:
        """The spans of one kind."""
        return [s for s in self.spans if s.kind == kind]

    def text_of(self, kind: SpanKind) -> list[tuple[int, str]]:
        """``(offset, text)`` for every span of ``kind``."""
        return [(s.start, self.source[s.start:s.end]) for s in self.spans if s.kind == kind]


class _Scanner:
    def __init__(self, source: str) -> None:
        self.src = source
        self.out = ScannedText(source)
        self.env_stack: list[tuple[str, int]] = []  # prose-level environments (itemize…)
        self.blank_lines: list[int] | None = None

    def problem(self, message: str, start: int, end: int | None = None) -> None:
        where = self.out.where
        filled = message.replace("{start}", where(start))
        if end is not None:
            filled = filled.replace("{end}", where(end))
        self.out.problems.append(TexProblem(filled, start, end))

    def add(self, kind: SpanKind, start: int, end: int, display: bool = False) -> None:
        if end > start:
            self.out.spans.append(Span(kind, start, end, display))

    def run(self) -> ScannedText:
        src = self.src
        pos = 0
        prose_from = 0
        n = len(src)
        while pos < n:
            m = _PROSE_TOKEN.search(src, pos)
            if m is None:
                break
            kind = m.lastgroup
            if kind == "escape":
                token = m.group()
                if token in _ESCAPED_BRACKET:
                    close = src.find(_ESCAPED_BRACKET[token], m.end())
                    if close >= 0:
                        self.add("prose", prose_from, m.start())
                        self.math(m.end(), close, display=token == "\\[")
                        pos = prose_from = close + 2
                        continue
                pos = m.end()
                continue
            if kind == "fence":
                fence = m.group().strip()[:3]
                line_end = src.find("\n", m.end())
                if line_end < 0:
                    line_end = n
                closer = re.compile(r"^[ \t]{0,3}" + re.escape(fence) + r"+[ \t]*$", re.MULTILINE)
                fence_close = closer.search(src, line_end)
                end = fence_close.end() if fence_close else n
                self.add("prose", prose_from, m.start())
                self.add("code", m.start(), end)
                pos = prose_from = end
                continue
            if kind == "tick":
                ticks = m.group()
                close = src.find(ticks, m.end())
                while close >= 0 and close + len(ticks) < n and src[close + len(ticks)] == "`":
                    close = src.find(ticks, close + len(ticks) + 1)
                if close < 0:
                    pos = m.end()  # a lone backtick run is literal text
                    continue
                self.add("prose", prose_from, m.start())
                self.add("code", m.start(), close + len(ticks))
                pos = prose_from = close + len(ticks)
                continue
            if kind == "dollars":
                handled = self.dollars(m)
                if handled is None:
                    pos = m.end()
                    continue
                self.add("prose", prose_from, m.start())
                pos = prose_from = handled
                continue
            if kind == "begin":
                name = m.group("begin").strip()
                if name in MATH_ENVIRONMENTS:
                    end_tag = "\\end{" + name + "}"
                    close = src.find(end_tag, m.end())
                    self.add("prose", prose_from, m.start())
                    if close < 0:
                        self.problem(f"`\\begin{{{name}}}` at {{start}} is never closed (the cell "
                                     f"ends at {{end}}); add `{end_tag}`", m.start(), n)
                        self.math(m.end(), n, display=True, region=(m.start(), n))
                        pos = prose_from = n
                    else:
                        self.math(m.end(), close, display=True,
                                  region=(m.start(), close))
                        pos = prose_from = close + len(end_tag)
                    continue
                self.env_stack.append((name, m.start()))
                pos = m.end()
                continue
            # kind == "end" at prose level
            name = m.group("end").strip()
            self.close_env(name, m.start())
            pos = m.end()
        self.add("prose", prose_from, n)
        for name, start in self.env_stack:
            self.problem(f"`\\begin{{{name}}}` at {{start}} is never closed (the cell ends at "
                         f"{{end}}); add `\\end{{{name}}}`", start, n)
        # the region spans were added in order except math/code inside regions; keep them sorted
        self.out.spans.sort(key=lambda s: s.start)
        self.out.problems.sort(key=lambda p: p.start)
        return self.out

    def close_env(self, name: str, at: int) -> None:
        if not self.env_stack:
            self.problem(f"`\\end{{{name}}}` at {{start}} has no matching `\\begin{{{name}}}`",
                         at)
            return
        open_name, open_at = self.env_stack[-1]
        if open_name == name:
            self.env_stack.pop()
            return
        if any(n == name for n, _ in self.env_stack):
            # close the inner unclosed environments, reporting each
            while self.env_stack and self.env_stack[-1][0] != name:
                inner, inner_at = self.env_stack.pop()
                self.problem(f"`\\begin{{{inner}}}` at {{start}} is closed by "
                             f"`\\end{{{name}}}` at {{end}}; add `\\end{{{inner}}}` first",
                             inner_at, at)
            self.env_stack.pop()
            return
        self.problem(f"`\\begin{{{open_name}}}` at {{start}} is closed by `\\end{{{name}}}` at "
                     f"{{end}}; make the names match", open_at, at)
        self.env_stack.pop()

    def dollars(self, m: re.Match[str]) -> int | None:
        """Handle ``$`` or ``$$`` at ``m``; the offset after the math, or None if literal."""
        src = self.src
        n = len(src)
        if m.group() == "$$":
            close = src.find("$$", m.end())
            while close > 0 and src[close - 1] == "\\":
                close = src.find("$$", close + 2)
            if close < 0:
                self.problem("`$$` at {start} is never closed (the cell ends at {end}); add the "
                             "closing `$$`", m.start(), n)
                self.math(m.end(), n, display=True, region=(m.start(), n))
                return n
            self.math(m.end(), close, display=True, region=(m.start(), close))
            return close + 2
        after = src[m.end():m.end() + 1]
        if not after or after.isspace():
            return None  # "a $ b": a literal dollar sign
        if self.blank_lines is None:  # paragraph ends, found once per text (huge cells stay linear)
            self.blank_lines = [b.start() for b in _BLANK_LINE.finditer(src)]
        k = bisect.bisect_left(self.blank_lines, m.end())
        limit = self.blank_lines[k] if k < len(self.blank_lines) else n
        close_m = _INLINE_CLOSER.search(src, m.end(), limit)
        if close_m is None:
            if after.isdigit():
                return None  # "costs $5": currency
            self.problem("`$` at {start} opens inline math that is never closed in its "
                         "paragraph (which ends at {end}); add the closing `$` or write `\\$` "
                         "for a dollar sign", m.start(), limit)
            self.math(m.end(), limit, display=False, region=(m.start(), limit))
            return limit
        self.math(m.end(), close_m.start(), display=False, region=(m.start(), close_m.start()))
        return close_m.end()

    def math(self, start: int, end: int, *, display: bool,
             region: tuple[int, int] | None = None) -> None:
        """Record math ``[start, end)`` and check its braces, environments and ``\\left``."""
        self.add("math", start, end, display)
        stack: list[tuple[str, str, int]] = []  # (kind, name, offset)
        region_end = region[1] if region else end
        for t in _MATH_TOKEN.finditer(self.src, start, end):
            group = t.lastgroup
            if group == "brace":
                if t.group() == "{":
                    stack.append(("brace", "{", t.start()))
                elif stack and stack[-1][0] == "brace":
                    stack.pop()
                else:
                    self.unexpected_closer(stack, "`}`", t.start())
            elif group == "begin":
                stack.append(("env", t.group("begin").strip(), t.start()))
            elif group == "end":
                name = t.group("end").strip()
                if stack and stack[-1][0] == "env" and stack[-1][1] == name:
                    stack.pop()
                else:
                    self.unexpected_closer(stack, f"`\\end{{{name}}}`", t.start())
            elif group == "lr":
                if t.group("lr") == "left":
                    stack.append(("left", "\\left", t.start()))
                elif stack and stack[-1][0] == "left":
                    stack.pop()
                else:
                    self.unexpected_closer(stack, "`\\right`", t.start())
        for kind, name, at in stack:
            what = "`{`" if kind == "brace" else (
                f"`\\begin{{{name}}}`" if kind == "env" else "`\\left`")
            need = "`}`" if kind == "brace" else (
                f"`\\end{{{name}}}`" if kind == "env" else "`\\right`")
            self.problem(f"{what} at {{start}} is not closed before the math ends at {{end}}; "
                         f"add {need}", at, region_end)

    def unexpected_closer(self, stack: list[tuple[str, str, int]], what: str, at: int) -> None:
        if stack:
            kind, name, open_at = stack.pop()
            opener = "`{`" if kind == "brace" else (
                f"`\\begin{{{name}}}`" if kind == "env" else "`\\left`")
            self.problem(f"{opener} at {{start}} is closed by {what} at {{end}}; balance them",
                         open_at, at)
        else:
            self.problem(f"{what} at {{start}} closes nothing; remove it or add its opening "
                         f"partner", at)


def scan_markdown(source: str) -> ScannedText:
    """Scan markdown cell text into prose / math / code spans and TeX balance problems."""
    return _Scanner(source).run()
