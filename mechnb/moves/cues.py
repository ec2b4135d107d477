"""The cue lexicon: hand-written rules (``data/moves/cues.json``) plus cues derived from phrases.

Derived cues are word n-grams (English) and character n-grams (Chinese) that recur in the
phrase library's entries for one move and (almost) never in entries for other moves or other
functions (formula, proof, limitations…). Deriving them takes ~35 ms, too much for a check that
runs on every save, so they are stored in ``data/moves/derived.json``; regenerate it after
editing the phrases with ``python -m mechnb.moves.cues`` (a test keeps it in sync).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

DERIVED_WEIGHT = 0.5
"""Score of one derived cue: two distinct ones label a sentence, one only adds evidence."""
MIN_PHRASES = 2
"""A derived n-gram must occur in at least this many phrases of its move …"""
MIN_PURITY = 0.8
"""… and this share of all phrases that contain it must belong to the move."""
_SLOT = re.compile(r"\[[^\[\]]*\]")
_EN_SEGMENT = re.compile(r"[^,;:.()!?\"“”]+")
_EN_WORD = re.compile(r"[a-z][a-z'-]*")
_ZH_RUN = re.compile(r"[\u3400-\u9fff]+")
EN_STOPWORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or",
    "but", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that",
    "these", "those", "which", "who", "what", "when", "where", "how", "why", "whether", "than",
    "then", "there", "their", "they", "them", "we", "our", "us", "one", "two", "each", "every",
    "any", "all", "both", "can", "could", "may", "might", "will", "would", "should", "do", "does",
    "did", "not", "no", "into", "onto", "over", "under", "about", "between", "after", "before",
    "only", "also", "so", "such", "if", "while", "same", "other", "more", "most", "less", "very"))


@dataclass(frozen=True, slots=True)
class CueRule:
    """One hand-written cue: a regular expression that signals a move."""

    move: str
    name: str
    weight: float
    pattern: re.Pattern[str]
    negatable: bool = False
    """Ignored when a negation precedes the match in its clause ("we do not show")."""


@dataclass(frozen=True)
class Lexicon:
    """Everything the analyser matches: rules, derived n-grams, negation, move order."""

    moves: tuple[str, ...]
    """The moves in their usual order."""
    rules: tuple[CueRule, ...]
    derived_en: dict[str, tuple[str, str]]
    """Word n-gram → (move, phrase id it came from)."""
    derived_zh: dict[str, tuple[str, str]]
    """Character n-gram → (move, phrase id)."""
    negation: dict[str, re.Pattern[str]]
    suggest_functions: dict[str, str]
    """Move → phrase-library function whose phrases are suggested when the move is missing."""
    purpose: dict[str, dict[str, str]]
    """Move → what it says, by language (for messages)."""


def _data(name: str) -> Any:
    return json.loads(resources.files("mechnb").joinpath(f"data/{name}")
                      .read_text("utf-8"))


def phrase_records() -> Iterator[dict[str, Any]]:
    """Every record of the phrase files (``data/phrases/*.json``), as stored."""
    folder = resources.files("mechnb").joinpath("data/phrases")
    for item in sorted(folder.iterdir(), key=lambda i: i.name):
        if not item.name.endswith(".json") or item.name == "index.json":
            continue
        try:
            data = json.loads(item.read_text("utf-8"))
        except (OSError, ValueError):
            continue  # the phrase tests report broken files; the analyser just skips them
        for rec in data.get("entries", []) if isinstance(data, dict) else []:
            if isinstance(rec, dict) and isinstance(rec.get("function"), str):
                yield rec


def en_ngrams(text: str, sizes: Iterable[int] = (2, 3)) -> set[str]:
    """Word n-grams of ``text`` within clauses (slots and punctuation break them)."""
    out: set[str] = set()
    for seg in _EN_SEGMENT.findall(_SLOT.sub(",", text.lower())):
        words = _EN_WORD.findall(seg)
        for n in sizes:
            for i in range(len(words) - n + 1):
                gram = words[i:i + n]
                if all(w in EN_STOPWORDS for w in gram) or gram[0] in ("and", "or") \
                        or gram[-1] in EN_STOPWORDS:
                    continue
                out.add(" ".join(gram))
    return out


def zh_ngrams(text: str, sizes: Iterable[int] = (3, 4)) -> set[str]:
    """Character n-grams of the Chinese runs of ``text`` (slots break them)."""
    out: set[str] = set()
    for run in _ZH_RUN.findall(_SLOT.sub("，", text)):
        for n in sizes:
            out.update(run[i:i + n] for i in range(len(run) - n + 1))
    return out


def _move_of(function: str, table: dict[str, list[str]]) -> str | None:
    for move, prefixes in table.items():
        if any(function == p or function.startswith(p + "/") for p in prefixes):
            return move
    return None


def derive(records: Iterable[dict[str, Any]], table: dict[str, list[str]], lang: str
           ) -> dict[str, tuple[str, str]]:
    """N-grams that recur in one move's phrases and (almost) nowhere else."""
    grams = en_ngrams if lang == "en" else zh_ngrams
    per_move: dict[str, Counter[str]] = defaultdict(Counter)
    total: Counter[str] = Counter()
    first: dict[tuple[str, str], str] = {}
    for rec in records:
        text = rec.get(lang)
        if not isinstance(text, str):
            continue
        move = _move_of(rec["function"], table) or "-"
        found = grams(text)
        total.update(found)
        per_move[move].update(found)
        for g in found:
            first.setdefault((move, g), str(rec.get("id", "")))
    out: dict[str, tuple[str, str]] = {}
    for move, counts in per_move.items():
        if move == "-":
            continue
        for g, n in counts.items():
            if n >= MIN_PHRASES and n / total[g] >= MIN_PURITY:
                out[g] = (move, first[(move, g)])
    return out


def derived_cues() -> dict[str, Any]:
    """The content of ``data/moves/derived.json``, computed from the phrase files."""
    table = _data("moves/cues.json")["phrase_functions"]
    records = list(phrase_records())
    return {"about": "Generated by `python -m mechnb.moves.cues` from mechnb/data/phrases; "
                     "n-gram -> [move, first phrase id]. Do not edit by hand.",
            "en": {g: list(v) for g, v in sorted(derive(records, table, "en").items())},
            "zh": {g: list(v) for g, v in sorted(derive(records, table, "zh").items())}}


@cache
def load_lexicon() -> Lexicon:
    """The lexicon, built once per process (~10 ms)."""
    data = _data("moves/cues.json")
    table: dict[str, list[str]] = data["phrase_functions"]
    rules = tuple(CueRule(r["move"], r["name"], float(r["weight"]), re.compile(r["pattern"]),
                          bool(r.get("negatable", False))) for r in data["rules"])
    del table  # used by derived_cues(); the stored result is read here
    derived = _data("moves/derived.json")
    en = {g: (m, i) for g, (m, i) in derived["en"].items()}
    zh = {g: (m, i) for g, (m, i) in derived["zh"].items()}
    return Lexicon(moves=tuple(data["moves"]), rules=rules, derived_en=en, derived_zh=zh,
                   negation={k: re.compile(v) for k, v in data["negation"].items()},
                   suggest_functions=dict(data["suggest_functions"]),
                   purpose=dict(data["purpose"]))


@cache
def _all_records() -> tuple[dict[str, Any], ...]:
    return tuple(phrase_records())


def suggestions(move: str, lang: str, limit: int = 2, function: str | None = None
                ) -> list[dict[str, str]]:
    """Phrases of the library for a missing ``move``: ``[{"id", "text"}]`` in ``lang``.

    ``function`` (a function path or its prefix) overrides the move's usual function.
    """
    function = function or load_lexicon().suggest_functions.get(move)
    if function is None:
        return []
    out: list[dict[str, str]] = []
    for rec in _all_records():
        f = rec["function"]
        if (f == function or f.startswith(function + "/")) and isinstance(rec.get(lang), str):
            out.append({"id": str(rec.get("id", "")), "text": rec[lang]})
            if len(out) >= limit:
                break
    return out

if __name__ == "__main__":  # pragma: no cover - maintenance command
    import sys

    target = resources.files("mechnb").joinpath("data/moves/derived.json")
    text = json.dumps(derived_cues(), ensure_ascii=False, indent=1) + "\n"
    with resources.as_file(target) as path:
        path.write_text(text, encoding="utf-8")
    sys.stderr.write(f"wrote {target}\n")
