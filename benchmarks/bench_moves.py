"""Move analyser: per-move precision/recall on labelled abstracts, removals, time per abstract.

The measurement that counts is the ``test2`` split of ``real_en_set3.json``: 39 real abstracts
never used to tune the rules or fit the learned layer. Also reported: the rules alone on it, the
learned layer's cross-validated F1 on the abstracts it was fitted on (stored in
``weights.json`` by ``python -m mechnb.moves.train``), how far a second reader agrees with the
first on ``real_en.json``, and the short abstracts written by the project (``labelled.json``,
English and Chinese). ``python benchmarks/bench_moves.py --markdown`` prints the README table.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "moves"
sys.path.insert(0, str(ROOT))


def _load(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((FIXTURES / name).read_text("utf-8"))["abstracts"]
    return data


def sets() -> dict[str, list[dict[str, Any]]]:
    """The labelled sets by name."""
    written = _load("labelled.json")
    return {"real test2": [a for a in _load("real_en_set3.json") if a["split"] == "test2"],
            "written en": [a for a in written if a["lang"] == "en"],
            "written zh": [a for a in written if a["lang"] == "zh"]}


def _scores() -> dict[str, Any]:
    from mechnb.moves.evaluate import agreement, evaluate

    named = sets()
    return {"learned": evaluate(named["real test2"]),
            "rules": evaluate(named["real test2"], "rules"),
            "second": agreement(_load("real_en.json"), _load("real_en_second_annotator.json")),
            "written en": evaluate(named["written en"]),
            "written zh": evaluate(named["written zh"])}


def _cv() -> dict[str, float]:
    weights = json.loads((ROOT / "mechnb" / "data" / "moves" / "weights.json").read_text("utf-8"))
    cv: dict[str, float] = weights["cv_f1"]
    return cv


def run() -> list[tuple[str, str]]:
    """Rows: P/R/F1 per set and move; removal detection; ms per abstract."""
    from mechnb.moves import analyse
    from mechnb.moves.evaluate import joined

    rows: list[tuple[str, str]] = []
    named = sets()
    for name, scores in _scores().items():
        if name != "second":
            size = len(named["real test2" if name in ("learned", "rules") else name])
            rows.append((f"moves {name}: abstracts / sentences", f"{size} / {scores.sentences}"))
        for row in scores.table():
            rows.append((f"moves {name} {row['move']} (n={row['support']})",
                         f"P {row['precision']:.2f}  R {row['recall']:.2f}  F1 {row['f1']:.2f}"))
        if name != "second":
            for move in ("gap", "validation"):
                rows.append((f"moves {name} removed {move} reported missing",
                             f"{scores.removal_found[move]} of {scores.removal_tries[move]}"))
    for move, f1 in _cv().items():
        rows.append((f"moves learned, cross-validated on its training set: {move}", f"F1 {f1:.2f}"))
    everything = [a for abstracts in named.values() for a in abstracts]
    texts = [(joined(a), str(a["lang"])) for a in everything]
    analyse(*texts[0])  # the lexicon and the weights load once per process
    for method in ("learned", "rules"):
        start = time.perf_counter()
        rounds = 5
        for _ in range(rounds):
            for text, lang in texts:
                analyse(text, lang, method)
        per = (time.perf_counter() - start) / (rounds * len(texts)) * 1000
        rows.append((f"moves analyse() per abstract, {method} (warm)", f"{per:.2f} ms"))
    return rows


def markdown() -> str:
    """The README table: per move, test2 with the learned layer (P, R, F1) and with the rules
    alone, cross-validation on the training set, the second reader, the written sets."""
    from mechnb.moves import MOVES

    scores = _scores()
    cv = _cv()
    tables = {key: {r["move"]: r for r in s.table()} for key, s in scores.items()}
    lines = ["| move | test2 P | R | F1 | test2 F1, rules alone | training set F1, "
             "cross-validated | second reader F1 | written en F1 | written zh F1 (rules) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for m in MOVES:
        t = tables["learned"][m]
        lines.append(f"| {m} | {t['precision']:.2f} | {t['recall']:.2f} | {t['f1']:.2f} | "
                     f"{tables['rules'][m]['f1']:.2f} | {cv[m]:.2f} | "
                     f"{tables['second'][m]['f1']:.2f} | {tables['written en'][m]['f1']:.2f} | "
                     f"{tables['written zh'][m]['f1']:.2f} |")
    removal = []
    for key, label in [("learned", "test2"), ("rules", "test2, rules alone"),
                       ("written en", "written en"), ("written zh", "written zh")]:
        s = scores[key]
        removal.append(f"{label}: gap {s.removal_found['gap']}/{s.removal_tries['gap']}, "
                       f"validation {s.removal_found['validation']}/"
                       f"{s.removal_tries['validation']}")
    lines += ["", "Removed move reported missing by MECH060 — " + "; ".join(removal) + "."]
    return "\n".join(lines)

if __name__ == "__main__":
    if "--markdown" in sys.argv:
        print(markdown())
    else:
        for name, value in run():
            print(f"{name:60} {value}")
