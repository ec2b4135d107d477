"""Score the analyser against hand-labelled abstracts (used by the tests and ``make bench``):
per-move precision/recall of the sentence labels (``evaluate``), and what MECH060 would report
(``missing_counts``): the share of the moves present in complete abstracts that are reported
missing (false alarms), and how often a move is reported once every sentence that makes it is
deleted (detection)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
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


@dataclass
class MissingCounts:
    """What the missing-move warning (MECH060) does on labelled abstracts, per move: how many
    complete abstracts make it (``present``) and how many of those report it missing
    (``false_alarms``); how many abstracts had it deleted (``removed``: every sentence labelled
    with it taken out, some sentence left) and how many of those report it (``found``)."""

    present: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    false_alarms: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    removed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))
    found: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MOVES, 0))

    def false_alarm_rate(self, moves: Iterable[str] = MOVES) -> float:
        """Present moves reported missing / present moves (over ``moves``); 0.0 when none."""
        moves = tuple(moves)
        n = sum(self.present[m] for m in moves)
        return sum(self.false_alarms[m] for m in moves) / n if n else 0.0

    def detection_rate(self, move: str) -> float:
        """Deleted ``move`` reported missing / abstracts it was deleted from; 0.0 when none."""
        n = self.removed[move]
        return self.found[move] / n if n else 0.0

    def add(self, other: MissingCounts) -> MissingCounts:
        """The sum of two counts (a new object)."""
        return MissingCounts(*({m: getattr(self, f)[m] + getattr(other, f)[m] for m in MOVES}
                               for f in ("present", "false_alarms", "removed", "found")))

    def to_json(self) -> dict[str, dict[str, int]]:
        """``{"present", "false_alarms", "removed", "found"}``, each move → count."""
        return {"present": dict(self.present), "false_alarms": dict(self.false_alarms),
                "removed": dict(self.removed), "found": dict(self.found)}

    @classmethod
    def from_json(cls, data: Mapping[str, Mapping[str, int]]) -> MissingCounts:
        """The inverse of ``to_json``."""
        return cls(*({m: int(data[f].get(m, 0)) for m in MOVES}
                     for f in ("present", "false_alarms", "removed", "found")))


def deletions(abstract: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(move, copy)`` for each move the abstract makes: the abstract without every sentence
    labelled with that move (when some sentence is left)."""
    sentences = abstract["sentences"]
    for move in MOVES:
        kept = [s for s in sentences if move not in s["moves"]]
        if kept and len(kept) < len(sentences):
            yield move, {**abstract, "sentences": kept}


def missing_counts(abstracts: Iterable[Mapping[str, Any]], method: str = "learned"
                   ) -> MissingCounts:
    """Run the analyser (``analyse(…, method=method)``, the decision MECH060 reports) on each
    complete abstract and on each of its ``deletions``, and count false alarms and
    detections."""
    counts = MissingCounts()
    for ab in abstracts:
        lang = ab["lang"]
        reported = analyse(joined(ab), lang, method).missing
        for move in {m for s in ab["sentences"] for m in s["moves"]}:
            counts.present[move] += 1
            counts.false_alarms[move] += move in reported
        for move, copy in deletions(ab):
            counts.removed[move] += 1
            counts.found[move] += reported_missing(copy, move, method)
    return counts


def reported_missing(abstract: Mapping[str, Any], move: str, method: str = "learned") -> bool:
    """Whether ``analyse`` (MECH060's decision) reports ``move`` missing from ``abstract``."""
    return move in analyse(joined(abstract), abstract["lang"], method).missing


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
    return scores


CURVE_BOUNDS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7)
"""Bounds at which ``tradeoff`` reports detection and false alarms."""


def tradeoff(abstracts: Iterable[Mapping[str, Any]], moves: Iterable[str] = ("gap", "validation"),
             bounds: Iterable[float] = CURVE_BOUNDS
             ) -> list[tuple[str, float, int, int, int, int]]:
    """The trade-off between false "missing" and detection if a move's bound were ``bound``:
    ``(move, bound, present moves reported, present moves, deleted moves found, deletions)``.
    A move counts as reported when no sentence makes it and the abstract's probability of
    making it (``Analysis.presence``, the learned layer) is below the bound."""
    moves = tuple(moves)
    scores: dict[str, tuple[list[float], list[float]]] = {m: ([], []) for m in moves}
    for ab in abstracts:
        whole = analyse(joined(ab), ab["lang"])
        for move in {m for s in ab["sentences"] for m in s["moves"]} & set(moves):
            scores[move][0].append(whole.presence.get(move, 1.0))
        for move, copy in deletions(ab):
            if move in moves:
                scores[move][1].append(analyse(joined(copy), ab["lang"]).presence.get(move, 1.0))
    return [(m, b, sum(p < b for p in scores[m][0]), len(scores[m][0]),
             sum(p < b for p in scores[m][1]), len(scores[m][1]))
            for m in moves for b in bounds]


VERDICTS = ("no", "unsure", "yes")
"""A second reader's answers to "does this text make the move?" (``deletion_reader.json``)."""


def reader_counts(items: Iterable[Mapping[str, Any]],
                  reported: Callable[[Mapping[str, Any]], bool]) -> dict[str, dict[str, list[int]]]:
    """Per deleted move, per answer of a second reader to "does the text still make it?":
    ``[copies reported missing, copies]``. ``items`` are ``deletion_reader.json``'s (the
    complete controls are left out); ``reported(item)`` says whether MECH060 reports the
    deleted move of that item's copy. A report where the reader says "yes" is a false
    "missing" by that reading; where the reader says "no", the move really is gone."""
    out: dict[str, dict[str, list[int]]] = {}
    for item in items:
        move = item["deleted"]
        if move is None:
            continue
        cell = out.setdefault(move, {v: [0, 0] for v in VERDICTS})[item[move]]
        cell[0] += reported(item)
        cell[1] += 1
    return out


def deleted_copy(abstract: Mapping[str, Any], move: str) -> dict[str, Any]:
    """``abstract`` without every sentence that makes ``move`` (as ``deletions``)."""
    return next(copy for m, copy in deletions(abstract) if m == move)


def first_labels(abstract: Mapping[str, Any]) -> dict[str, Any]:
    """``abstract`` as its first labels had it, before the blind second pass over validation
    (``validation_second_pass.json``) added the move to the sentences in its
    ``validation_added``: what ``deletion_reader.json``'s copies were made from."""
    added = set(abstract.get("validation_added", ()))
    return {**abstract, "sentences": [
        {**s, "moves": [m for m in s["moves"] if not (i in added and m == "validation")]}
        for i, s in enumerate(abstract["sentences"])]}
