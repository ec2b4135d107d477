"""Precision of ``mechnb check`` per rule, on hand-labelled findings (issue 36).

``benchmarks/data/precision_labels.json`` holds the project's own labels: for a finding of
``mechnb check`` on the shared corpus (26 LaTeX papers, a dozen notebooks) or on the example
notebooks, its rule, file, line (LaTeX) or cell (notebook), and whether a reviewer would sign it
(``true`` / ``false`` / ``debatable``) with a one-line reason. No text of the sources is kept.

This benchmark re-runs the check on every labelled file, matches the labels to the findings the
check gives *now*, and prints, per rule and per severity (notebook and LaTeX apart):

* precision = (true + ½ debatable) / labelled findings still reported;
* how many labelled findings are no longer reported, and how many of those were true (a fix that
  loses true findings costs recall);
* how many current findings carry no label (the labelled set's coverage).

It also writes ``benchmarks/data/precision.json`` (rule → LaTeX / notebook precision), which
``scripts/docs_site.py`` shows in the rule reference. ``python benchmarks/bench_precision.py``
runs it alone.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LABELS = HERE / "data" / "precision_labels.json"
RESULT = HERE / "data" / "precision.json"
CORPUS = next((p / "shared" / "corpus" for p in ROOT.parents if (p / "shared" / "corpus").is_dir()),
              ROOT.parent / "shared" / "corpus")
"""The shared corpus: next to the checkout (``/work/main``) or further up (a worktree)."""
EXAMPLES = ROOT / "notebooks"
GATE = 0.9
"""Every warning or error rule should reach this precision on the labelled set."""


def resolve(rel: str) -> Path:
    """A label's file (``latex/…``, ``notebooks/…`` of the corpus, ``examples/…``) on disk."""
    if rel.startswith("examples/"):
        return EXAMPLES / rel.removeprefix("examples/")
    return CORPUS / rel


def latex_mains() -> dict[str, Path]:
    """Paper folder (``latex/NN``) → its main file, from the corpus table."""
    out: dict[str, Path] = {}
    table = CORPUS / "latex" / "corpus.tsv"
    for row in table.read_text(encoding="utf-8").splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) > 3:
            out[f"latex/{cols[0]}"] = CORPUS / "latex" / cols[0] / cols[3]
    return out


def run_check(targets: Iterable[tuple[str, Path]]) -> list[dict[str, Any]]:
    """Every finding of the check on ``targets`` (``(key, path)``), as dicts with the file
    relative to the corpus (``file``) and ``kind`` (``latex`` / ``notebook``)."""
    from mechnb.checker import check
    from mechnb.latexin.check import check_latex
    from mechnb.notebook import read_paper

    out: list[dict[str, Any]] = []
    for key, path in targets:
        if path.suffix == ".tex":
            for f in check_latex(path):
                rel = _relative(Path(f.file or path))
                out.append({"rule": f.code, "severity": f.severity.value, "file": rel,
                            "pos": f.line, "message": f.message, "kind": "latex"})
        else:
            for f in check(read_paper(str(path))):
                out.append({"rule": f.code, "severity": f.severity.value, "file": key,
                            "pos": f.cell, "message": f.message, "kind": "notebook"})
    return out


def _relative(path: Path) -> str:
    path = path.resolve()
    try:
        return str(path.relative_to(CORPUS.resolve()))
    except ValueError:
        return str(path)


def targets(labels: list[dict[str, Any]]) -> list[tuple[str, Path]]:
    """The files to check: each labelled paper's main file, each labelled notebook."""
    mains = latex_mains()
    seen: dict[str, Path] = {}
    for lab in labels:
        rel = lab["file"]
        if rel.startswith("latex/"):
            key = "/".join(rel.split("/")[:2])
            if key in mains:
                seen.setdefault(key, mains[key])
        else:
            seen.setdefault(rel, resolve(rel))
    return [(k, p) for k, p in sorted(seen.items()) if p.exists()]


def match(labels: list[dict[str, Any]], findings: list[dict[str, Any]]
          ) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[dict[str, Any]],
                     list[dict[str, Any]]]:
    """(label, finding) pairs, labels no finding matches, findings no label matches."""
    by_place: dict[tuple[str, str, int | None], list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        by_place[(f["rule"], f["file"], f["pos"])].append(f)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    lost: list[dict[str, Any]] = []
    used: set[int] = set()
    for lab in labels:
        pos = lab.get("line", lab.get("cell"))
        here = [f for f in by_place.get((lab["rule"], lab["file"], pos), [])
                if id(f) not in used and (not lab.get("what") or lab["what"] in f["message"])]
        if here:
            used.add(id(here[0]))
            pairs.append((lab, here[0]))
        else:
            lost.append(lab)
    unlabelled = [f for f in findings if id(f) not in used]
    return pairs, lost, unlabelled


def precision(labels: Iterable[str]) -> float | None:
    """(true + ½ debatable) / all; ``None`` for no labels."""
    xs = list(labels)
    if not xs:
        return None
    return (xs.count("true") + 0.5 * xs.count("debatable")) / len(xs)


def summarise(pairs: list[tuple[dict[str, Any], dict[str, Any]]], lost: list[dict[str, Any]],
              unlabelled: list[dict[str, Any]]) -> dict[str, Any]:
    """Per rule and kind, and per severity and kind: precision and counts."""
    rules: dict[tuple[str, str], dict[str, Any]] = {}
    for lab, f in pairs:
        r = rules.setdefault((f["rule"], f["kind"]), {"labels": [], "severity": f["severity"],
                                                      "lost": 0, "unlabelled": 0})
        r["labels"].append(lab["label"])
    for lab in lost:
        kind = "latex" if lab["file"].startswith("latex/") else "notebook"
        r = rules.setdefault((lab["rule"], kind), {"labels": [], "severity": "—", "lost": 0,
                                                   "unlabelled": 0})
        r["lost"] += 1
        if lab["label"] == "true":
            r["lost_true"] = r.get("lost_true", 0) + 1
    for f in unlabelled:
        r = rules.get((f["rule"], f["kind"]))
        if r is not None:
            r["unlabelled"] += 1
    severities: dict[tuple[str, str], list[str]] = defaultdict(list)
    for lab, f in pairs:
        severities[(f["severity"], f["kind"])].append(lab["label"])
    return {"rules": rules, "severities": severities}


def run(report: Callable[[str, str], None]) -> None:
    """Rows for ``make bench``; also writes ``benchmarks/data/precision.json``."""
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    labels: list[dict[str, Any]] = data["labels"]
    todo = targets(labels)
    if not todo:
        report("precision", f"skipped: the shared corpus is not at {CORPUS}")
        return
    findings = run_check(todo)
    pairs, lost, unlabelled = match(labels, findings)
    s = summarise(pairs, lost, unlabelled)
    out: dict[str, dict[str, Any]] = {}
    below = []
    for (rule, kind), r in sorted(s["rules"].items()):
        p = precision(r["labels"])
        shown = "—" if p is None else f"{p:.0%}"
        report(f"precision {rule} {kind} ({r['severity']})",
               f"{shown} of {len(r['labels'])} labelled still reported; {r['lost']} labelled "
               f"no longer reported ({r.get('lost_true', 0)} of them true); "
               f"{r['unlabelled']} unlabelled")
        if p is not None:
            out.setdefault(rule, {})[kind] = {"precision": round(p, 3), "n": len(r["labels"]),
                                              "severity": r["severity"]}
            if r["severity"] in ("warning", "error") and p < GATE:
                below.append(f"{rule} {kind} {p:.0%}")
    for (severity, kind), labs in sorted(s["severities"].items()):
        p = precision(labs)
        report(f"precision all {severity} {kind}",
               f"{'—' if p is None else f'{p:.0%}'} of {len(labs)}")
    report("precision: warning/error rules under 90 %", ", ".join(below) or "none")
    RESULT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main() -> int:
    rows: list[tuple[str, str]] = []
    run(lambda name, value: rows.append((name, value)))
    width = max((len(n) for n, _ in rows), default=0)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
