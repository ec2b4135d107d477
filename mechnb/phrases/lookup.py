"""Phrase search: a pure function over the precomputed library index.

A query is cut into *units*: a content word (with the function words typed next to it, which
must stand next to it in the phrase too: "we mean" does not match "we report the mean"), an
expression of a synonym group ("remains unclear", "然而"), or a run of Chinese characters
(matched as a substring). A unit matches a phrase through any of its alternatives:

- the word itself, by key: any inflection or British/American spelling (weight 4);
- another member of its synonym group (weight 3);
- for the last word while it is being typed, any word starting with it (weight 2).

A match in the phrase text counts double a match only in its note, function path or id; a phrase
holding the whole query verbatim gets a large bonus, and one holding a part of it as typed (two or
more query words in a row, in the same inflection: "rules out" for "this rules out"; or a run of
the Chinese query, such as 观察到 for 我们观察到) a bonus that grows with that part's length, so
an exact match ranks above a paraphrase. Results are the phrases matching every unit,
by score, then in tie order (shorter function path, then id). When none matches every unit, the
function words are dropped; when still none, the phrases matching the most units are listed
(Chinese runs then also match by character pairs), so a reasonable query always finds something.
An empty query (or one of punctuation only) lists every phrase of the filter in library order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .index import Field, SearchIndex, bits, fold, has_cjk, surface
from .library import Library, load_library
from .model import LANGS, Lang, Phrase
from .words import key, vocabulary

OWN, SYNONYM, PREFIX = 4, 3, 2
"""Weights of the kinds of alternative."""
EXACT_TEXT, EXACT_NOTE = 100, 50
"""Bonus for the whole query verbatim in the phrase text / only in its note or metadata."""
VERBATIM = 12
"""Bonus per query word (Chinese: character) beyond the first of the longest part of the query
found as typed in the phrase text."""
MAX_VERBATIM = 24
"""Chinese queries longer than this many characters are compared on their first ones only."""
MAX_UNITS = 12
"""Words beyond this many add nothing to a phrase search; later ones are ignored."""


def normalize_function(function: str | None) -> str:
    """A function filter as a path without surrounding slashes or case (``""`` means all)."""
    return (function or "").strip().strip("/").lower()


def in_subtree(function: str, root: str) -> bool:
    """Whether ``function`` is ``root`` or below it (prefix on ``/`` boundaries)."""
    return not root or function == root or function.startswith(root + "/")


@dataclass(frozen=True)
class Alternative:
    """One way a unit can match: a sequence of adjacent words, or Chinese text."""

    weight: int
    words: tuple[str, ...] = ()
    """Word keys that must be adjacent, in order (English)."""
    prefix: str = ""
    """The word being typed: matched as a word start after ``words`` (their surface forms)."""
    cjk: str = ""
    """Chinese text matched as a substring."""


Unit = tuple[Alternative, ...]


def _members_at(tokens: list[str], keys: list[str], at: int) -> tuple[int, int] | None:
    """(group, length) of the longest synonym-group member starting at token ``at``."""
    vocab = vocabulary()
    best: tuple[int, int] | None = None
    for group in vocab.by_first.get(keys[at], ()):
        for member in vocab.groups[group]:
            size = len(member)
            if tuple(keys[at:at + size]) == member and (best is None or size > best[1]):
                best = (group, size)
    return best


def _cjk_alternatives(run: str) -> Unit:
    vocab = vocabulary()
    alts = {run: OWN}
    for char in dict.fromkeys(run):
        for group in vocab.by_first.get(char, ()):
            members = [m[0] for m in vocab.groups[group]]
            for member in members:
                if member in run:
                    for other in members:
                        alts.setdefault(run.replace(member, other), SYNONYM)
    return tuple(Alternative(weight, cjk=text) for text, weight in alts.items())


def _units(tokens: list[str], *, strict: bool, typing: bool) -> list[Unit]:
    """The query's units (see the module docstring); ``strict`` keeps function words in place."""
    stop = vocabulary().stopwords
    keys = [key(t) for t in tokens]
    units: list[Unit] = []
    pending: list[str] = []  # function words waiting for the next content word
    last_latin = len(tokens) - 1 if typing and not has_cjk(tokens[-1]) else -1
    at = 0
    only_stopwords = all(t in stop for t in tokens)
    while at < len(tokens):
        token = tokens[at]
        if has_cjk(token):
            units.append(_cjk_alternatives(token))
            at += 1
            continue
        found = _members_at(tokens, keys, at)
        if found is None and token in stop and not only_stopwords:
            if strict:
                pending.append(keys[at])
            at += 1
            continue
        size = found[1] if found else 1
        own = tuple(pending) + tuple(keys[at:at + size])
        alts = [Alternative(OWN, own)]
        if found is not None:
            alts += [Alternative(SYNONYM, tuple(pending) + m)
                     for m in vocabulary().groups[found[0]] if m != own[len(pending):]]
        if at + size - 1 == last_latin:
            lead = tuple(surface(w) for w in [*pending_surface(tokens, at, pending),
                                                *tokens[at:at + size - 1]])
            alts.append(Alternative(PREFIX, lead, prefix=surface(tokens[at + size - 1])))
        units.append(tuple(alts))
        pending = []
        at += size
    if pending and units and not has_cjk(tokens[-1]):
        # trailing function words ("the effect of"): they follow the last content word
        last = units[-1]
        units[-1] = tuple(Alternative(a.weight, a.words + tuple(pending), a.prefix, a.cjk)
                          if not a.prefix and not a.cjk else a for a in last)
    return units[:MAX_UNITS]


def pending_surface(tokens: list[str], at: int, pending: list[str]) -> list[str]:
    """The typed function words just before token ``at`` (as typed, for prefix matching)."""
    return tokens[at - len(pending):at] if pending else []


def _verify(mask: int, rows: tuple[str, ...], needle: str) -> int:
    out = 0
    for n in bits(mask):
        if needle in rows[n]:
            out |= 1 << n
    return out


def _alternative_masks(f: Field, alt: Alternative, scope: int) -> tuple[int, int]:
    """(rows matching ``alt`` in the phrase text, rows matching it anywhere), within ``scope``."""
    if alt.cjk:
        cand = scope
        grams = [alt.cjk] if len(alt.cjk) == 1 else [
            alt.cjk[n:n + 2] for n in range(len(alt.cjk) - 1)]
        for gram in grams:
            cand &= f.grams.get(gram, 0)
            if not cand:
                return 0, 0
        full = _verify(cand, f.full, alt.cjk)
        return _verify(full, f.text, alt.cjk), full
    if alt.prefix:
        text, full = f.prefix(alt.prefix)
        full &= scope
        if alt.words and full:
            for word in alt.words:
                full &= f.words.get(word, (0, 0))[1]
            needle = " " + " ".join(alt.words) + " " + alt.prefix
            full = _verify(full, f.full_words, needle)
            return _verify(full & text, f.text_words, needle), full
        return text & full, full
    text = full = scope
    for word in alt.words:
        t, fl = f.keys.get(word, (0, 0))
        text, full = text & t, full & fl
        if not full:
            return 0, 0
    if len(alt.words) > 1:
        needle = " " + " ".join(alt.words) + " "
        full = _verify(full, f.full_keys, needle)
        text = _verify(full & text, f.text_keys, needle)
    return text, full


@dataclass
class _Scored:
    """The rows each unit matches, and the masks of each value a unit gives, best first."""

    masks: list[int]
    layers: list[list[tuple[int, int]]]

    def values(self, unit: int) -> dict[int, int]:
        """Each row's best value for ``unit``."""
        best: dict[int, int] = {}
        for value, mask in self.layers[unit]:
            for n in bits(mask):
                best.setdefault(n, value)
        return best


def _score_units(f: Field, units: list[Unit], scope: int) -> _Scored:
    masks, all_layers = [], []
    for unit in units:
        layers: list[tuple[int, int]] = []
        union = 0
        for alt in unit:
            text, full = _alternative_masks(f, alt, scope)
            if full:
                layers += [(alt.weight * 2, text), (alt.weight, full)]
                union |= full
        masks.append(union)
        all_layers.append(sorted(layers, key=lambda layer: -layer[0]))
    return _Scored(masks, all_layers)


def _ranked_one(f: Field, hits: int, layers: list[tuple[int, int]], token: str) -> list[int]:
    """The ranking of a one-word query by masks alone (typing one word is the common case)."""
    text, full = f.words.get(surface(token), (0, 0))
    out: list[int] = []
    for tier in (hits & text, hits & full & ~text, hits & ~full):
        seen = 0
        for _value, mask in layers:
            fresh = mask & tier & ~seen
            if fresh:
                out += bits(fresh)
                seen |= fresh
    return out


def verbatim_run(text: str, tokens: list[str]) -> int:
    """How many query words in a row (a Chinese token: characters in a row) ``text`` holds as
    typed, at most; ``text`` is folded and space-padded, ``tokens`` are folded query words."""
    best = 0
    latin = [t for t in tokens if not has_cjk(t)]
    for start in range(len(latin)):
        for end in range(len(latin), start + best, -1):
            if " " + " ".join(latin[start:end]) + " " in text:
                best = end - start
                break
    for token in tokens:
        if not has_cjk(token):
            continue
        run = token[:MAX_VERBATIM]
        for size in range(len(run), best, -1):
            if any(run[at:at + size] in text for at in range(len(run) - size + 1)):
                best = size
                break
    return best


def _ranked(f: Field, rows: Iterable[int], scored: _Scored, exact: str, tokens: list[str],
            counts: dict[int, int] | None = None) -> list[int]:
    values = [scored.values(u) for u in range(len(scored.masks))]
    score: dict[int, int] = {}
    run: dict[int, int] = {}
    for n in rows:
        total = sum(v.get(n, 0) for v in values)
        if exact:
            if exact in f.text[n]:
                total += EXACT_TEXT
            elif exact in f.full[n]:
                total += EXACT_NOTE
        run[n] = verbatim_run(f.text[n], tokens)
        score[n] = total + VERBATIM * max(run[n] - 1, 0)
    if counts is None:
        return sorted(score, key=lambda n: (-score[n], n))
    # the fallback (no phrase matches every unit): the longest part of the query as typed first
    return sorted(score, key=lambda n: (-run[n], -counts[n], -score[n], n))


def _all_of(masks: list[int], scope: int) -> int:
    out = scope
    for m in masks:
        out &= m
    return out


def _match(index: SearchIndex, f: Field, tokens: list[str], scope: int, typing: bool,
           exact: str) -> list[int]:
    """Row numbers of the answer, best first (the tiers of the module docstring)."""
    for strict in (True, False):
        units = _units(tokens, strict=strict, typing=typing)
        if not units:
            continue
        scored = _score_units(f, units, scope)
        hits = _all_of(scored.masks, scope)
        if hits and len(tokens) == 1 and not has_cjk(tokens[0]):
            return _ranked_one(f, hits, scored.layers[0], tokens[0])
        if hits:
            return _ranked(f, bits(hits), scored, exact, tokens)
        if not strict:
            break
    # fallback: the phrases matching the most units; Chinese runs also by character pairs
    loose = [t for t in tokens if not has_cjk(t) or len(t) < 3]
    loose += [t[n:n + 2] for t in tokens if has_cjk(t) and len(t) >= 3
              for n in range(len(t) - 1)]
    units = _units(loose, strict=False, typing=typing) if loose else []
    scored = _score_units(f, units, scope)
    counts: dict[int, int] = {}
    for mask in scored.masks:
        for n in bits(mask):
            counts[n] = counts.get(n, 0) + 1
    return _ranked(f, counts, scored, exact, tokens, counts)


def search(query: str = "", *, function: str | None = None, lang: Lang | None = None,
           limit: int | None = None, library: Library | None = None) -> list[Phrase]:
    """Phrases matching ``query``, best first (see the module docstring).

    ``function`` keeps one subtree (``introduction/gap``); ``lang`` (``en``/``zh``) matches only
    that language's phrase and note (both when ``None``); ``limit`` caps the number of results.
    """
    lib = library if library is not None else load_library()
    if lang is not None and lang not in LANGS:
        raise ValueError(f"lang must be 'en' or 'zh', not {lang!r}")
    if limit is not None and limit <= 0:
        return []
    root = normalize_function(function)
    folded = fold(query) if query else ""
    tokens = list(dict.fromkeys(folded.split()))  # a repeated word adds nothing
    index = lib.index
    if not tokens:
        hits = list(index.in_load_order.get(root, ()))
    elif max(map(len, tokens)) > index.longest or root not in index.roots:
        hits = []  # a word longer than any text cannot match; nor can an unknown subtree
    else:
        typing = not query[-1:].isspace()
        joined = "".join(tokens) if all(has_cjk(t) for t in tokens) else " ".join(tokens)
        exact = joined if has_cjk(joined) and " " not in joined else f" {joined} "
        rows = _match(index, index.fields[lang], tokens, index.roots[root], typing, exact)
        hits = [index.rows[n] for n in (rows[:limit] if limit is not None else rows)]
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
