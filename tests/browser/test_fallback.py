"""Acceptance: with the extension disabled, ``%mech`` still shows the template (nothing lost)."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .notebook_page import NotebookPage, source


def test_magic_shows_template_without_extension(
        page: Any, lab_server_without_extension: Server) -> None:
    server = lab_server_without_extension
    server.copy_fixture("theorem_magic.ipynb", "no_extension.ipynb")
    nb = NotebookPage(page, server, "no_extension.ipynb").open()
    # `jupyter labextension disable mechnb` in the server's own config dir took effect
    assert page.evaluate("() => window.jupyterapp.hasPlugin('mechnb:plugin')") is False
    nb.run(0)
    nb.run(1)
    output = nb.cell(1).locator(".jp-OutputArea-output").first
    output.wait_for()
    text = output.inner_text()
    assert "thm:x" in text
    assert "theorem" in text.lower()
    assert "interpretation" in text.lower()
    cells = nb.save()["cells"]
    assert source(cells[1]) == "%mech theorem --label thm:x"
    assert not any(c["metadata"].get("mechnb") for c in cells), "no role cells were inserted"
    assert source(cells[-1]) == "END of the fixture"
    # the template also travels as data in the output's metadata
    outputs = cells[1]["outputs"]
    assert any(o.get("metadata", {}).get("mechnb", {}).get("cells") for o in outputs)
