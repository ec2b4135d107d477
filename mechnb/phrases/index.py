"""Text folding and the search index (built once, when the library loads).

Folding makes search case- and accent-insensitive: NFKD, combining marks dropped, casefolded,
punctuation turned into spaces, and a space put between Chinese (CJK) and other letters so that
``训练的Transformer`` holds the word ``transformer``. Queries are folded the same way.

The index maps every word key (:func:`mechnb.phrases.words.key`), every folded word (for prefixes
while typing) and every Chinese character pair to the set of rows holding it, as a bit mask over
the rows in tie order; a query is a handful of mask operations, and only candidate rows are
looked at one by one.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .model import LANGS, Lang, Phrase
from .words import key

_CJK = "\u2e80-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_NON_WORD = re.compile(r"[\W_]+")
_SCRIPT_BOUNDARY = re.compile(
    rf"(?<=[{_CJK}])(?=[^\W{_CJK}])|(?<=[^\W{_CJK}])(?=[{_CJK}])")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
_SHORT_PREFIX = 3
"""Prefixes up to this length have their row masks precomputed (they match many words)."""


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


def surface(word: str) -> str:
    """A folded word as the prefix index stores it (``-ize`` and ``-ise`` typed alike)."""
    return word.replace("iz", "is").replace("yz", "ys") if "z" in word else word


def haystack(*parts: str, folded: Callable[[str], str] = fold) -> str:
    """Folded ``parts`` joined, with a space on each side (so ``" " + word`` finds word starts)."""
    return " " + " ".join(folded(p) for p in parts if p) + " "


def bits(mask: int) -> Iterator[int]:
    """The positions of the set bits of ``mask``, lowest first."""
    if mask.bit_count() < 48:
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low
    else:
        for n, digit in enumerate(reversed(bin(mask))):
            if digit == "1":
                yield n


def _grams(text: str) -> set[str]:
    """The Chinese characters and adjacent character pairs of a folded text."""
    out: set[str] = set()
    for run in text.split():
        if has_cjk(run):
            out.update(run)
            out.update(run[n:n + 2] for n in range(len(run) - 1))
    return out


@dataclass(frozen=True)
class Field:
    """The index of one language selection (``en``, ``zh`` or both)."""

    text: tuple[str, ...]
    """Folded phrase text of each row, space-padded."""
    full: tuple[str, ...]
    """Folded phrase text, usage note, function and id of each row, space-padded."""
    text_keys: tuple[str, ...]
    """Word keys of the phrase text of each row, space-padded (checks for adjacent words)."""
    full_keys: tuple[str, ...]
    text_words: tuple[str, ...]
    """:func:`surface` words of the phrase text of each row, space-padded."""
    full_words: tuple[str, ...]
    keys: dict[str, tuple[int, int]]
    """Word key -> (rows holding it in the phrase text, rows holding it anywhere)."""
    vocabulary: tuple[str, ...]
    """Every surface word, sorted (for prefix ranges)."""
    words: dict[str, tuple[int, int]]
    """Surface word -> (rows in the phrase text, rows anywhere)."""
    short_prefixes: dict[str, tuple[int, int]]
    """Prefix of up to ``_SHORT_PREFIX`` letters -> rows of every word with that prefix."""
    grams: dict[str, int]
    """Chinese character or character pair -> rows holding it anywhere."""

    def prefix(self, typed: str) -> tuple[int, int]:
        """Rows holding a word that starts with ``typed`` (phrase text, anywhere)."""
        if len(typed) <= _SHORT_PREFIX:
            return self.short_prefixes.get(typed, (0, 0))
        text = full = 0
        start = bisect.bisect_left(self.vocabulary, typed)
        for word in self.vocabulary[start:]:
            if not word.startswith(typed):
                break
            t, f = self.words[word]
            text, full = text | t, full | f
        return text, full


def _add(table: dict[str, tuple[int, int]], name: str, bit: int, in_text: bool) -> None:
    text, full = table.get(name, (0, 0))
    table[name] = (text | bit if in_text else text, full | bit)


def _build_field(texts: Sequence[str], auxes: Sequence[str]) -> Field:
    keys: dict[str, tuple[int, int]] = {}
    words: dict[str, tuple[int, int]] = {}
    grams: dict[str, int] = {}
    rows: dict[str, list[str]] = {name: [] for name in (
        "text", "full", "text_keys", "full_keys", "text_words", "full_words")}
    for n, (text, aux) in enumerate(zip(texts, auxes, strict=True)):
        bit = 1 << n
        full = text + aux[1:]
        for part, in_text in ((text, True), (aux, False)):
            for word in part.split():
                _add(keys, key(word), bit, in_text)
                _add(words, surface(word), bit, in_text)
        for gram in _grams(full):
            grams[gram] = grams.get(gram, 0) | bit
        text_words, aux_words = text.split(), aux.split()
        rows["text"].append(text)
        rows["full"].append(full)
        rows["text_keys"].append(" " + " ".join(map(key, text_words)) + " ")
        rows["full_keys"].append(" " + " ".join(map(key, text_words + aux_words)) + " ")
        rows["text_words"].append(" " + " ".join(map(surface, text_words)) + " ")
        rows["full_words"].append(" " + " ".join(map(surface, text_words + aux_words)) + " ")
    short: dict[str, tuple[int, int]] = {}
    for word, (t, f) in words.items():
        for n in range(1, min(len(word), _SHORT_PREFIX) + 1):
            st, sf = short.get(word[:n], (0, 0))
            short[word[:n]] = (st | t, sf | f)
    return Field(**{name: tuple(values) for name, values in rows.items()}, keys=keys,
                 vocabulary=tuple(sorted(words)), words=words, short_prefixes=short,
                 grams=grams)


@dataclass(frozen=True)
class SearchIndex:
    """The rows (every phrase, in tie order) and their index per language selection."""

    rows: tuple[Phrase, ...] = ()
    """Every phrase in tie order: shorter function path first, then id."""
    fields: dict[Lang | None, Field] = field(default_factory=dict)
    roots: dict[str, int] = field(default_factory=dict)
    """Function subtree (``""`` for all) -> mask of its rows."""
    in_load_order: dict[str, tuple[Phrase, ...]] = field(default_factory=dict)
    """The phrases of each subtree in library order (the answer to an empty query)."""
    longest: int = 0
    """Length of the longest folded text: a longer query word cannot match anything."""


def _roots(function: str) -> list[str]:
    parts = function.split("/")
    return [""] + ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def build_index(phrases: Sequence[Phrase]) -> SearchIndex:
    """Fold every phrase once and index it for each language selection."""
    rows = tuple(sorted(phrases, key=lambda p: (p.depth, len(p.function), p.id)))
    folded = lru_cache(maxsize=None)(fold)  # each text is folded once, whatever its uses
    fields: dict[Lang | None, Field] = {}
    for lang in (None, *LANGS):
        texts, auxes = [], []
        for p in rows:
            meta = f"{p.function} {p.id}"
            if lang is None:
                texts.append(haystack(p.en, p.zh, folded=folded))
                auxes.append(haystack(p.note_en, p.note_zh, meta, folded=folded))
            else:
                texts.append(haystack(p.text(lang), folded=folded))
                auxes.append(haystack(p.note(lang), meta, folded=folded))
        fields[lang] = _build_field(texts, auxes)
    roots: dict[str, int] = {}
    for n, p in enumerate(rows):
        for root in _roots(p.function):
            roots[root] = roots.get(root, 0) | (1 << n)
    in_load_order: dict[str, list[Phrase]] = {}
    for p in phrases:
        for root in _roots(p.function):
            in_load_order.setdefault(root, []).append(p)
    longest = max((len(full) for f in fields.values() for full in f.full), default=0)
    return SearchIndex(rows, fields, roots,
                       {root: tuple(ps) for root, ps in in_load_order.items()}, longest)
