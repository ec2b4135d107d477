"""``%mech figures`` in a real kernel: vector figures in the paper's fonts (issue 24)."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from kernel_driver import Kernel

from mechnb.figures import COLUMN_WIDTH_IN, TEXT_WIDTH_IN, rc_params

pytestmark = pytest.mark.kernel

PLOT = ("import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()\n"
        "ax.plot([0, 1, 2], [0, -1, 4], label={label!r})\n"
        "ax.set_xlabel({xlabel!r}); ax.legend(); plt.show()")


def _pdf(run: object) -> bytes:
    displays = [o for o in run.outputs  # type: ignore[attr-defined]
                if o["msg_type"] == "display_data" and "application/pdf" in o["data"]]
    assert displays, "the figure was not sent as PDF"
    return base64.b64decode(displays[0]["data"]["application/pdf"])


def test_load_ext_does_not_import_matplotlib(kernel: Kernel) -> None:
    run = kernel.execute("import sys\n%load_ext mechnb\nprint('matplotlib' in sys.modules)")
    assert [o["text"] for o in run.outputs if o["msg_type"] == "stream"] == ["False\n"]


def test_english_figures_are_vector_in_computer_modern(kernel: Kernel) -> None:
    kernel.execute("%matplotlib inline\n%load_ext mechnb")
    styled = kernel.execute("%mech figures --lang en")
    shown = json.dumps(styled.outputs)
    assert "6.5 in wide" in shown and "png + pdf" in shown
    pdf = _pdf(kernel.execute(PLOT.format(label="measured", xlabel="training step")))
    assert pdf.startswith(b"%PDF") and b"CMR10" in pdf.upper()
    assert b"DejaVu" not in pdf  # no text in matplotlib's default face


@pytest.mark.skipif(shutil.which("kpsewhich") is None, reason="TeX Live is not installed")
def test_chinese_figures_use_the_body_font(kernel: Kernel) -> None:
    kernel.execute("%matplotlib inline\n%load_ext mechnb")
    styled = kernel.execute("%mech figures --lang zh --columns 2")
    assert "Chinese in FandolSong" in json.dumps(styled.outputs)
    run = kernel.execute(PLOT.format(label="实测值", xlabel=r"前一词元权重 $\pi$（设定）"))
    warned = [o["text"] for o in run.outputs if o["msg_type"] == "stream"]
    assert warned == []  # no "does not have a glyph" for Chinese next to math: no empty boxes
    pdf = _pdf(run)
    assert b"FandolSong" in pdf and b"CMMI10" in pdf.upper()  # CJK in Fandol, math in CM
    assert b"AR PL" not in pdf and b"DejaVu" not in pdf


def test_widths_follow_the_layout() -> None:
    assert rc_params("en", 1)["figure.figsize"][0] == TEXT_WIDTH_IN
    assert rc_params("en", 2)["figure.figsize"][0] == COLUMN_WIDTH_IN
    with pytest.raises(ValueError):
        rc_params("en", 3)


def test_the_export_keeps_the_vector_figure(kernel: Kernel, tmp_path: Path) -> None:
    """A figure cell run after `%mech figures` carries a PDF, which the exporter writes."""
    from mechnb.exporter.api import export

    kernel.execute("%matplotlib inline\n%load_ext mechnb\n%mech figures --lang en")
    run = kernel.execute(PLOT.format(label="measured", xlabel="step"))
    outputs = [{"output_type": "display_data", "data": o["data"], "metadata": {}}
               for o in run.outputs if o["msg_type"] == "display_data"]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "Figures"}},
          "cells": [{"cell_type": "code", "id": "fig", "execution_count": 1,
                     "metadata": {"mechnb": {"role": "figure", "label": "fig:a",
                                             "caption": "A vector figure."}},
                     "source": "plot()", "outputs": outputs}]}
    path = tmp_path / "figs.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    result = export(path, tmp_path / "out")
    assert any(name.endswith(".pdf") for name in result.resources), list(result.resources)
    assert ".pdf}" in result.latex
