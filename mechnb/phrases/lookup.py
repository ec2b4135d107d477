"""Phrase search: a pure function over the precomputed library index.

Ranking (best first): the whole query as an exact phrase of whole words; every word matching at a
word start; every word matching somewhere. Within a tier a match in the phrase itself beats a match
only in its note, function or id; then shorter function paths come first, then ids.
An empty query (or one of punctuation only) lists every phrase of the filter in library order.
"""

from __future__ import annotations

from dataclasses import dataclass

from .index import Row, fold, is_cjk
from .library import Library, load_library
from .model import LANGS, Lang, Phrase


def normalize_function(function: str | None) -> str:
    """A function filter as a path without surrounding slashes or case (``""`` means all)."""
    return (function or "").strip().strip("/").lower()


def in_subtree(function: str, root: str) -> bool:
    """Whether ``function`` is ``root`` or below it (prefix on ``/`` boundaries)."""
    return not root or function == root or function.startswith(root + "/")


def _bucket_one_term(rows: tuple[Row, ...], term: str, joined: str) -> list[list[Phrase]]:
    """Matches of a single word (the common case while typing), by ``tier * 2 + field``."""
    buckets: list[list[Phrase]] = [[], [], [], [], [], []]
    exact, start, cjk = f" {joined} ", f" {term}", is_cjk(term[0])
    for text, full, phrase in rows:
        if term in text:
            where, field = text, 0
        elif term in full:
            where, field = full, 1
        else:
            continue
        tier = 0 if (cjk and joined in where) or exact in where else 1 if start in where else 2
        buckets[tier * 2 + field].append(phrase)
    return buckets


def _bucket_terms(rows: tuple[Row, ...], terms: list[str], joined: str) -> list[list[Phrase]]:
    """Matches of several words (all must occur), by ``tier * 2 + field``."""
    buckets: list[list[Phrase]] = [[], [], [], [], [], []]
    exact = f" {joined} "
    cjk_phrase = is_cjk(joined[0])
    starts = [f" {t}" for t in terms if not is_cjk(t[0])]
    for text, full, phrase in rows:
        if all(t in text for t in terms):
            where, field = text, 0
        elif all(t in full for t in terms):
            where, field = full, 1
        else:
            continue
        if exact in where or (cjk_phrase and joined in where):
            tier = 0
        elif all(s in where for s in starts):
            tier = 1
        else:
            tier = 2
        buckets[tier * 2 + field].append(phrase)
    return buckets


def search(query: str = "", *, function: str | None = None, lang: Lang | None = None,
           limit: int | None = None, library: Library | None = None) -> list[Phrase]:
    """Phrases matching every word of ``query``, best first (see the module docstring).

    ``function`` keeps one subtree (``introduction/gap``); ``lang`` (``en``/``zh``) matches only
    that language's phrase and note (both when ``None``); ``limit`` caps the number of results.
    """
    lib = library if library is not None else load_library()
    if lang is not None and lang not in LANGS:
        raise ValueError(f"lang must be 'en' or 'zh', not {lang!r}")
    if limit is not None and limit <= 0:
        return []
    root = normalize_function(function)
    terms = fold(query).split() if query else []
    if not terms:
        hits = list(lib.index.in_load_order.get(root, ()))
    elif max(map(len, terms)) > lib.index.longest:
        hits = []  # a word longer than any haystack: nothing can match, skip the scan
    else:
        terms = list(dict.fromkeys(terms))  # a repeated word adds nothing
        joined = " ".join(terms)
        rows = lib.index.ranked.get((root, lang), ())
        # rows come in tie order (shorter function, then id), so buckets need no sorting
        buckets = (_bucket_one_term(rows, terms[0], joined) if len(terms) == 1
                   else _bucket_terms(rows, terms, joined))
        hits = [p for bucket in buckets for p in bucket]
    return hits[:limit] if limit is not None else hits


@dataclass(frozen=True, slots=True)
class FunctionNode:
    """One node of the function tree (``introduction/gap``) and how many phrases sit below it."""

    path: str
    depth: int
    """0 for a top-level function (``introduction``)."""
    count: int
    """Phrases whose function is this path or below it."""

    @property
    def name(self) -> str:
        """The last segment of the path (``gap``)."""
        return self.path.rsplit("/", 1)[-1]


def functions(library: Library | None = None) -> list[FunctionNode]:
    """Every function path and its ancestors, in tree order (parents first, library order)."""
    lib = library if library is not None else load_library()
    counts: dict[str, int] = {}
    for p in lib.phrases:
        parts = p.function.split("/")
        for n in range(1, len(parts) + 1):
            path = "/".join(parts[:n])
            counts[path] = counts.get(path, 0) + 1
    # dicts keep first-seen order, so a parent is always listed before its children; group
    # each node's children under it by a depth-first walk.
    children: dict[str, list[str]] = {}
    for path in counts:
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        children.setdefault(parent, []).append(path)
    nodes: list[FunctionNode] = []
    stack = list(reversed(children.get("", [])))
    while stack:
        path = stack.pop()
        nodes.append(FunctionNode(path, path.count("/"), counts[path]))
        stack.extend(reversed(children.get(path, [])))
    return nodes
