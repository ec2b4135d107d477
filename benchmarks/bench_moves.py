"""Move analyser: per-move precision/recall on the labelled abstracts, removals, time per abstract.

Two labelled sets: ``real_en.json`` (real arXiv/OpenReview abstracts, the measurement that counts;
with ``real_en_dev2.json``, a second tuning split ``dev2`` of real abstracts collected later) and
``labelled.json`` (short abstracts written by the project, English and Chinese). Each has a ``dev``
split (used to tune the cue rules) and a ``heldout`` split (never used for tuning).
``python benchmarks/bench_moves.py --markdown`` prints the README accuracy table.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "moves"
REAL = FIXTURES / "real_en.json"
REAL_DEV2 = FIXTURES / "real_en_dev2.json"
WRITTEN = FIXTURES / "labelled.json"


def _load(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))["abstracts"]
    return data


def sets() -> dict[str, list[dict[str, Any]]]:
    """The labelled sets by name: real English, written English, written Chinese."""
    written = _load(WRITTEN)
    return {"real en": _load(REAL) + _load(REAL_DEV2),
            "written en": [a for a in written if a["lang"] == "en"],
            "written zh": [a for a in written if a["lang"] == "zh"]}


def run() -> list[tuple[str, str]]:
    """Rows: P/R/F1 per set, split and move; removal detection; ms per abstract."""
    from mechnb.moves import analyse
    from mechnb.moves.evaluate import evaluate, joined

    rows: list[tuple[str, str]] = []
    for name, abstracts in sets().items():
        for split in ("dev", "dev2", "heldout"):
            if not any(a["split"] == split for a in abstracts):
                continue
            chosen = [a for a in abstracts if a["split"] == split]
            scores = evaluate(chosen)
            rows.append((f"moves {name} {split}: abstracts / sentences",
                         f"{len(chosen)} / {scores.sentences}"))
            for row in scores.table():
                rows.append((f"moves {name} {split} {row['move']} (n={row['support']})",
                             f"P {row['precision']:.2f}  R {row['recall']:.2f}  "
                             f"F1 {row['f1']:.2f}"))
            for move in ("gap", "validation"):
                rows.append((f"moves {name} {split} removed {move} reported missing",
                             f"{scores.removal_found[move]} of {scores.removal_tries[move]}"))
    everything = [a for abstracts in sets().values() for a in abstracts]
    texts = [(joined(a), str(a["lang"])) for a in everything]
    analyse(*texts[0])  # the lexicon loads once per process
    start = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        for text, lang in texts:
            analyse(text, lang)
    per = (time.perf_counter() - start) / (rounds * len(texts)) * 1000
    rows.append(("moves analyse() per abstract (warm)", f"{per:.2f} ms"))
    return rows


def markdown() -> str:
    """The README table: per move, the real set's dev, dev2 and heldout splits, then the written
    sets."""
    from mechnb.moves import MOVES
    from mechnb.moves.evaluate import evaluate

    named = sets()
    real = {split: evaluate(a for a in named["real en"] if a["split"] == split)
            for split in ("dev", "dev2", "heldout")}
    written = {name: evaluate(named[name]) for name in ("written en", "written zh")}
    tables = {key: {r["move"]: r for r in s.table()}
              for key, s in [*real.items(), *written.items()]}
    lines = ["| move | real dev P | R | F1 | real dev2 P | R | F1 | real heldout P | R | F1 "
             "| written en F1 | written zh F1 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in MOVES:
        d, d2, h = tables["dev"][m], tables["dev2"][m], tables["heldout"][m]
        lines.append(f"| {m} | {d['precision']:.2f} | {d['recall']:.2f} | {d['f1']:.2f} | "
                     f"{d2['precision']:.2f} | {d2['recall']:.2f} | {d2['f1']:.2f} | "
                     f"{h['precision']:.2f} | {h['recall']:.2f} | {h['f1']:.2f} | "
                     f"{tables['written en'][m]['f1']:.2f} | {tables['written zh'][m]['f1']:.2f} |")
    removal = []
    for key, s in [("real dev", real["dev"]), ("real dev2", real["dev2"]),
                   ("real heldout", real["heldout"]),
                   ("written en", written["written en"]), ("written zh", written["written zh"])]:
        removal.append(f"{key}: gap {s.removal_found['gap']}/{s.removal_tries['gap']}, "
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
