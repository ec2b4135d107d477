"""Phrase search: a pure function over the precomputed library index.

Ranking (best first): the whole query as an exact phrase of whole words; every word matching at a
word start; every word matching somewhere. Within a tier a match in the phrase itself beats a match
only in its note, function or id; then shorter function paths come first, then ids.
An empty query (or one of punctuation only) lists every phrase of the filter in library order.
"""

from __future__ import annotations

from dataclasses import dataclass

from .index import Haystack, fold, is_cjk
from .library import Library, load_library
from .model import LANGS, Lang, Phrase

_EXACT, _WORD_START, _SUBSTRING = 0, 1, 2


def normalize_function(function: str | None) -> str:
    """A function filter as a path without surrounding slashes or case (``""`` means all)."""
    return (function or "").strip().strip("/").lower()


def in_subtree(function: str, root: str) -> bool:
    """Whether ``function`` is ``root`` or below it (prefix on ``/`` boundaries)."""
    return not root or function == root or function.startswith(root + "/")


def _rank(hay: Haystack, terms: list[str], phrase: str) -> tuple[int, int] | None:
    """(tier, field) of a match, or ``None``; field 0 means the text alone matched."""
    text = hay.text
    if all(t in text for t in terms):
        field, where = 0, text
    else:
        where = text + hay.aux
        if not all(t in where for t in terms):
            return None
        field = 1
    if (" " + phrase + " ") in where or (is_cjk(phrase[0]) and phrase in where):
        return _EXACT, field
    if all(is_cjk(t[0]) or (" " + t) in where for t in terms):
        return _WORD_START, field
    return _SUBSTRING, field


def search(query: str = "", *, function: str | None = None, lang: Lang | None = None,
           limit: int | None = None, library: Library | None = None) -> list[Phrase]:
    """Phrases matching every word of ``query``, best first (see the module docstring).

    ``function`` keeps one subtree (``introduction/gap``); ``lang`` (``en``/``zh``) matches only
    that language's phrase and note (both when ``None``); ``limit`` caps the number of results.
    """
    lib = library if library is not None else load_library()
    if lang is not None and lang not in LANGS:
        raise ValueError(f"lang must be 'en' or 'zh', not {lang!r}")
    root = normalize_function(function)
    folded = fold(query) if query else ""
    terms = folded.split()
    if limit is not None and limit <= 0:
        return []
    if not terms:
        hits = [e.phrase for e in lib.index if in_subtree(e.phrase.function, root)]
        return hits[:limit] if limit is not None else hits
    phrase = " ".join(terms)
    scored: list[tuple[int, int, int, int, str, Phrase]] = []
    for entry in lib.index:
        p = entry.phrase
        if root and not in_subtree(p.function, root):
            continue
        rank = _rank(entry.by_lang[lang], terms, phrase)
        if rank is not None:
            scored.append((rank[0], rank[1], p.depth, len(p.function), p.id, p))
    scored.sort(key=lambda s: s[:5])
    hits = [s[5] for s in scored]
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
