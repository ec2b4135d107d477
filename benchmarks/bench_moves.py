"""Move analyser: per-move precision/recall on labelled abstracts, removals, time per abstract.

The measurement that counts is the ``test2`` split of ``real_en_set3.json``: 39 real abstracts
never used to tune the rules or fit the learned layer. Also reported: the rules alone on it, the
learned layer's cross-validated F1 on the abstracts it was fitted on (stored in
``weights.json`` by ``python -m mechnb.moves.train``), how far a second reader agrees with the
first on ``real_en.json``, and the short abstracts written by the project (``labelled.json``,
English and Chinese). ``python benchmarks/bench_moves.py --markdown`` prints the table for
``docs/guide/moves.md``.

The missing-move warning (MECH060): of the moves each complete abstract makes, how many it
reports missing (false alarms; the issue allows 1 in 20), and how often it reports a gap or a
validation once every sentence that makes it is deleted (detection) — on test2 with the stored
layer, and out of fold on the training abstracts per split (from ``weights.json``); and the
trade-off curve on test2 and out of fold on the training abstracts (``weights.json``'s
``cv_presence_curve``): for gap and validation, what would be reported at other bounds on the
abstract's probability of making the move (detection against false "missing").
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from functools import reduce
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


def _weights() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "mechnb" / "data" / "moves" / "weights.json")
                                      .read_text("utf-8"))
    return data


def _cv() -> dict[str, float]:
    cv: dict[str, float] = _weights()["cv_f1"]
    return cv


def missing() -> dict[str, Any]:
    """MECH060's counts (``MissingCounts``) by set: test2 (learned and rules alone), out of fold
    on the training abstracts (all, the splits the rules were tuned on, the others), and the
    written abstracts."""
    from mechnb.moves.evaluate import MissingCounts, missing_counts
    from mechnb.moves.train import UNTUNED

    named = sets()
    cv = {k: MissingCounts.from_json(v) for k, v in _weights()["cv_missing"].items()}
    return {"test2": missing_counts(named["real test2"]),
            "test2, rules alone": missing_counts(named["real test2"], "rules"),
            "training, out of fold": cv["all"],
            "training, out of fold: splits the rules were tuned on (dev, dev2)":
                cv["dev"].add(cv["dev2"]),
            f"training, out of fold: splits never tuned on ({', '.join(UNTUNED)})":
                reduce(MissingCounts.add, (cv[k] for k in UNTUNED)),
            "written en": missing_counts(named["written en"]),
            "written zh (rules)": missing_counts(named["written zh"])}


def second_reading() -> dict[str, dict[str, dict[str, list[int]]]]:
    """MECH060 on test2's deleted copies against a second, blind reading of them
    (``deletion_reader.json``): per deleted move, per the reader's answer to "does the text
    still make it?", ``[reported missing, copies]``. That reading was of the copies the first
    labels make (before the second pass over validation widened them: ``first_labels``); the
    training abstracts' out-of-fold detections are now of the wider copies, so they are not
    paired with it."""
    from mechnb.moves.evaluate import deleted_copy, first_labels, reader_counts, reported_missing

    items = json.loads((FIXTURES / "deletion_reader.json").read_text("utf-8"))["items"]
    test2 = {a["id"]: first_labels(a) for a in sets()["real test2"]}

    def on_test2(item: Mapping[str, Any]) -> bool:
        return reported_missing(deleted_copy(test2[item["id"]], item["deleted"]), item["deleted"])

    return {"test2 (first labels)": reader_counts([i for i in items if i["id"] in test2],
                                                  on_test2)}


def control_rows() -> list[tuple[str, str]]:
    """How the second reader answers on the complete abstracts drawn as controls, against the
    first labels (does some sentence carry the move? before the second pass over validation):
    the reading's agreement with them."""
    from mechnb.moves.evaluate import first_labels
    from mechnb.moves.train import training_abstracts

    items = json.loads((FIXTURES / "deletion_reader.json").read_text("utf-8"))["items"]
    every = {a["id"]: first_labels(a) for a in [*training_abstracts(), *sets()["real test2"]]}
    rows = []
    for move in ("gap", "validation"):
        tally: dict[tuple[bool, str], int] = {}
        for item in items:
            if item["deleted"] is None:
                labelled = any(move in s["moves"] for s in every[item["id"]]["sentences"])
                tally[labelled, item[move]] = tally.get((labelled, item[move]), 0) + 1
        for labelled in (True, False):
            answers = ", ".join(f"{a} {tally.get((labelled, a), 0)}"
                                for a in ("yes", "unsure", "no"))
            rows.append((f"second reader, complete controls the first labels say "
                         f"{'make' if labelled else 'lack'} {move}", answers))
    return rows


def _rate(found: int, of: int) -> str:
    return f"{found}/{of} ({found / of:.1%})" if of else "-"


def run() -> list[tuple[str, str]]:
    """Rows: P/R/F1 per set and move; MECH060's false alarms and detection; ms per abstract."""
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
    for move, f1 in _cv().items():
        rows.append((f"moves learned, cross-validated on its training set: {move}", f"F1 {f1:.2f}"))
    for name, counts in missing().items():
        alarms = sum(counts.false_alarms.values())
        rows.append((f"MECH060 {name}: present moves reported missing",
                     _rate(alarms, sum(counts.present.values()))))
        for move in ("gap", "validation"):
            rows.append((f"MECH060 {name}: deleted {move} reported",
                         _rate(counts.found[move], counts.removed[move])))
        rows.append((f"MECH060 {name}: per move, false alarms / deleted found", "  ".join(
            f"{m} {counts.false_alarms[m]}/{counts.present[m]}, "
            f"{counts.found[m]}/{counts.removed[m]}" for m in counts.present)))
    reader = {"no": "no longer makes it", "unsure": "unsure",
              "yes": "still makes it (a report is a false 'missing')"}
    for name, by_move in second_reading().items():
        for move, by_answer in by_move.items():
            for answer, (got, of) in by_answer.items():
                rows.append((f"MECH060 {name}, deleted {move}, second reader: {reader[answer]}",
                             f"reported {_rate(got, of)}"))
    rows += control_rows()
    from mechnb.moves.evaluate import tradeoff

    for move, bound, fa, present, found, removed in tradeoff(named["real test2"]):
        rows.append((f"MECH060 test2 trade-off: {move} reported below {bound}",
                     f"false missing {_rate(fa, present)}, deleted found {_rate(found, removed)}"))
    bounds = _weights()["absent_below"]
    for move, curve in _weights().get("cv_presence_curve", {}).items():
        for bound, fa, present, found, removed in curve:
            chosen = "  (the bound shipped)" if bound == bounds[move] else ""
            rows.append((f"MECH060 training out of fold trade-off: {move} below {bound}",
                         f"false missing {_rate(fa, present)}, "
                         f"deleted found {_rate(found, removed)}{chosen}"))
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
    """The table of ``docs/guide/moves.md``: per move, test2 with the learned layer (P, R, F1)
    and with the rules alone, cross-validation on the training set, the second reader, the
    written sets."""
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
    lines += ["", "| MECH060 abstract-missing-move | present moves reported missing "
              "(false alarms) | deleted gap reported | deleted validation reported |",
              "|---|---|---|---|"]
    for name, counts in missing().items():
        alarms = sum(counts.false_alarms.values())
        lines.append(f"| {name} | {_rate(alarms, sum(counts.present.values()))} | "
                     f"{_rate(counts.found['gap'], counts.removed['gap'])} | "
                     f"{_rate(counts.found['validation'], counts.removed['validation'])} |")
    return "\n".join(lines)

if __name__ == "__main__":
    if "--markdown" in sys.argv:
        print(markdown())
    else:
        for name, value in run():
            print(f"{name:60} {value}")
