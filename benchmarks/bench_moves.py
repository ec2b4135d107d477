"""Move analyser: per-move precision/recall on the labelled abstracts, removals, time per abstract.

``python benchmarks/bench_moves.py --markdown`` prints the README accuracy table.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELLED = ROOT / "tests" / "fixtures" / "moves" / "labelled.json"


def _abstracts() -> list[dict[str, object]]:
    data: list[dict[str, object]] = json.loads(LABELLED.read_text("utf-8"))["abstracts"]
    return data


def run() -> list[tuple[str, str]]:
    """Rows: P/R/F1 per language, split and move; removal detection; ms per abstract."""
    from mechnb.moves import analyse
    from mechnb.moves.evaluate import evaluate, joined

    rows: list[tuple[str, str]] = []
    abstracts = _abstracts()
    for lang in ("en", "zh"):
        for split in ("dev", "heldout", "all"):
            chosen = [a for a in abstracts if a["lang"] == lang and split in ("all", a["split"])]
            scores = evaluate(chosen)
            for row in scores.table():
                rows.append((f"moves {lang} {split} {row['move']} (n={row['support']})",
                             f"P {row['precision']:.2f}  R {row['recall']:.2f}  "
                             f"F1 {row['f1']:.2f}"))
            if split == "all":
                for move in ("gap", "validation"):
                    rows.append((f"moves {lang} removed {move} reported missing",
                                 f"{scores.removal_found[move]} of {scores.removal_tries[move]}"))
    texts = [(joined(a), str(a["lang"])) for a in abstracts]
    analyse(*texts[0])  # the lexicon loads once per process
    start = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        for text, lang in texts:
            analyse(text, lang)
    per = (time.perf_counter() - start) / (rounds * len(texts)) * 1000
    rows.append(("moves analyse() per abstract (warm)", f"{per:.2f} ms"))
    return rows


def markdown() -> str:
    """The README table: per move and language, on the whole labelled set."""
    from mechnb.moves import MOVES
    from mechnb.moves.evaluate import evaluate

    abstracts = _abstracts()
    tables = {lang: {r["move"]: r for r in evaluate(
        a for a in abstracts if a["lang"] == lang).table()} for lang in ("en", "zh")}
    lines = ["| move | en P | en R | en F1 | zh P | zh R | zh F1 |",
             "|---|---|---|---|---|---|---|"]
    for m in MOVES:
        e, z = tables["en"][m], tables["zh"][m]
        lines.append(f"| {m} | {e['precision']:.2f} | {e['recall']:.2f} | {e['f1']:.2f} | "
                     f"{z['precision']:.2f} | {z['recall']:.2f} | {z['f1']:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if "--markdown" in sys.argv:
        print(markdown())
    else:
        for name, value in run():
            print(f"{name:55} {value}")
