"""Linear regexes (issue 9): check and export complete on 500 KB adversarial cells.

The subprocess timeout is only a hang guard; the speed itself is measured, not asserted, by
``benchmarks/bench_adversarial.py`` (target: check under 1 s per cell).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from adversarial import NAMES, write_adversarial

from mechnb.checker import check
from mechnb.exporter.api import render
from mechnb.notebook import paper_from_dict

HANG_GUARD = 60  # seconds: linear work takes 4-10 s here; a quadratic pass takes hours


@pytest.mark.parametrize("name", NAMES)
def test_check_and_export_complete(name: str, tmp_path: Path) -> None:
    nb = write_adversarial(tmp_path, name)
    for args in (["check", str(nb)], ["export", str(nb), "-o", str(tmp_path / "out")]):
        proc = subprocess.run([sys.executable, "-m", "mechnb", *args], capture_output=True,
                              text=True, timeout=HANG_GUARD, check=False)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr


TEXISH = st.lists(st.sampled_from(
    ["\\", "{", "}", "[", "]", "(", ")", "$", "$$", "^^", "%", "#", "&", "~", "_", "@", "!", "`",
     "\n", " ", "a", "x", "input", "cite", "label", "ref", "begin", "end", "includegraphics",
     "write18", "csname", "special", "align", "#", "*", "<", ">", "|", "é", "图"]), max_size=80
                ).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=TEXISH, caption=TEXISH, label=TEXISH)
def test_random_texish_text_never_raises(body: str, caption: str, label: str) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": caption}},
          "cells": [{"cell_type": "markdown", "id": "a", "source": body,
                     "metadata": {"mechnb": {"role": "figure", "caption": caption,
                                             "label": label}}},
                    {"cell_type": "code", "id": "b", "source": "", "execution_count": 1,
                     "metadata": {"mechnb": {"role": "result", "label": label}},
                     "outputs": [{"output_type": "display_data", "metadata": {},
                                  "data": {"text/latex": body, "text/markdown": caption}}]}]}
    paper = paper_from_dict(nb)
    check(paper)
    latex = render(paper).latex
    # a label TeX cannot read as written never reaches \label; single spaces between words are
    # kept (LaTeX keeps them in a label's key: issue 35), leading, trailing or doubled are not
    if label and (any(ch in label for ch in "#%\\{}$&~^,") or label != label.strip(" ")
                  or "  " in label):
        assert "\\label{" + label + "}" not in latex


def test_one_rule_lists_at_most_a_hundred_findings_per_cell() -> None:
    from mechnb.checker import MAX_PER_RULE_AND_CELL

    source = "Some motivation for the equations below.\n\n" + "$$x \\label{e}$$\n" * 150
    paper = paper_from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": source}]})
    duplicates = [f for f in check(paper) if f.code == "MECH014"]
    assert len(duplicates) == MAX_PER_RULE_AND_CELL + 1
    summary = [f for f in duplicates if f.line is None]
    assert len(summary) == 1 and "… and 49 more MECH014 findings in this cell" in \
        summary[0].message


def test_a_rule_stops_after_its_limit_and_says_so() -> None:
    from mechnb.checker import MAX_PER_RULE, MAX_PER_RULE_AND_CELL

    cells = [{"cell_type": "markdown", "id": f"c{i}", "metadata": {},
              "source": "$$x \\label{e}$$\n" * MAX_PER_RULE_AND_CELL} for i in range(25)]
    paper = paper_from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                             "cells": cells})
    duplicates = [f for f in check(paper) if f.code == "MECH014"]
    assert len(duplicates) == MAX_PER_RULE + 1  # no cell over its cap: all listed, then the stop
    stop = [f for f in duplicates if f.cell is None]
    assert len(stop) == 1 and f"stopped after {MAX_PER_RULE} findings" in stop[0].message
