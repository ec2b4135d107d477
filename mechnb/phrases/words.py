"""Word keys for phrase search: spelling variants, a light stemmer, function words and synonyms.

A *key* is what two spellings of one word have in common: ``characterise``, ``characterize``,
``characterization`` and ``characterizing`` all have the key ``character``; ``hypothesis`` and
``hypothesized`` share ``hypothes``. Keys are only compared with keys, never shown, so the
stemmer may cut words to odd roots as long as it cuts related words to the same one.

The synonym groups and the British/American table are data (``data/search_words.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

# Suffix -> what replaces it; the longest suffix that leaves a stem of four letters wins.
# Keys are compared after "iz" -> "is", so the "is..." rules cover -ize and -ise alike.
_RULES = {
    "isations": "", "isation": "", "isingly": "", "ising": "", "ised": "", "ises": "",
    "ise": "", "isers": "", "iser": "", "is": "", "ifications": "ify", "ification": "ify",
    "ications": "", "ication": "", "ations": "",
    "ation": "", "itions": "", "ition": "", "ions": "", "ion": "", "ically": "", "ical": "",
    "ingly": "", "ings": "", "ing": "", "edly": "", "ed": "", "ities": "", "ity": "",
    "ments": "", "ment": "", "ness": "", "ively": "", "ive": "", "ably": "abl", "ibly": "ibl",
    "able": "abl", "ible": "ibl", "ies": "y", "ied": "y", "ers": "", "er": "", "ors": "",
    "or": "", "ous": "", "ic": "", "al": "", "ly": "", "es": "", "e": "", "s": "",
}
_SUFFIXES = sorted(_RULES.items(), key=lambda item: -len(item[0]))
_DOUBLE_END = re.compile(r"([b-df-hj-np-tv-z])\1$")  # "modell" -> "model", "controll" -> "control"


_ISE = re.compile(
    r"(?<=[a-z]{3})is(e|ed|es|ing|ation|ations|ational|er|ers|able|ably|ability)$")
_NOT_ISE = frozenset({
    "prec", "conc", "exerc", "expert", "prem", "prom", "comprom", "surpr", "adv", "dev", "rev",
    "superv", "telev", "improv", "compr", "enterpr", "franch", "merchand", "disgu", "chast",
    "desp", "circumc", "inc", "exc", "parad", "dem", "poo", "appr", "ar", "upr", "mais",
    "pra", "appra", "bru", "cru", "bra", "turquo", "porpo", "torto", "mort", "treat", "val",
    "repr", "equipo", "chem", "advert", "sunr", "deno",
})
"""Stems whose ``-ise`` is not the British ``-ize`` (precise, surprise, advise, revise…)."""


def canonical(word: str) -> str:
    """``word`` in American spelling (the table, then -ise -> -ize and -yse -> -yze)."""
    table = spelling_table()
    if word in table:
        return table[word]
    for prefix in _PREFIXES:
        if word.startswith(prefix):
            rest = word[len(prefix):]
            if rest in table:
                return prefix + table[rest]
            for stem in _our_stems():
                if rest.startswith(stem):
                    return prefix + stem[:-2] + "r" + rest[len(stem):]
    if len(word) > 5 and "s" in word:
        found = _ISE.search(word)
        if found and word[:found.start()] not in _NOT_ISE and not word.endswith("wise"):
            word = word[:found.start()] + "iz" + found.group(1)
        word = re.sub(r"ys(e|ed|es|ing)$", r"yz\1", word)
    return word


_PREFIXES = ("", "un", "re", "mis", "dis", "non")
"""Prefixes before a British word that keep it British (unlabelled, disfavour)."""
_LETTERS = re.compile(r"[A-Za-z]+")


def british_spellings(text: str) -> list[str]:
    """The words of ``text`` spelled the British way (the project writes American English)."""
    return [w for w in _LETTERS.findall(text) if canonical(w.lower()) != w.lower()]


_IZE = re.compile(
    r"(?<=[a-z]{3})iz(e|ed|es|ing|ation|ations|ational|er|ers|able|ably|ability)$")


def overcorrected_spellings(text: str) -> list[str]:
    """The words of ``text`` spelled ``-ize`` that are ``-ise`` in every English (precise)."""
    found = []
    for w in _LETTERS.findall(text):
        lower = w.lower()
        end = _IZE.search(lower) if len(lower) > 5 else None
        if end and canonical(lower[:end.start()] + "is" + end.group(1)) != lower:
            found.append(w)
    return found


@cache
def key(word: str) -> str:
    """The search key of one folded word: American spelling, then inflections cut off."""
    if not word.isascii() or not word.isalpha():
        return word
    stem = canonical(word)
    if len(stem) <= 3:
        return stem
    stem = stem.replace("yz", "ys").replace("iz", "is")  # analyze/analysis, hypothesize/-sis
    for suffix, replacement in _SUFFIXES:
        if stem.endswith(suffix) and len(stem) - len(suffix) + len(replacement) >= 4:
            stem = stem[: -len(suffix)] + replacement
            break
    if len(stem) > 4:
        stem = _DOUBLE_END.sub(r"\1", stem)
    return stem


@dataclass(frozen=True)
class Vocabulary:
    """Function words, synonym groups and spelling variants (from ``search_words.json``)."""

    stopwords: frozenset[str]
    """Words that only count in place, next to the query word they belong to."""
    groups: tuple[tuple[tuple[str, ...], ...], ...]
    """Each group: its members as key sequences (English) or character strings (Chinese)."""
    by_first: dict[str, tuple[int, ...]]
    """First key (or first Chinese character) of a member -> the groups holding such a member."""


@cache
def _data() -> dict[str, object]:
    text = resources.files("mechnb").joinpath("data/search_words.json").read_text("utf-8")
    raw: dict[str, object] = json.loads(text)
    return raw


@cache
def spelling_table() -> dict[str, str]:
    """British spelling -> American spelling, for words the ``-ise`` rule does not cover."""
    raw = _data().get("british_american", {})
    doubled = _data().get("british_doubled_l", [])
    assert isinstance(raw, dict) and isinstance(doubled, list)
    table = {f"{base}l{end}": f"{base}{end}" for base in map(str, doubled)
             for end in ("ed", "ing", "er", "ers")}
    table.update((str(k), str(v)) for k, v in raw.items())
    return table


@cache
def _our_stems() -> tuple[str, ...]:
    """Stems spelled ``-our`` in British English; any word starting with one is British."""
    raw = _data().get("british_our", [])
    assert isinstance(raw, list)
    return tuple(str(w) for w in raw)


def _member(text: str) -> tuple[str, ...]:
    from .index import fold, has_cjk

    folded = fold(text)
    if has_cjk(folded):
        return (folded.replace(" ", ""),)
    return tuple(key(w) for w in folded.split())


@cache
def vocabulary() -> Vocabulary:
    """The search vocabulary, read once per process."""
    raw = _data()
    stop = raw.get("stopwords", [])
    groups_raw = raw.get("synonyms", [])
    assert isinstance(stop, list) and isinstance(groups_raw, list)
    groups = tuple(tuple(dict.fromkeys(m for m in map(_member, group) if m))
                   for group in groups_raw)
    by_first: dict[str, list[int]] = {}
    for n, group in enumerate(groups):
        for member in group:
            first = member[0][0] if len(member) == 1 and not member[0].isascii() else member[0]
            if n not in by_first.setdefault(first, []):
                by_first[first].append(n)
    return Vocabulary(frozenset(str(w) for w in stop), groups,
                      {k: tuple(v) for k, v in by_first.items()})
