"""The example papers' figures in the compiled PDF (issue 39): every figure is placed at full
line width without scaling, and its text is set at the body size within 1 pt — read from the
PDF itself (the font sizes of the text operators in each figure's form XObject, times the
scale at which the page places it, against the most frequent text size of the pages).

Sub- and superscripts of math in a figure (matplotlib sets them at 0.7 of the text size) are
script sizes, as in the body, and are not compared."""

from __future__ import annotations

import json
import math
import re
import shutil
import zlib
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.tex

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
PAPERS = [p for p in sorted(NOTEBOOKS.glob("*.ipynb"))
          if json.loads(p.read_text("utf-8"))["metadata"].get("mechnb", {}).get("paper_type")]
TOLERANCE_PT = 1.0
SCRIPT = 0.75
"""Sizes below this fraction of a figure's largest text size are sub/superscripts."""

_STREAM = re.compile(rb"\d+ 0 obj\s*(<<.*?>>)\s*stream\r?\n", re.S)
_TF = re.compile(rb"/[\w.+-]+\s+([\d.]+)\s+Tf")
_PLACED = re.compile(rb"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) [-\d.]+ [-\d.]+ cm\s*"
                     rb"/((?:Im|Fm)\d+) Do")


def _streams(pdf: bytes) -> list[tuple[bytes, bytes]]:
    """(dictionary, decoded content) of every stream object of ``pdf``."""
    out = []
    for m in _STREAM.finditer(pdf):
        raw = pdf[m.end():pdf.find(b"endstream", m.end())]
        try:
            body = zlib.decompressobj().decompress(raw) if b"FlateDecode" in m.group(1) else raw
        except zlib.error:
            continue
        out.append((m.group(1), body))
    return out


def figure_text_sizes(pdf: bytes) -> tuple[float, list[list[float]], list[float]]:
    """The body size, the text sizes of each figure, and the scale of each figure placement."""
    streams = _streams(pdf)
    forms = [body for head, body in streams if b"/Subtype" in head and b"/Form" in head]
    pages = [body for head, body in streams if b"/Subtype" not in head]
    body_sizes = Counter(round(float(s), 2) for page in pages for s in _TF.findall(page))
    body = body_sizes.most_common(1)[0][0]
    figures = [sorted({float(s) for s in _TF.findall(form)}) for form in forms]
    scales = [math.sqrt(abs(float(a) * float(d) - float(b) * float(c)))
              for page in pages for a, b, c, d, _ in _PLACED.findall(page)]
    return body, [sizes for sizes in figures if sizes], scales


@pytest.mark.parametrize("source", PAPERS, ids=lambda p: p.stem)
def test_figure_text_is_at_body_size_in_the_pdf(tmp_path: Path, source: Path) -> None:
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        pytest.skip("TeX Live (latexmk, xelatex) is not installed")
    from mechnb.exporter import export

    result = export(source, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None
    body, figures, scales = figure_text_sizes(result.pdf_path.read_bytes())
    assert 10.5 < body < 11.5, f"body text at {body} pt (the templates set 11 pt)"
    assert figures, "no figure with text found in the PDF"
    assert scales and all(abs(s - 1) < 0.01 for s in scales), (
        f"figures placed at scales {scales}: not at their natural (line) width")
    assert "\\includegraphics[width=1.00\\linewidth" in result.latex
    for index, sizes in enumerate(figures):
        main = [s for s in sizes if s >= SCRIPT * max(sizes)]
        for scale in scales:
            off = [round(s * scale, 2) for s in main if abs(s * scale - body) > TOLERANCE_PT]
            assert not off, (f"figure {index + 1}: text at {off} pt, body at {body} pt "
                             f"(within {TOLERANCE_PT} pt required)")
