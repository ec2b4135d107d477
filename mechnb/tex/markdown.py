"""Reading markdown the way the export reads it: the shared markdown-it parser.

markdown-it-py with mdit-py-plugins' ``dollarmath`` and ``amsmath`` and small inline rules of
this module: LaTeX reference commands (``\\ref``, ``\\eqref``, ``\\cref``, ``\\cite*``,
``\\label``) become ``latex_ref`` tokens, pandoc-style ``[@key]`` citations ``citation``
tokens; ``[`` that cannot start a link and runs of characters no rule uses are text at once
(both keep adversarial input linear). The exporter renders these tokens
(``mechnb.exporter.markdown``); the checker and the TeX gate read them to see exactly what
reaches the ``.tex``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.ruler import RuleOptionsType
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from .cjkquotes import cjk_quotes

REF_COMMANDS = (
    "ref", "eqref", "cref", "Cref", "autoref", "pageref", "nameref", "label",
    "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "citeyearpar",
    "Citep", "Citet", "nocite",
)
"""LaTeX commands passed through from markdown text as written."""

CITE_COMMANDS = frozenset(c for c in REF_COMMANDS if "cite" in c.lower())

_REF_RE = re.compile(
    r"\\(" + "|".join(sorted(REF_COMMANDS, key=len, reverse=True)) + r")(\*?)"
    r"((?:\[[^\[\]\n]*\]){0,2})\{([^{}\n]*)\}")
_CITE_ITEM_RE = re.compile(r"^(.*?)(-?)@([A-Za-z0-9_][\w:.#$%&+?<>~/-]*?)[.,;:]?(?:,\s*(.+))?$",
                           re.S)


def _latex_ref_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "\\":
        return False
    match = _REF_RE.match(state.src, state.pos)
    if not match:
        return False
    if not silent:
        token = state.push("latex_ref", "", 0)
        token.content = match.group(0)
        token.meta = {"command": match.group(1), "keys": match.group(4)}
    state.pos = match.end()
    return True


LINK_TEXT_LIMIT = 2000
"""Longest link text (and bracket span) read as a link; longer ones are plain text."""
_LINK_TEXT_BRACKETS = 16
"""Most ``[`` a link text may contain; more are plain text (markdown-it's link-label search is
quadratic in nested brackets, so a run of ``[`` would take minutes)."""


def _bracket_index(state: StateInline) -> tuple[list[int], list[int]]:
    """Positions of ``[`` and of the ``]`` that could close a link, computed once per text."""
    key = ("mechnb-brackets", id(state.src), len(state.src))
    index = state.env.get(key) if isinstance(state.env, dict) else None
    if index is None:
        src = state.src
        has_refs = bool(state.env.get("references")) if isinstance(state.env, dict) else False
        opens = [m.start() for m in re.finditer(r"\[", src)]
        closes = [m.start() for m in re.finditer(r"\]" if has_refs else r"\](?=[(\[])", src)]
        index = (opens, closes)
        if isinstance(state.env, dict):
            state.env[key] = index
    return index


_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s\[]{1,100}\]")
"""``[^label]``: left to the footnote rule (a bounded label, so a run of ``[^`` stays linear)."""


def _bracket_guard_rule(state: StateInline, silent: bool) -> bool:
    """``[`` / ``![`` that cannot start a link becomes text before markdown-it looks for one."""
    src, pos = state.src, state.pos
    start = pos + 1 if src[pos] == "!" else pos
    if start >= len(src) or src[start] != "[":
        return False
    if src[pos] == "[" and _FOOTNOTE_REF.match(src, pos):
        return False  # a footnote reference [^label]: the footnote rule reads it
    opens, closes = _bracket_index(state)
    k = bisect.bisect_left(closes, start)
    if k < len(closes):
        close = closes[k]
        inner = bisect.bisect_left(opens, close) - bisect.bisect_right(opens, start)
        if close - start <= LINK_TEXT_LIMIT and inner <= _LINK_TEXT_BRACKETS:
            return False  # may be a link: markdown-it decides
    if not silent:
        append = getattr(state, "append_pending", None)  # markdown-it-py ≥ 4.1
        if append is not None:
            append(src[pos:start + 1])  # `pending +=` would copy the whole text each time
        else:  # pragma: no cover - older markdown-it-py
            state.pending += src[pos:start + 1]
    state.pos = start + 1
    return True


_QUIET_RUN_RE = re.compile(r"[#%+\-:=>@^{}]+")
"""Characters markdown-it stops its text rule at but no enabled rule uses: a run of them is
text at once (else every ``^`` of a 500 KB ``^^^…`` is offered to each inline rule in turn)."""


def _quiet_run_rule(state: StateInline, silent: bool) -> bool:
    m = _QUIET_RUN_RE.match(state.src, state.pos, state.posMax)
    if m is None:
        return False
    if not silent:
        append = getattr(state, "append_pending", None)
        if append is not None:
            append(m.group())
        else:  # pragma: no cover - older markdown-it-py
            state.pending += m.group()
    state.pos = m.end()
    return True


def _citation_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "[" or "@" not in src[pos:pos + 200]:
        return False
    end = src.find("]", pos, pos + LINK_TEXT_LIMIT)
    if end < 0 or "[" in src[pos + 1:end] or "\n\n" in src[pos:end]:
        return False
    if end + 1 < len(src) and src[end + 1] in "([":
        return False  # a link or a reference-style link, not a citation
    items = []
    for part in src[pos + 1:end].split(";"):
        m = _CITE_ITEM_RE.match(part.strip())
        if not m or (m.group(1) and not m.group(1).endswith((" ", "\n"))):
            return False
        items.append((m.group(1).strip(), m.group(2) == "-", m.group(3),
                      (m.group(4) or "").strip()))
    if not silent:
        token = state.push("citation", "", 0)
        token.meta = {"items": items}
    state.pos = end + 1
    return True


MATHJAX_BARE_ENVIRONMENTS = (
    "array", "cases", "aligned", "alignedat", "gathered", "split", "smallmatrix", "subarray",
    "multline", "equation", "gather", "align", "alignat", "flalign", "eqnarray", "matrix",
    "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "CD", "darray", "dcases", "rcases",
    "drcases", "matrix*", "pmatrix*", "bmatrix*", "Bmatrix*", "vmatrix*", "Vmatrix*")
"""Environments MathJax 3 typesets where they stand, outside any ``$`` (``processEnvironments``):
a paragraph that starts with one is display math, as JupyterLab shows it."""

_BARE_OPEN_RE = re.compile(r"\\begin\{(" + "|".join(
    re.escape(e) for e in sorted(MATHJAX_BARE_ENVIRONMENTS, key=len, reverse=True))
    + r")(\*?)\}")


def _bare_environment_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A block that starts with ``\\begin{env}`` of ``MATHJAX_BARE_ENVIRONMENTS`` (the ones
    mdit-py-plugins' ``amsmath`` does not take: ``array``, ``cases``, ``aligned`` …) up to its
    ``\\end{env}``: an ``amsmath`` token, rendered as display math."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start] + state.tShift[start]
    m = _BARE_OPEN_RE.match(state.src, begin)
    if m is None:
        return False
    closer = "\\end{" + m.group(1) + m.group(2) + "}"
    found = state.src.find(closer, m.end())
    if found < 0:
        return False
    stop = found + len(closer)
    line = start
    while line < end and state.eMarks[line] < stop:
        line += 1
    if line >= end or state.src[stop:state.eMarks[line]].strip():
        return False  # text after the environment on its last line: leave it to the paragraph
    if silent:
        return True
    state.line = line + 1
    token = state.push("amsmath", "math", 0)
    token.block = True
    token.content = state.src[begin:stop]
    token.map = [start, state.line]
    return True


_DOLLAR_RE = re.compile(r"(?<!\\)\$")


def _inside_inline_math(state: StateBlock, start: int) -> bool:
    """Whether line ``start`` continues a paragraph whose ``$`` are unbalanced so far: the
    environment is inside inline math (``$x =\\n\\begin{pmatrix}…\\end{pmatrix}$``), which
    JupyterLab takes out before markdown, and must not end the paragraph."""
    # The parity of the ``$`` before each line, from its paragraph's first line, is kept per
    # parse (in ``state.env``) and extended line by line: every block rule asks this at every
    # line, so scanning back to the paragraph's start each time made long paragraphs quadratic.
    env = state.env if isinstance(state.env, dict) else {}
    parity: dict[int, bool] = env.setdefault(("mechnb-dollar-parity", id(state.src)), {})
    line = start
    while line > 0 and line not in parity and not state.isEmpty(line - 1):
        line -= 1
    odd = parity.get(line, False) if line > 0 and not state.isEmpty(line - 1) else False
    while line < start:
        text = state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]]
        odd = (odd != (len(_DOLLAR_RE.findall(text)) % 2 == 1)) and not state.isEmpty(line)
        line += 1
        parity[line] = odd
    return odd


def _not_inside_inline_math(rule: Any) -> Any:
    """``rule`` (an environment opened by ``\\begin{`` at the start of its line), except where
    that line continues inline math. markdown-it asks every block rule at every line, and again
    whether each line ends a paragraph, list or quote, so a line that does not open with
    ``\\begin{`` is turned down before anything else is looked at (a cell of 125,000 list
    items: its parse 10 → 8 s)."""
    def guarded(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if not state.src.startswith("\\begin{", state.bMarks[start] + state.tShift[start]):
            return False
        if start > 0 and _inside_inline_math(state, start):
            return False
        return bool(rule(state, start, end, silent))
    return guarded


@cache
def parser() -> MarkdownIt:
    """The shared markdown-it parser (CommonMark + tables, strikethrough, TeX math)."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": True})
    md.enable(["table", "strikethrough", "smartquotes"])
    md.use(dollarmath_plugin, allow_labels=True, allow_space=True, allow_digits=True,
           double_inline=True)
    md.use(amsmath_plugin)
    alt: RuleOptionsType = {"alt": ["paragraph", "reference", "blockquote", "list"]}
    amsmath = md.block.ruler.__rules__[md.block.ruler.__find__("amsmath")].fn
    md.block.ruler.at("amsmath", _not_inside_inline_math(amsmath), alt)
    md.block.ruler.after("amsmath", "bare_environment",
                         _not_inside_inline_math(_bare_environment_rule), alt)
    md.use(footnote_plugin)
    md.inline.ruler.before("escape", "latex_ref", _latex_ref_rule)
    md.inline.ruler.before("link", "citation", _citation_rule)
    md.core.ruler.after("smartquotes", "cjk_quotes", cjk_quotes)
    md.inline.ruler.after("citation", "bracket_guard", _bracket_guard_rule)
    md.inline.ruler.after("text", "quiet_run", _quiet_run_rule)
    return md


def parse(source: str) -> list[Token]:
    """markdown-it tokens of ``source``."""
    return parser().parse(source)


def walk(source: str) -> Iterator[Token]:
    """Every token of ``source``, inline children included, in document order."""
    stack = list(reversed(parse(source)))
    while stack:
        token = stack.pop()
        if token.children:
            stack.extend(reversed(token.children))
        yield token


def block_span(token: Token, line_starts: Sequence[int]) -> tuple[int, int]:
    """``[start, end)`` offsets of the source lines a block token covers (``token.map``);
    ``line_starts`` are the offsets of the source's lines, its length last."""
    assert token.map is not None
    first, last = token.map
    return (line_starts[min(first, len(line_starts) - 1)],
            line_starts[min(last, len(line_starts) - 1)])
