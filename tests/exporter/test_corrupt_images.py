"""A corrupt or truncated image output is reported at its cell, and the PDF still builds
(issue 23: it used to surface as a TeX error)."""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from mechnb.exporter.outputs import image_problem

from .conftest import needs_tex


def _png(width: int = 4, height: int = 4) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\xff" * (3 * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_a_complete_png_passes_and_damaged_ones_are_named() -> None:
    good = _png()
    assert image_problem(good, "image/png") is None
    assert image_problem(good[:-20], "image/png") == "is a truncated PNG image"
    flipped = bytearray(good)
    flipped[45] ^= 0xFF  # inside the IDAT data
    assert "bad checksum in its 'IDAT' chunk" in (image_problem(bytes(flipped), "image/png") or "")
    assert image_problem(b"GIF89a", "image/png") == "is not a PNG image"
    assert image_problem(b"\xff\xd8 ... \xff\xd9", "image/jpeg") is None
    assert image_problem(b"\xff\xd8 ... cut", "image/jpeg") == "is not a complete JPEG image"


@pytest.mark.tex
@needs_tex()
def test_a_corrupt_png_is_reported_at_its_cell_and_the_pdf_builds(tmp_path: Path) -> None:
    def figure(blob: bytes, n: int) -> dict[str, object]:
        return {"cell_type": "code", "id": f"c{n}", "execution_count": n, "source": "plot()",
                "metadata": {"mechnb": {"role": "figure", "label": f"fig:f{n}",
                                        "caption": f"Figure {n}."}},
                "outputs": [{"output_type": "display_data", "metadata": {}, "data": {
                    "image/png": base64.b64encode(blob).decode(), "text/plain": "<Figure>"}}]}
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "Images"}},
          "cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "Two plots."},
                    figure(_png(), 1), figure(_png()[:-30], 2)]}
    path = tmp_path / "images.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "images.ipynb[cell 3]: MECH" in done.stderr
    line = next(ln for ln in done.stderr.splitlines()
                if "[cell 3]" in ln and "unsupported-image" in ln)
    assert "truncated PNG image" in line and "re-run the cell" in line
    assert "tex-error" not in done.stderr
    assert (tmp_path / "build" / "images" / "images.pdf").read_bytes().startswith(b"%PDF")
