"""``CellSpec``: a cell the magics want to insert, as data (source, type, metadata)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CellSpec:
    """A new notebook cell, before it is inserted anywhere."""

    cell_type: str
    """``markdown`` or ``code``."""
    source: str
    """The cell text."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Cell metadata, including ``mechnb`` and ``tags`` for role cells."""

    @property
    def role(self) -> str | None:
        """The role set in the metadata, if any."""
        mech = self.metadata.get("mechnb")
        return mech.get("role") if isinstance(mech, dict) else None

    def to_nbformat(self) -> dict[str, Any]:
        """The cell as an nbformat 4.5 JSON dict (with a fresh id)."""
        cell: dict[str, Any] = {
            "cell_type": self.cell_type,
            "id": uuid.uuid4().hex[:8],
            "metadata": self.metadata,
            "source": self.source,
        }
        if self.cell_type == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        return cell

    def to_message(self) -> dict[str, Any]:
        """The cell as sent to the frontend bridge."""
        return {"cell_type": self.cell_type, "source": self.source, "metadata": self.metadata}
