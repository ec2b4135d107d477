"""A linear layer over the cue rules: per move, a logistic regression fitted on labelled abstracts.

The hand rules say *why* a sentence might make a move; how much each reason counts, and which
words of real abstracts tip the balance, is learnt from the labelled real abstracts in
``tests/fixtures/moves`` (never from the ``test2`` split that measures it). A sentence's features
are what the rules found (each move's cue score, every hand rule that fired, the moves the rules
made), its words and adjacent word pairs, its place in the abstract, whether it speaks in the
first person, opens with a contrast or holds numbers, and the moves the rules gave the sentence
before it. The weights live
in ``data/moves/weights.json``, written by ``python -m mechnb.moves.train`` (deterministic; a test
keeps the file in sync with the data). Pure Python: a dot product per move and sentence.

Whether a move is *missing* from an abstract is a separate, stricter decision
(``confidently_absent``): no sentence makes it, no cue for it fires in any sentence (nor do the
rules alone make it), and its highest probability over the sentences stays below a low per-move
bound (``absent_below``), picked by cross-validation so that few moves that are present get
reported (MECH060 must not cry wolf). A move in between (no sentence makes it, but one might)
is *unsure* and not reported.

English only: no real Chinese abstracts were labelled, so Chinese text keeps the rule decisions.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import pairwise

WORD = re.compile(r"[a-z][a-z'-]*|\d+")
SCORE_CAP = 3.0
"""A rule score above this adds nothing more (several cues say the same thing)."""
_NUMBER = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class SentenceFacts:
    """What the rule pass knows of one sentence: the inputs of ``features``."""

    norm: str
    """The normalised text (``analyser.normalise``)."""
    raw: str
    """The sentence as written (for ``%``)."""
    hits: tuple[tuple[str, float, str, str], ...]
    """``analyser.rule_hits``: (move, weight, words, rule name)."""
    rule_moves: tuple[str, ...]
    """The moves the rules alone made (position and opening included)."""
    first_person: bool
    contrast: bool


def features(facts: Sequence[SentenceFacts], index: int,
             roles: Sequence[dict[str, float]] | None = None) -> dict[str, float]:
    """The feature vector of sentence ``index`` of an abstract (sparse: name → value);
    ``roles``: each sentence's CSAbstruct role probabilities (``roles.RoleModel``), whose
    values for the sentence and its neighbours are features too."""
    f = facts[index]
    count = len(facts)
    out: dict[str, float] = {"bias": 1.0}
    scores: dict[str, float] = {}
    for move, weight, _, name in f.hits:
        scores[move] = scores.get(move, 0.0) + weight
        if not name.startswith("phrase:"):
            out["r:" + name] = 1.0
    for move, score in scores.items():
        out["s:" + move] = min(score, SCORE_CAP)
    for move in f.rule_moves:
        out["made:" + move] = 1.0
    words = WORD.findall(f.norm)
    for w in words:
        out["w:" + w] = 1.0
    for a, b in pairwise(words):
        out["b:" + a + " " + b] = 1.0
    if words:
        out["first:" + words[0]] = 1.0
    out["pos:first"] = float(index == 0)
    out["pos:second"] = float(index == 1)
    out["pos:last"] = float(index == count - 1)
    out["pos:rel"] = index / (count - 1) if count > 1 else 0.0
    out["first-person"] = float(f.first_person)
    out["contrast"] = float(f.contrast)
    out["number"] = float(bool(_NUMBER.search(f.norm)))
    out["percent"] = float("%" in f.raw or "percent" in f.norm)
    if index > 0:
        for move in facts[index - 1].rule_moves:
            out["prev:" + move] = 1.0
    if roles is not None:
        for prefix, j in (("role:", index), ("role-prev:", index - 1), ("role-next:", index + 1)):
            if 0 <= j < count:
                for role, p in roles[j].items():
                    out[prefix + role] = p
    return {k: v for k, v in out.items() if v}


PRESENCE_ROLES = ("background", "objective", "method", "result", "other")
EVIDENCE_WORDS = frozenset((
    "experiment", "experiments", "experimental", "experimentally", "empirical", "empirically",
    "simulation", "simulations", "validate", "validated", "validates", "validating", "verify",
    "verified", "verifies", "confirm", "confirms", "confirmed", "confirming", "ablation",
    "ablations", "ablating", "evaluate", "evaluation", "evaluations", "benchmark", "benchmarks",
    "dataset", "datasets", "measure", "measured", "observe", "observed", "demonstrate",
    "demonstrates", "demonstrated", "evidence", "results", "accuracy", "outperforms",
    "consistent", "corroborate", "support", "supports", "supporting", "tested", "test"))
"""Words of evidence; how many sentences hold one is a feature of the abstract for
``validation`` (an abstract that no longer reports evidence rarely keeps them)."""


def abstract_features(move: str, probs: Sequence[dict[str, float]],
                      cued: Sequence[Iterable[str]],
                      roles: Sequence[dict[str, float]] | None,
                      feats: Sequence[dict[str, float]] = ()) -> dict[str, float]:
    """What the abstract as a whole says about ``move``: the highest and second-highest
    sentence probability (as log-odds), how many sentences come near it, whether any cue for
    it fires, the strongest and the summed CSAbstruct role probabilities, the length, and
    (from the sentences' features ``feats``) how many sentences hold numbers and, for
    ``validation``, words of evidence outside background (a sentence read as context or gap,
    "recent empirical studies report …", is not the paper's evidence)."""
    ps = sorted((p[move] for p in probs), reverse=True)
    out: dict[str, float] = {"bias": 1.0}
    if ps:
        out["top1"] = _logit(ps[0])
        out["top2"] = _logit(ps[1]) if len(ps) > 1 else -6.0
        out["near"] = float(sum(p >= 0.2 for p in ps))
        out["sum"] = sum(ps)
    out["cued"] = float(sum(move in c for c in cued))
    out["any-cue"] = float(out["cued"] > 0)
    out["inverse-length"] = 1.0 / max(1, len(ps))
    if roles:
        for role in PRESENCE_ROLES:
            values = [r[role] for r in roles]
            out["role-max:" + role] = max(values)
            out["role-sum:" + role] = sum(values)
    if feats:
        out["numbers"] = float(sum(f.get("number", 0.0) > 0 for f in feats))
        if move == "validation":
            hits = [sum(("w:" + w) in f for w in EVIDENCE_WORDS)
                    if max(p["context"], p["gap"]) < 0.5 else 0
                    for f, p in zip(feats, probs, strict=True)]
            out["evidence-sentences"] = float(sum(h > 0 for h in hits))
            out["evidence-most"] = float(max(hits))
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def probability(weights: dict[str, float], feats: dict[str, float]) -> float:
    """The logistic function of the weighted features."""
    z = sum(weights.get(k, 0.0) * v for k, v in feats.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass(frozen=True)
class Model:
    """Per move: weights and the probability from which the move is made."""

    weights: dict[str, dict[str, float]]
    thresholds: dict[str, float]
    lang: str
    absent_below: dict[str, float] = field(default_factory=dict)
    """Per move: when every sentence's probability stays below this (and no cue for the move
    fires), the move is missing. 0 (or absent): the move is never reported missing. With a
    ``presence`` model: the abstract's probability of making the move below which it is
    missing."""
    presence: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per move: weights over ``abstract_features`` (the abstract as a whole makes the move)."""
    uses_roles: bool = False
    """Whether the sentence features include the CSAbstruct role probabilities."""
    present_above: dict[str, float] = field(default_factory=dict)
    """Per move: the sentence probability from which a sentence that makes the move keeps it
    from being reported missing whatever the abstract as a whole says (absent: the move's
    threshold, any sentence that makes it). Above the threshold for ``validation``: a sentence
    read as evidence only weakly leaves the decision to the presence model."""

    def made_for_sure(self, move: str, probs: Sequence[dict[str, float]]) -> bool:
        """Does some sentence (probabilities ``probs``) make ``move`` surely enough that it is
        never reported missing (``present_above``)?"""
        above = self.present_above.get(move, self.thresholds[move])
        return any(p[move] >= max(above, self.thresholds[move]) for p in probs)

    def missing(self, move: str, probs: Sequence[dict[str, float]],
                cued: Sequence[Iterable[str]], roles: Sequence[dict[str, float]] | None,
                feats: Sequence[dict[str, float]] = ()) -> bool:
        """Is ``move`` missing from an abstract (sentences with template slots left out)?
        With a presence model: the abstract as a whole (``abstract_features``) makes it with a
        probability below ``absent_below``."""
        bound = self.absent_below.get(move, 0.0)
        if move in self.presence:
            return self.presence_probability(move, probs, cued, roles, feats) < bound
        return confidently_absent(move, bound, probs, cued)

    def presence_probability(self, move: str, probs: Sequence[dict[str, float]],
                             cued: Sequence[Iterable[str]],
                             roles: Sequence[dict[str, float]] | None,
                             feats: Sequence[dict[str, float]] = ()) -> float:
        """The probability that the abstract as a whole makes ``move`` (presence model)."""
        cued = [tuple(c) for c in cued]
        return probability(self.presence[move], abstract_features(move, probs, cued, roles, feats))

    def probabilities(self, feats: dict[str, float]) -> dict[str, float]:
        """Move → probability that the sentence makes it."""
        return {move: probability(w, feats) for move, w in self.weights.items()}

    def strongest_word(self, move: str, feats: dict[str, float]) -> str | None:
        """The word whose weight pushes the sentence furthest towards ``move`` (for the cue)."""
        w = self.weights[move]
        best = max((k for k in feats if k.startswith("w:") and w.get(k, 0.0) > 0),
                   key=lambda k: (w[k], k), default=None)
        return best[2:] if best else None


def model_from_json(data: dict[str, object]) -> Model:
    """A ``Model`` from the content of ``weights.json``."""
    weights = data["weights"]
    thresholds = data["thresholds"]
    assert isinstance(weights, dict) and isinstance(thresholds, dict)
    absent = data.get("absent_below", {})
    presence = data.get("presence", {})
    above = data.get("present_above", {})
    assert isinstance(absent, dict) and isinstance(presence, dict) and isinstance(above, dict)
    return Model({m: dict(w) for m, w in weights.items()},
                 {m: float(t) for m, t in thresholds.items()}, str(data.get("lang", "en")),
                 {m: float(t) for m, t in absent.items()},
                 {m: dict(w) for m, w in presence.items()}, bool(data.get("uses_roles")),
                 {m: float(t) for m, t in above.items()})


def confidently_absent(move: str, bound: float, probs: Sequence[dict[str, float]],
                       cued: Sequence[Iterable[str]]) -> bool:
    """Is ``move`` missing from an abstract whose sentences have the probabilities ``probs``
    and the cues ``cued`` (per sentence: the moves any cue fires for, or the rules alone
    make)? Only when no sentence has a cue for it and its highest probability is below
    ``bound`` (``Model.absent_below``; sentences with template slots are left out by the
    caller)."""
    if any(move in found for found in cued):
        return False
    return max((p[move] for p in probs), default=0.0) < bound


@cache
def load_model() -> Model | None:
    """The fitted layer, or None when ``weights.json`` is missing (the rules then decide)."""
    target = resources.files("mechnb").joinpath("data/moves/weights.json")
    try:
        data = json.loads(target.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return model_from_json(data)
