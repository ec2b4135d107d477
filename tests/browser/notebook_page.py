"""Driving one notebook in JupyterLab or Notebook 7 the way a person does, plus model look-ups."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import Server

COMMAND_TIMEOUT_MS = 120_000
_COMMAND = """([command, args, ms]) => Promise.race([
  window.jupyterapp.commands.execute(command, args),
  new Promise((_, fail) => setTimeout(
    () => fail(new Error(`${command} did not finish within ${ms} ms`)), ms))
])"""
_PANEL = """() => {
  const app = window.jupyterapp;
  if (!app) return null;
  const w = app.shell.currentWidget;
  return w && w.content && w.content.model && w.sessionContext ? w : null;
}"""


def panel_js(body: str) -> str:
    """A page function whose ``panel`` is the current notebook panel."""
    return f"(arg) => {{ const panel = ({_PANEL})(); if (!panel) return null; {body} }}"


class NotebookPage:
    """A notebook opened in a browser page served by ``server``."""

    def __init__(self, page: Any, server: Server, name: str) -> None:
        self.page = page
        self.server = server
        self.name = name
        self.path = server.root / name

    def open(self) -> NotebookPage:
        self.page.goto(self.server.page_url(self.name))
        self.page.wait_for_function(panel_js(
            "const k = panel.sessionContext.session && panel.sessionContext.session.kernel;"
            "return panel.context.isReady && !!k && k.connectionStatus === 'connected'"
            " && k.status === 'idle';"), timeout=60_000)
        self.panel_id = self.eval("return panel.id;")
        assert self.eval("return panel.context.path;") == self.name
        self.notebook.locator(".jp-Cell").first.wait_for()
        return self

    @property
    def notebook(self) -> Any:
        """The notebook's DOM (scoped: other notebooks may be open in other tabs)."""
        return self.page.locator(f"[id='{self.panel_id}'] .jp-Notebook")

    def eval(self, body: str, arg: Any = None) -> Any:
        return self.page.evaluate(panel_js(body), arg)

    def cells(self) -> list[dict[str, Any]]:
        """The notebook model's cells as nbformat JSON."""
        result: list[dict[str, Any]] = self.eval(
            "return panel.content.model.sharedModel.toJSON().cells;")
        return result

    def active_index(self) -> int:
        return int(self.eval("return panel.content.activeCellIndex;"))

    def cell(self, index: int) -> Any:
        return self.notebook.locator(".jp-Cell").nth(index)

    def select(self, index: int) -> None:
        """Click a cell's prompt: the cell becomes active, in command mode."""
        self.cell(index).locator(".jp-InputPrompt").click()

    def run(self, index: int) -> None:
        """Select cell ``index``, press Shift+Enter and wait until it has run."""
        self.select(index)
        before = self.execution_count(index)
        self.page.keyboard.press("Shift+Enter")
        self.page.wait_for_function(panel_js(
            "const c = panel.content.model.cells.get(arg.i);"
            "return c.executionCount !== null && c.executionCount !== arg.before"
            " && panel.sessionContext.session.kernel.status === 'idle';"),
            arg={"i": index, "before": before}, timeout=60_000)

    def execution_count(self, index: int) -> int | None:
        value = self.eval("return panel.content.model.cells.get(arg).executionCount;", index)
        return None if value is None else int(value)

    def save(self) -> dict[str, Any]:
        """Save with Ctrl+S and return the notebook as written on disk."""
        self.select(0)
        self.page.keyboard.press("Control+s")
        self.page.wait_for_function(panel_js("return !panel.context.model.dirty;"))
        if self.eval("return panel.context.model.collaborative;"):
            # With jupyter-collaboration, JupyterLab's own Ctrl+S raced the server's autosave and
            # asked "File Changed: overwrite or revert?"; the extension's save of a shared
            # notebook waits for the autosave instead (issue 37), so the dialog is a failure
            changed = self.page.locator(".jp-Dialog", has_text="File Changed")
            assert changed.count() == 0, "JupyterLab asked 'File Changed' on Ctrl+S with RTC"
        for _ in range(50):  # a save still being written (the file is empty for a moment)
            try:
                return self.on_disk()
            except json.JSONDecodeError:
                self.page.wait_for_timeout(100)
        return self.on_disk()

    def on_disk(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(Path(self.path).read_text("utf-8"))
        return data

    def command(self, command: str, args: dict[str, Any] | None = None,
                timeout: float = COMMAND_TIMEOUT_MS) -> Any:
        """Run a JupyterLab command (for things a person does through the palette). A command
        still running after ``timeout`` ms fails the test (Playwright's ``evaluate`` itself
        would wait for it forever)."""
        return self.page.evaluate(_COMMAND, [command, args or {}, timeout])


def source(cell: dict[str, Any]) -> str:
    """A cell's source as one string (nbformat stores it as a list of lines on disk)."""
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else str(src)
