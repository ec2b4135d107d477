"""The comm bridge itself: the kernel asks the extension to insert cells below the running cell."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .notebook_page import NotebookPage, source


def test_bridge_inserts_cells_below_running_cell(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("bridge.ipynb")
    nb = NotebookPage(page, lab_server, "bridge.ipynb").open()
    nb.run(0)
    nb.run(1)
    page.locator(".jp-mechnb-badge[data-role='remark']").wait_for()
    disk = nb.save()
    cells = disk["cells"]
    assert [c["cell_type"] for c in cells] == ["code", "code", "markdown", "code", "markdown"]
    assert source(cells[2]) == "**Inserted** by the bridge"
    assert cells[2]["metadata"] == {"mechnb": {"role": "remark"}, "tags": ["mech:remark"]}
    assert source(cells[3]) == "x = 1"
    assert source(cells[4]) == "END"
