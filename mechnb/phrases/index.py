"""Text folding and the precomputed search haystacks (built once, when the library loads).

Folding makes search case- and accent-insensitive: NFKD, combining marks dropped, casefolded,
punctuation turned into spaces, and a space put between Chinese (CJK) and other letters so that
``训练的Transformer`` holds the word ``transformer``. Queries are folded the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

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


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains any CJK character."""
    return not text.isascii() and _CJK_CHAR.search(text) is not None


def haystack(*parts: str, folded: Callable[[str], str] = fold) -> str:
    """Folded ``parts`` joined, with a space on each side (so ``" " + word`` finds word starts)."""
    return " " + " ".join(folded(p) for p in parts if p) + " "


Row = tuple[str, str, Phrase]
"""One phrase in one language selection: folded text, folded text + note/function/id, phrase."""


@dataclass(frozen=True)
class SearchIndex:
    """Haystacks precomputed at load time, grouped so that a query needs no sorting.

    ``ranked[(root, lang)]`` lists the phrases of the subtree ``root`` (``""`` for all) in tie
    order (shorter function first, then id); a query only buckets them by match tier.
    """

    ranked: dict[tuple[str, Lang | None], tuple[Row, ...]] = field(default_factory=dict)
    in_load_order: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    """The phrases of each subtree in library order (the answer to an empty query)."""
    longest: int = 0
    """Length of the longest haystack: a longer query cannot match anything."""


def _roots(function: str) -> list[str]:
    parts = function.split("/")
    return [""] + ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def build_index(phrases: Sequence[Phrase]) -> SearchIndex:
    """Fold every phrase once and group the rows by subtree and language selection."""
    langs: tuple[Lang | None, ...] = (None, *LANGS)
    rows: dict[Lang | None, list[Row]] = {lang: [] for lang in langs}
    folded = lru_cache(maxsize=None)(fold)  # each text is folded once, whatever its uses
    for p in phrases:
        meta = f"{p.function} {p.id}"
        for lang in langs:
            if lang is None:
                text = haystack(p.en, p.zh, folded=folded)
                aux = haystack(p.note_en, p.note_zh, meta, folded=folded)
            else:
                text = haystack(p.text(lang), folded=folded)
                aux = haystack(p.note(lang), meta, folded=folded)
            rows[lang].append((text, text + aux, p))
    members: dict[str, list[int]] = {}
    for n, p in enumerate(phrases):
        for root in _roots(p.function):
            members.setdefault(root, []).append(n)
    ranked: dict[tuple[str, Lang | None], tuple[Row, ...]] = {}
    for root, positions in members.items():
        tie_order = sorted(positions, key=lambda n: (
            phrases[n].depth, len(phrases[n].function), phrases[n].id))
        for lang in langs:
            ranked[(root, lang)] = tuple(rows[lang][n] for n in tie_order)
    in_load_order = {root: tuple(phrases[n] for n in positions)
                     for root, positions in members.items()}
    longest = max((len(full) for lang_rows in rows.values() for _text, full, _p in lang_rows),
                  default=0)
    return SearchIndex(ranked, in_load_order, longest)
