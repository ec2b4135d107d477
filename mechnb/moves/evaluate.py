"""Score the analyser against hand-labelled abstracts: per-move precision/recall, splitting, and
whether a removed gap or validation is reported missing (used by the tests and ``make bench``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import MOVES
from .analyser import analyse


@dataclass
class Scores:
    """Counts for one set of labelled abstracts."""

    tp: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    fp: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    fn: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    sentences: int = 0
    split_errors: list[str] = field(default_factory=list)
    """Abstracts whose sentence count differs from the labelled one."""
    errors: list[tuple[str, str, list[str], list[str]]] = field(default_factory=list)
    """``(abstract id, sentence, expected, got)`` for each sentence labelled wrongly."""
    removal_tries: dict[str, int] = field(default_factory=lambda: {"gap": 0, "validation": 0})
    removal_found: dict[str, int] = field(default_factory=lambda: {"gap": 0, "validation": 0})

    def precision(self, move: str) -> float:
        """TP / (TP + FP); 1.0 when nothing was predicted."""
        n = self.tp[move] + self.fp[move]
        return self.tp[move] / n if n else 1.0

    def recall(self, move: str) -> float:
        """TP / (TP + FN); 1.0 when nothing was expected."""
        n = self.tp[move] + self.fn[move]
        return self.tp[move] / n if n else 1.0

    def f1(self, move: str) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision(move), self.recall(move)
        return 2 * p * r / (p + r) if p + r else 0.0

    def table(self) -> list[dict[str, Any]]:
        """One row per move: support, precision, recall, F1."""
        return [{"move": m, "support": self.tp[m] + self.fn[m],
                 "precision": round(self.precision(m), 3), "recall": round(self.recall(m), 3),
                 "f1": round(self.f1(m), 3)} for m in MOVES]


def joined(abstract: Mapping[str, Any]) -> str:
    """The abstract's text: its sentences joined as a writer would."""
    sep = "" if abstract["lang"] == "zh" else " "
    return sep.join(s["text"] for s in abstract["sentences"])


def _count(scores: Scores, want: Iterable[str], got: Iterable[str]) -> None:
    want, got = set(want), set(got)
    scores.sentences += 1
    for m in MOVES:
        if m in want and m in got:
            scores.tp[m] += 1
        elif m in got:
            scores.fp[m] += 1
        elif m in want:
            scores.fn[m] += 1


def agreement(first: Iterable[Mapping[str, Any]], second: Iterable[Mapping[str, Any]]) -> Scores:
    """How far a second reader's labels (``second``, matched by abstract id and sentence text)
    agree with the first's, counted as if the second were an analyser (F1 is symmetric)."""
    other = {a["id"]: a for a in second}
    scores = Scores()
    for ab in first:
        theirs = other[ab["id"]]["sentences"]
        if [s["text"] for s in theirs] != [s["text"] for s in ab["sentences"]]:
            raise ValueError(f"{ab['id']}: the two readers labelled different sentences")
        for mine, their in zip(ab["sentences"], theirs, strict=True):
            _count(scores, mine["moves"], their["moves"])
    return scores


def evaluate(abstracts: Iterable[Mapping[str, Any]], method: str = "learned") -> Scores:
    """Label every abstract (``analyse(…, method=method)``) and count hits and misses per move."""
    scores = Scores()
    for ab in abstracts:
        lang = ab["lang"]
        result = analyse(joined(ab), lang, method)
        expected = [list(s["moves"]) for s in ab["sentences"]]
        if len(result.sentences) != len(expected):
            scores.split_errors.append(ab["id"])
            continue
        for want, got in zip(expected, result.sentences, strict=True):
            _count(scores, want, got.moves)
            if set(want) != set(got.moves):
                scores.errors.append((ab["id"], got.text, want, list(got.moves)))
        for move in ("gap", "validation"):
            kept = [s for s in ab["sentences"] if move not in s["moves"]]
            if len(kept) == len(ab["sentences"]):
                continue
            scores.removal_tries[move] += 1
            if move in analyse(joined({"lang": lang, "sentences": kept}), lang, method).missing:
                scores.removal_found[move] += 1
    return scores
