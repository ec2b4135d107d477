"""Put the cells a magic produced into the notebook — or, without the extension, show them.

With the JupyterLab / Notebook 7 extension, cells travel over the comm bridge and appear directly
below the running cell with their metadata. Without it (VS Code, nbclient, terminal IPython, or the
very first cell before the frontend has answered) nothing is lost: every cell's source is shown as
output, and the first code cell is offered as the next input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..cellspec import CellSpec
from .context import current_cell_id


@dataclass(frozen=True)
class InsertResult:
    """How the cells reached the user."""

    method: Literal["frontend", "fallback"]
    """``frontend``: inserted by the extension; ``fallback``: shown as output."""
    cells: tuple[CellSpec, ...]
    """The cells concerned."""


class TemplateOutput:
    """The fallback display: every cell's source, copyable, with its role metadata."""

    def __init__(self, cells: Sequence[CellSpec], reason: str) -> None:
        self.cells = tuple(cells)
        self.reason = reason

    def _describe(self, cell: CellSpec) -> str:
        mech = cell.metadata.get("mechnb", {})
        bits = [f"{cell.cell_type} cell"]
        bits += [f"{k} {mech[k]}" for k in ("role", "label", "kind") if mech.get(k)]
        if mech.get("validates"):
            bits.append("validates " + ", ".join(mech["validates"]))
        return " · ".join(bits)

    def _repr_markdown_(self) -> str:
        parts = [f"*mechnb: {self.reason}*", ""]
        for i, cell in enumerate(self.cells, 1):
            longest = max((len(run) for run in cell.source.split("\n") if set(run) == {"`"}),
                          default=0)
            fence = "`" * max(3, longest + 1)
            lang = "python" if cell.cell_type == "code" else "markdown"
            parts += [f"**{i}. {self._describe(cell)}**", "", f"{fence}{lang}", cell.source,
                      fence, ""]
        return "\n".join(parts)

    def __repr__(self) -> str:
        parts = [f"mechnb: {self.reason}", ""]
        for i, cell in enumerate(self.cells, 1):
            parts += [f"--- {i}. {self._describe(cell)} ---", cell.source, ""]
        return "\n".join(parts)

    def bundle(self) -> tuple[dict[str, str], dict[str, Any]]:
        """The display data and metadata (the cells as data, for tools that want them)."""
        data = {"text/markdown": self._repr_markdown_(), "text/plain": repr(self)}
        return data, {"mechnb": {"cells": [c.to_message() for c in self.cells]}}


def _frontend_bridge(shell: Any) -> Any:
    """The live frontend bridge, or ``None`` when no extension has answered."""
    try:
        from . import bridge as _bridge
    except ImportError:
        return None
    return _bridge.active_bridge(shell)


def insert_cells(cells: Sequence[CellSpec], shell: Any) -> InsertResult:
    """Insert ``cells`` below the running cell, or show them when that is not possible."""
    from IPython.display import display

    cells = tuple(cells)
    bridge = _frontend_bridge(shell)
    if bridge is not None and bridge.insert_cells([c.to_message() for c in cells],
                                                  current_cell_id(shell)):
        return InsertResult("frontend", cells)
    code = [c for c in cells if c.cell_type == "code"]
    if _awaiting_answer(shell):
        # The cell that ran %load_ext: the extension's hello cannot be read before the cell ends.
        # Show the cells; the extension turns this output into real cells when the cell is done
        # (no next-input copy, which would stay behind as a role-less cell).
        reason = ("the cells are inserted when this cell finishes (the mechnb extension answers "
                  "only then); without the extension, copy them into new cells")
        data, metadata = TemplateOutput(cells, reason).bundle()
        metadata["mechnb"]["insert_when_done"] = True
        display(data, raw=True, metadata=metadata)  # type: ignore[no-untyped-call]
        return InsertResult("fallback", cells)
    reason = ("the mechnb JupyterLab extension is not active here, so the cells are shown instead "
              "of inserted; copy them into new cells")
    if code:
        reason += " (the first code cell is offered as the next input)"
    data, metadata = TemplateOutput(cells, reason).bundle()
    display(data, raw=True, metadata=metadata)  # type: ignore[no-untyped-call]
    if code and hasattr(shell, "set_next_input"):
        shell.set_next_input(code[0].source, replace=False)
    return InsertResult("fallback", cells)


def _awaiting_answer(shell: Any) -> bool:
    try:
        from . import bridge as _bridge
    except ImportError:
        return False
    return _bridge.awaiting_answer(shell)
