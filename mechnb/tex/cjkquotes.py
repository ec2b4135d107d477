"""Straight quotes next to Chinese text become curly quotes that open and close correctly.

markdown-it's smartquotes only turns ``"`` into “ or ” when a space or punctuation stands on one
side; between Chinese characters (``称为"注意力汇聚"现象``) it leaves the straight quote, which
TeX prints as ” on both sides. This core rule, run after smartquotes, pairs the straight quotes
that touch a CJK character within one paragraph: it opens when no quote is open, and closes the
open one otherwise (curly quotes already there count as opened/closed; an apostrophe ’ that
smartquotes made from a single quote next to Chinese counts as a straight single quote).
"""

from __future__ import annotations

from typing import Any

from ..lazyre import lazy

_CJK = lazy("[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
_QUOTES = lazy("[\"'\u2018\u2019\u201c\u201d]")
_PAIRS = {'"': ("\u201c", "\u201d"), "'": ("\u2018", "\u2019")}


def _touches_cjk(text: str, at: int) -> bool:
    before = text[at - 1] if at > 0 else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    return bool(_CJK.match(before) or _CJK.match(after))


def pair_quotes(text: str, state: dict[str, bool]) -> str:
    """``text`` with straight quotes touching CJK text paired (``state``: which quote is open)."""
    if not _QUOTES.search(text):
        return text
    out = list(text)
    for n, char in enumerate(text):
        if char == "\u2019" and _touches_cjk(text, n):
            char = "'"  # smartquotes made it an apostrophe; next to Chinese it is a quote
        if char in "\u201c\u201d\u2018\u2019":
            kind = '"' if char in "\u201c\u201d" else "'"
            state[kind] = char in "\u201c\u2018"
        elif char in _PAIRS and _touches_cjk(text, n):
            opening, closing = _PAIRS[char]
            out[n] = closing if state.get(char) else opening
            state[char] = not state.get(char)
    return "".join(out)


def cjk_quotes(state: Any) -> None:
    """markdown-it core rule: pair straight quotes next to CJK in every inline token."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        if not _CJK.search(token.content):
            continue
        open_quotes: dict[str, bool] = {}
        for child in token.children:
            if child.type == "text":
                child.content = pair_quotes(child.content, open_quotes)
