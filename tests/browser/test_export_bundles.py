"""The arXiv / Overleaf bundle commands of the JupyterLab extension, from the command palette."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from typing import Any

import pytest

from .conftest import Server
from .notebook_page import NotebookPage
from .test_serverext import EXPORTER_NOTEBOOKS

pytestmark = pytest.mark.tex


def _copy_paper(server: Server, stem: str, folder: str) -> None:
    target = server.root / folder
    target.mkdir()
    for name in (f"{stem}.ipynb", "refs.bib", "figure.png"):
        shutil.copy(EXPORTER_NOTEBOOKS / name, target / name)


def _palette(page: Any, text: str) -> None:
    """Run a command the way a person does: Ctrl+Shift+C, type its label, Enter."""
    page.keyboard.press("Control+Shift+C")
    search = page.locator(".lm-CommandPalette-input").first
    search.wait_for()
    search.fill(text)
    page.locator(".lm-CommandPalette-item.lm-mod-active", has_text=text).wait_for()
    page.keyboard.press("Enter")


def test_arxiv_bundle_from_the_palette(page: Any, lab_server: Server) -> None:
    if not (shutil.which("latexmk") and shutil.which("pdflatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    _copy_paper(lab_server, "all_roles_en", "arxiv_ui")
    NotebookPage(page, lab_server, "arxiv_ui/all_roles_en.ipynb").open()
    _palette(page, "Export arXiv Bundle (mechnb)")
    rel = "arxiv_ui/build/all_roles_en/all_roles_en-arxiv.tar.gz"
    toast = page.locator(".Toastify__toast", has_text=f"Wrote {rel}")
    toast.wait_for(timeout=180_000)
    with tarfile.open(lab_server.root / rel) as tar:
        names = tar.getnames()
    assert {"all_roles_en.tex", "all_roles_en.bbl"} <= set(names)
    # the notification downloads the bundle itself (no trip to the file browser)
    with page.expect_download() as got:
        toast.get_by_role("button", name="Download").click()
    assert got.value.suggested_filename == "all_roles_en-arxiv.tar.gz"
    with tarfile.open(got.value.path()) as tar:
        assert "all_roles_en.tex" in tar.getnames()
    assert not (lab_server.root / "arxiv_ui/build/all_roles_en/all_roles_en.pdf").exists()


def test_failed_bundle_check_is_shown(page: Any, lab_server: Server) -> None:
    """A bundle whose pdfLaTeX check finds an undefined reference: the error, no tarball."""
    if not (shutil.which("latexmk") and shutil.which("pdflatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    _copy_paper(lab_server, "undefined_reference", "arxiv_bad")
    nb = NotebookPage(page, lab_server, "arxiv_bad/undefined_reference.ipynb").open()
    assert nb.command("mechnb:export-arxiv") is None  # the command resolves; the toast says why
    toast = page.locator(".Toastify__toast", has_text="Export failed")
    toast.wait_for(timeout=180_000)
    assert "1 undefined reference" in toast.inner_text()  # counted with the errors
    toast.get_by_role("button", name="Show log").click()  # the whole log, findings and all
    page.locator(".jp-mechnb-export-log", has_text="MECH811 error undefined-reference").wait_for()
    assert not list((lab_server.root / "arxiv_bad").rglob("*.tar.gz"))


def test_overleaf_project_with_engine_argument(page: Any, lab_server: Server) -> None:
    if not (shutil.which("latexmk") and shutil.which("xelatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    _copy_paper(lab_server, "all_roles_en", "overleaf_ui")
    nb = NotebookPage(page, lab_server, "overleaf_ui/all_roles_en.ipynb").open()
    result = nb.command("mechnb:export-overleaf", {"engine": "xelatex"})
    rel = "overleaf_ui/build/all_roles_en/all_roles_en-overleaf.zip"
    assert result["bundles"] == [rel]
    page.locator(".Toastify__toast", has_text=f"Wrote {rel}").wait_for()
    with zipfile.ZipFile(lab_server.root / rel) as zf:
        assert "$pdf_mode = 5;" in zf.read("latexmkrc").decode()


def test_export_from_the_toolbar_button_and_the_file_menu(page: Any, lab_server: Server) -> None:
    # export is where people look: a toolbar button beside "Check argument", and File menu items
    _copy_paper(lab_server, "all_roles_en", "export_ui")
    NotebookPage(page, lab_server, "export_ui/all_roles_en.ipynb").open()
    page.locator(".jp-mechnb-export-button").first.click()
    rel = "export_ui/build/all_roles_en/all_roles_en.tex"
    page.locator(".Toastify__toast", has_text=rel).wait_for(timeout=180_000)
    assert (lab_server.root / rel).is_file()
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    menu = page.locator(".lm-Menu").first
    for label in ("Export Paper to LaTeX (mechnb)", "Export arXiv Bundle (mechnb)",
                  "Export Overleaf Project (mechnb)"):
        menu.locator(".lm-Menu-itemLabel", has_text=label).first.wait_for()
    page.keyboard.press("Escape")
