"""A negative number in a markdown table prints with a minus sign, not a hyphen (issue 23:
``-52.59`` in the exemplars' tables)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.exporter.context import RenderContext
from mechnb.exporter.markdown import render_markdown

from .conftest import needs_tex

TABLE = ("| run | change |\n|---|--:|\n| ablated | -52.59 |\n| share | -3% |\n"
         "| range | 2-3 |\n| name | -x |\n")


def test_negative_numbers_get_a_minus_and_other_cells_stay_as_written() -> None:
    latex = render_markdown(TABLE, RenderContext())
    assert "ablated & $-$52.59 \\\\" in latex and "share & $-$3\\% \\\\" in latex
    assert "range & 2-3 \\\\" in latex and "name & -x \\\\" in latex


@pytest.mark.tex
@needs_tex()
def test_the_pdf_shows_a_minus_sign(tmp_path: Path) -> None:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "Minus"}},
          "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": TABLE}]}
    path = tmp_path / "minus.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = subprocess.run(["pdftotext", "-enc", "UTF-8",
                           str(tmp_path / "build" / "minus" / "minus.pdf"), "-"],
                          capture_output=True, text=True, timeout=60).stdout
    assert "\u221252.59" in text and "-52.59" not in text
