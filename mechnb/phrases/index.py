"""Text folding and the precomputed search haystacks (built once, when the library loads).

Folding makes search case- and accent-insensitive: NFKD, combining marks dropped, casefolded,
punctuation turned into spaces, and a space put between Chinese (CJK) and other letters so that
``训练的Transformer`` holds the word ``transformer``. Queries are folded the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .model import LANGS, Lang, Phrase

_CJK = "\u2e80-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_NON_WORD = re.compile(r"[\W_]+")
_SCRIPT_BOUNDARY = re.compile(
    rf"(?<=[{_CJK}])(?=[^\W{_CJK}])|(?<=[^\W{_CJK}])(?=[{_CJK}])")
_CJK_CHAR = re.compile(rf"[{_CJK}]")


def fold(text: str) -> str:
    """``text`` folded for matching: no accents, no case, punctuation as single spaces."""
    decomposed = unicodedata.normalize("NFKD", text)
    if not decomposed.isascii():
        decomposed = "".join(c for c in decomposed if not unicodedata.combining(c))
    spaced = _NON_WORD.sub(" ", decomposed.casefold())
    if not spaced.isascii():
        spaced = _SCRIPT_BOUNDARY.sub(" ", spaced)
    return spaced.strip()


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a Chinese/Japanese/Korean ideograph or related script character."""
    return bool(_CJK_CHAR.match(char))


def haystack(*parts: str) -> str:
    """Folded ``parts`` joined, with a space on each side (so ``" " + word`` finds word starts)."""
    return " " + " ".join(fold(p) for p in parts if p) + " "


@dataclass(frozen=True, slots=True)
class Haystack:
    """The folded text of one phrase in one language selection."""

    text: str
    """Folded phrase text (both languages when no language is selected)."""
    aux: str
    """Folded note, function path and id: a match here ranks below a match in the text."""


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """A phrase with its haystacks per language selection (``None`` means both languages)."""

    phrase: Phrase
    order: int
    """Position in load order (the order of an empty query)."""
    by_lang: dict[Lang | None, Haystack]


def build_index(phrases: Sequence[Phrase]) -> tuple[IndexEntry, ...]:
    """Precompute the haystacks of every phrase."""
    entries = []
    for order, p in enumerate(phrases):
        meta = f"{p.function} {p.id}"
        by_lang: dict[Lang | None, Haystack] = {
            lang: Haystack(haystack(p.text(lang)), haystack(p.note(lang), meta)) for lang in LANGS
        }
        by_lang[None] = Haystack(haystack(p.en, p.zh), haystack(p.note_en, p.note_zh, meta))
        entries.append(IndexEntry(p, order, by_lang))
    return tuple(entries)
