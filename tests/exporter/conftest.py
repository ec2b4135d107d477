"""Exporter test helpers: fixture paths and snapshot comparison.

Set ``MECHNB_UPDATE_SNAPSHOTS=1`` to rewrite the expected files from the current output (then
review the diff with git before committing).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "exporter"
NOTEBOOKS = FIXTURES / "notebooks"
EXPECTED = FIXTURES / "expected"
EXAMPLE = REPO / "notebooks" / "example_paper.ipynb"
VENV_BIN = Path(sys.executable).parent
UPDATE = os.environ.get("MECHNB_UPDATE_SNAPSHOTS") == "1"

FIXTURE_NOTEBOOKS = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
COMPILING_NOTEBOOKS = [n for n in FIXTURE_NOTEBOOKS if n not in ("tex_error",
                                                                 "undefined_reference")]


def assert_snapshot(path: Path, actual: str) -> None:
    """``actual`` equals the content of ``path`` (rewritten when MECHNB_UPDATE_SNAPSHOTS=1)."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, "utf-8")
        return
    assert path.exists(), f"no snapshot {path}; run with MECHNB_UPDATE_SNAPSHOTS=1 to create it"
    expected = path.read_text("utf-8")
    assert actual == expected, f"output differs from {path.name} (MECHNB_UPDATE_SNAPSHOTS=1 " \
                               "updates it)"


@pytest.fixture
def paper_dir(tmp_path: Path) -> Path:
    """A scratch copy of the fixture notebooks (+ refs.bib, figure.png) to export from."""
    target = tmp_path / "papers"
    shutil.copytree(NOTEBOOKS, target)
    return target


def needs_tex() -> pytest.MarkDecorator:
    """Skip unless xelatex and latexmk are installed (``make tex`` installs them)."""
    missing = not (shutil.which("xelatex") and shutil.which("latexmk"))
    return pytest.mark.skipif(missing, reason="TeX Live (xelatex, latexmk) is not installed")


def markdown_notebook(*sources: str, **meta: object) -> dict[str, object]:
    """A notebook of markdown cells (``metadata.mechnb`` from ``meta``)."""
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": dict(meta)},
            "cells": [{"cell_type": "markdown", "id": f"c{i}", "metadata": {}, "source": s}
                      for i, s in enumerate(sources)]}


def export_pdf_text(folder: Path, stem: str, nb: dict[str, object]) -> tuple[str, str]:
    """Write ``nb`` as ``folder/<stem>.ipynb``, export it with ``mechnb export --pdf`` (a real
    CLI process, default engine) and return its stderr and the PDF's text (pdftotext; the test
    is skipped without it). The export must succeed."""
    import json
    import subprocess

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    path = folder / f"{stem}.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pdf = folder / "build" / stem / f"{stem}.pdf"
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    return done.stderr, text
