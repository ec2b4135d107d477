"""The writing desk in a real browser (issue 22): what the browser tests measure, as one table.

Runs the measuring browser tests (Debian Chromium, a real JupyterLab / Notebook 7 server) and
reports the numbers they print: inserting a theorem's cells with and without real-time
collaboration (keypress to cells visible, the first run and the median of seven; target at most
150 ms), save to preview updated (the test fixture, and the median of five saves of each example
paper; target at most 1.0 s for the English one), the first preview of each example (target at
most 3 s), the delay from a keystroke to the next frame while builds run (target: p95 under
100 ms), and from typing ``\\cref{`` to the completer's list drawn (target at most 100 ms).
Skipped where Chromium or TeX Live is missing (``make test`` installs both). Runs under
``make bench`` or alone: ``python benchmarks/bench_desk.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ["tests/browser/test_insertion.py::test_theorem_magic_inserts_cells_in_jupyterlab",
         "tests/browser/test_insertion.py::test_theorem_magic_inserts_cells_in_notebook7",
         "tests/browser/test_insertion.py::test_theorem_magic_inserts_cells_with_rtc_in_jupyterlab",
         "tests/browser/test_insertion.py::test_theorem_magic_inserts_cells_with_rtc_in_notebook7",
         "tests/browser/test_preview.py::test_preview_builds_rebuilds_on_save_and_syncs",
         "tests/browser/test_preview.py::test_typing_during_builds_loses_no_keystroke",
         "tests/browser/test_preview.py::test_save_to_preview_on_the_example_papers",
         "tests/browser/test_writing.py::test_cref_completes_labels_and_at_completes_bibliography_keys"]
LINES = re.compile(r"(latency [\w-]+: .*|save -> preview updated[^:]*: .*|first preview[^:]*: .*|"
                   r"completion popup[^:]*: .*|keystroke -> screen during builds [^\n]*)", re.M)


def run(report: Callable[[str, str], None]) -> None:
    if not Path("/usr/bin/chromium").exists() or shutil.which("pdflatex") is None:
        report("desk (browser)", "skipped: Chromium or TeX Live is missing (make test)")
        return
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                           *TESTS], cwd=ROOT, capture_output=True, text=True, check=False,
                          env={**os.environ, "MECHNB_MEASURE": "1"})  # the timed variants
    found = LINES.findall(done.stdout)
    if done.returncode != 0 or not found:
        report("desk (browser)", f"failed (pytest exit {done.returncode}); run the tests above")
    for line in found:
        name, _, value = line.partition(": ")
        report(f"desk, {name}", value)


if __name__ == "__main__":
    run(lambda name, value: print(f"{name}: {value}"))
