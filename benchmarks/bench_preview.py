"""The paper preview (issue 22): save → new PDF, for the English and the Chinese example.

For each example notebook (a scratch copy, the per-user cache in a scratch folder) it builds the
preview once (the full latexmk cycle; the preamble's format is then made in the background, and
timed), then 7 times after editing one paragraph's text — what a save does — and reports the
median of those rebuilds (target: at most 1.5 s for the English example on 2 CPUs; the English
one compiles with pdfLaTeX from the format, the Chinese one with XeLaTeX, which has none), the
full build, and one edit that adds a label (TeX passes until the ``.aux`` stands still). The
browser's part (save, fetch, pdf.js drawing) is measured by ``tests/browser/test_preview.py``
(printed with ``-s``; ``bench_desk.py`` reports it).
Runs under ``make bench`` or alone: ``python benchmarks/bench_preview.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXAMPLES = {"English example (pdfLaTeX)": "example_paper",
            "Chinese example (XeLaTeX)": "example_paper_zh"}
REBUILDS = 7


def _edit(path: Path, text: str, label: str | None = None) -> None:
    nb = json.loads(path.read_text("utf-8"))
    cell = next(c for c in reversed(nb["cells"]) if c["cell_type"] == "markdown"
                and not c.get("metadata", {}).get("mechnb", {}).get("role"))
    src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    cell["source"] = src.rstrip() + " " + text
    if label:
        nb["cells"].append({"cell_type": "markdown", "id": label.replace(":", "-"),
                            "metadata": {"mechnb": {"role": "remark", "label": label}},
                            "source": "A remark added to move the labels."})
    path.write_text(json.dumps(nb, ensure_ascii=False), "utf-8")


def run(report: Callable[[str, str], None]) -> None:
    if not (shutil.which("latexmk") and shutil.which("pdflatex") and shutil.which("xelatex")):
        report("preview", "skipped: TeX Live is not installed (make tex)")
        return
    from mechnb.exporter.preview import build, settle

    old_cache = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        try:
            for title, stem in EXAMPLES.items():
                src = NOTEBOOKS / f"{stem}.ipynb"
                if not src.exists():
                    report(f"preview, {title}", "skipped: notebook not found")
                    continue
                work = Path(tmp) / stem
                shutil.copytree(NOTEBOOKS, work, ignore=shutil.ignore_patterns("build"))
                path = work / f"{stem}.ipynb"
                first = build(path)
                t0 = time.perf_counter()
                settle()  # the preamble's format, made after the first build
                made = time.perf_counter() - t0
                times, passes = [], []
                for n in range(REBUILDS):
                    _edit(path, f"Edit number {n}.")
                    t0 = time.perf_counter()
                    result = build(path)
                    times.append(time.perf_counter() - t0)
                    passes.append(result.passes)
                _edit(path, "And a new label.", label="rem:bench")
                t0 = time.perf_counter()
                moved = build(path)
                relabel = time.perf_counter() - t0
                report(f"preview, {title}: rebuild after a text edit (median of {REBUILDS})",
                       f"{statistics.median(times):.2f} s ({passes.count('one')}/{REBUILDS} one "
                       f"pass, max {max(times):.2f} s; target <= 1.5 s for English)")
                report(f"preview, {title}: first (full) build",
                       f"{first.seconds:.2f} s ({first.status})")
                report(f"preview, {title}: the preamble's format, made after it",
                       f"{made:.2f} s (in the background)")
                report(f"preview, {title}: rebuild after a new label",
                       f"{relabel:.2f} s ({moved.passes} passes)")
        finally:
            if old_cache is None:
                os.environ.pop("XDG_CACHE_HOME", None)
            else:
                os.environ["XDG_CACHE_HOME"] = old_cache


if __name__ == "__main__":
    run(lambda name, value: print(f"{name}: {value}"))
