"""The images of the README and the docs: JupyterLab with the extension (a real session) and
the first page of an example paper's PDF (a real export and compile).

Runs only with ``MECHNB_SCREENSHOTS=1`` (it rewrites ``docs/screenshot-lab.png``,
``docs/screenshot-preview.png`` and ``docs/failure_paper_page1.png``):
``MECHNB_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_screenshot.py``.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .notebook_page import NotebookPage

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "screenshot-lab.png"
PAGE_ONE = REPO / "docs" / "failure_paper_page1.png"

pytestmark = pytest.mark.skipif(
    os.environ.get("MECHNB_SCREENSHOTS") != "1",
    reason="set MECHNB_SCREENSHOTS=1 to rewrite docs/screenshot-lab.png and the page image")


def test_lab_screenshot_of_an_example_paper(page: Any, lab_server: Server) -> None:
    for name in ("failure_paper.ipynb", "failure_paper.bib"):
        shutil.copyfile(REPO / "notebooks" / name, lab_server.root / name)
    nb = NotebookPage(page, lab_server, "failure_paper.ipynb").open()
    # the derivation and the theorem, with their role badges
    nb.cell(12).scroll_into_view_if_needed()
    nb.notebook.locator(".jp-mechnb-badge").first.wait_for()
    nb.command("mechnb:open-phrases")
    sidebar = page.locator(".jp-mechnb-phrases")
    search = sidebar.locator("input.jp-mechnb-phrases-search")
    search.wait_for()
    search.fill("intuition")
    sidebar.locator(".jp-mechnb-phrase-text", has_text="Intuitively").first.wait_for()
    nb.select(12)
    page.wait_for_timeout(500)  # let the scroll and the panel settle
    page.screenshot(path=str(SCREENSHOT))

    header = SCREENSHOT.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1400, 900)


PREVIEW = REPO / "docs" / "screenshot-preview.png"


def test_preview_screenshot_of_an_example_paper(page: Any, lab_server: Server) -> None:
    """The writing desk: the English example beside its preview, a cell shown in the PDF."""
    for name in ("example_paper.ipynb", "example_paper.bib"):
        shutil.copyfile(REPO / "notebooks" / name, lab_server.root / name)
    nb = NotebookPage(page, lab_server, "example_paper.ipynb").open()
    assert nb.command("mechnb:preview")["status"] == "ok"
    page.locator(".jp-mechnb-preview-page canvas").first.wait_for()
    nb.select(11)
    nb.command("mechnb:show-in-pdf")
    page.locator(".jp-mechnb-preview-mark").wait_for()
    page.wait_for_timeout(400)
    page.screenshot(path=str(PREVIEW))
    assert PREVIEW.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_first_page_of_an_example_pdf(tmp_path: Path) -> None:
    out = tmp_path / "build"
    subprocess.run([sys.executable, "-m", "mechnb", "export", str(REPO / "notebooks" /
                    "failure_paper.ipynb"), "-o", str(out), "--pdf", "--no-cache"],
                   check=True, capture_output=True)
    stem = tmp_path / "page"
    subprocess.run(["pdftoppm", "-png", "-r", "90", "-f", "1", "-l", "1", "-singlefile",
                    str(out / "failure_paper.pdf"), str(stem)], check=True)
    shutil.copyfile(stem.with_suffix(".png"), PAGE_ONE)
    header = PAGE_ONE.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert height > width  # a portrait page, not an error image
