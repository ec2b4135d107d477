"""The README's screenshot of JupyterLab with the extension, taken from a real session.

Runs only with ``MECHNB_SCREENSHOTS=1`` (it rewrites ``docs/screenshot-lab.png``):
``MECHNB_SCREENSHOTS=1 .venv/bin/python -m pytest tests/browser/test_screenshot.py``.
"""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .notebook_page import NotebookPage

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "screenshot-lab.png"

pytestmark = pytest.mark.skipif(
    os.environ.get("MECHNB_SCREENSHOTS") != "1",
    reason="set MECHNB_SCREENSHOTS=1 to rewrite docs/screenshot-lab.png")


def test_lab_screenshot_of_an_example_paper(page: Any, lab_server: Server) -> None:
    for name in ("failure_paper.ipynb", "failure_paper.bib"):
        shutil.copyfile(REPO / "notebooks" / name, lab_server.root / name)
    nb = NotebookPage(page, lab_server, "failure_paper.ipynb").open()
    # the derivation and the theorem, with their role badges
    nb.cell(12).scroll_into_view_if_needed()
    nb.notebook.locator(".jp-mechnb-badge").first.wait_for()
    nb.command("mechnb:open-phrases")
    sidebar = page.locator(".jp-mechnb-sidebar")
    search = sidebar.locator(".mechnb-phrase-panel input[type='text']").first
    search.wait_for()
    search.fill("intuition")
    sidebar.locator(".widget-html", has_text="Intuitively").first.wait_for()
    nb.select(12)
    page.wait_for_timeout(500)  # let the scroll and the panel settle
    page.screenshot(path=str(SCREENSHOT))

    header = SCREENSHOT.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", header[16:24]) == (1400, 900)
