"""Sentence roles read the way CSAbstruct labels them: background, objective, method, result,
other — a second opinion for the learned move layer, fitted on 11,000 sentences of real
computer-science abstracts instead of the few hundred labelled with moves.

``python -m mechnb.moves.train_roles`` fits a multinomial logistic regression (scikit-learn,
a dev dependency only) on ``CSAbstruct``'s train split over the features below and writes its
weights to ``data/moves/roles.json``; this module reads them and scores in pure Python (a dot
product per role and sentence; no numpy). The weights are loaded on first use only — the moves
rule is the only reader — so ``%load_ext`` and checks that do not read an abstract never pay
for them.

Features of a sentence (binary): its words and word pairs, its relative position in the
abstract (five bins, first, last), and the words of the sentences before and after it (the
context that tells a method sentence from a result sentence).

How the roles relate to the moves (the mapping the move layer is trained with, see
``docs/guide/moves.md``): *background* is what context and gap sentences are written as (a gap
is background that says what is missing); *objective* is the contribution ("we study …");
*method* is the contribution's how and, in a mechanism paper, part of the mechanism; *result*
is what was found — validation (experiments confirm …) and, in a mechanism paper, the
mechanism found; *other* is mostly implication and outlook. The move layer does not copy this
mapping: each role's probability (and the neighbours') is a feature that it weighs per move.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from itertools import pairwise

ROLES = ("background", "objective", "method", "result", "other")
WORD = re.compile(r"[a-z][a-z'-]*|\d+")
BINS = 5


def tokens(text: str) -> list[str]:
    """Lower-case words, every number as ``0``."""
    return ["0" if t[0].isdigit() else t for t in WORD.findall(text.lower())]


def role_features(sentences: Sequence[str]) -> list[dict[str, float]]:
    """Per sentence, its sparse binary features (name → 1.0)."""
    toks = [tokens(s) for s in sentences]
    count = len(sentences)
    out: list[dict[str, float]] = []
    for i, words in enumerate(toks):
        f: dict[str, float] = {"bias": 1.0}
        for w in words:
            f["u:" + w] = 1.0
        for a, b in pairwise(words):
            f["b:" + a + "_" + b] = 1.0
        if words:
            f["first:" + words[0]] = 1.0
        rel = i / (count - 1) if count > 1 else 0.0
        f[f"pos:{min(BINS - 1, int(rel * BINS))}"] = 1.0
        if i == 0:
            f["pos:first"] = 1.0
        if i == count - 1:
            f["pos:last"] = 1.0
        for prefix, j in (("p:", i - 1), ("n:", i + 1)):
            if 0 <= j < count:
                for w in set(toks[j]):
                    f[prefix + w] = 1.0
            else:
                f[prefix + "none"] = 1.0
        out.append(f)
    return out


class RoleModel:
    """Weights per feature (one per role) and the roles' order."""

    def __init__(self, weights: dict[str, list[float]], intercept: list[float]) -> None:
        self.weights = weights
        self.intercept = intercept

    def probabilities(self, sentences: Sequence[str]) -> list[dict[str, float]]:
        """Per sentence, role → probability (softmax over the roles)."""
        out: list[dict[str, float]] = []
        for feats in role_features(sentences):
            z = list(self.intercept)
            for k in feats:
                w = self.weights.get(k)
                if w is not None:
                    for r in range(len(ROLES)):
                        z[r] += w[r]
            top = max(z)
            e = [math.exp(v - top) for v in z]
            total = sum(e)
            out.append({role: v / total for role, v in zip(ROLES, e, strict=True)})
        return out


@cache
def load_roles() -> RoleModel | None:
    """The fitted role model, or None when ``roles.json`` is missing (on first use only)."""
    target = resources.files("mechnb").joinpath("data/moves/roles.json")
    try:
        data = json.loads(target.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return RoleModel(data["weights"], list(data["intercept"]))
