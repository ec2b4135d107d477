"""``Finding``: one observation about a notebook (a broken rule, malformed metadata, …)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    """How serious a finding is; ``error`` findings make ``--strict`` fail."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is more serious."""
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@dataclass(frozen=True)
class Finding:
    """One finding, located at a cell (``cell`` is ``None`` for the whole notebook)."""

    code: str
    """Stable rule code, e.g. ``MECH003``."""
    name: str
    """Slug of the rule, e.g. ``theorem-without-interpretation``."""
    severity: Severity
    """``error``, ``warning`` or ``info``."""
    message: str
    """One sentence that says what is wrong and what to do."""
    cell: int | None = None
    """0-based index of the cell in the notebook, or ``None``."""
    line: int | None = None
    """1-based line inside the cell source."""
    column: int | None = None
    """1-based column inside that line."""
    labels: tuple[str, ...] = field(default_factory=tuple)
    """Labels involved (``thm:main``…)."""
    cell_id: str | None = None
    """The nbformat cell id, when the cell has one (for the frontend to jump to)."""
    file: str | None = None
    """The file the finding is about (the notebook as it was named), when known."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the documented ``--format json`` record)."""
        # by hand, not ``asdict``: that deep-copies every field, the cost of a long report
        return {"code": self.code, "name": self.name, "severity": self.severity.value,
                "message": self.message, "cell": self.cell, "line": self.line,
                "column": self.column, "labels": list(self.labels), "cell_id": self.cell_id,
                "file": self.file}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        """The finding back from its ``to_json`` record."""
        return cls(code=data["code"], name=data["name"], severity=Severity(data["severity"]),
                   message=data["message"], cell=data["cell"], line=data["line"],
                   column=data["column"], labels=tuple(data["labels"]),
                   cell_id=data["cell_id"], file=data.get("file"))

    @property
    def cell_number(self) -> int | None:
        """The 1-based cell number people see (JupyterLab's status bar), or ``None``."""
        return None if self.cell is None else self.cell + 1

    def format(self, path: str | None = None) -> str:
        """``paper.ipynb[cell 12]:3:1: MECH003 error theorem-without-interpretation: …``.

        The cell number is 1-based, as JupyterLab shows it (DESIGN §2a); ``path`` defaults to
        the finding's ``file``."""
        path = path or self.file or "<notebook>"
        where = path if self.cell is None else f"{path}[cell {self.cell_number}]"
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        return f"{where}: {self.code} {self.severity.value} {self.name}: {self.message}"
