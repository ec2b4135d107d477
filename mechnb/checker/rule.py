"""``Rule``: one closing-loop check — a stable code, a slug, a severity, docs and a function."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..findings import Finding, Severity
from .document import Document, finding


@dataclass(frozen=True)
class Rule:
    """One check of the registry (see ``mechnb.checker.rules.RULES``)."""

    code: str
    """Stable code, ``MECH003``."""
    name: str
    """Slug, ``theorem-without-interpretation``."""
    severity: Severity
    """Default severity (configurable per project or notebook)."""
    summary: str
    """One line that says what to do when the rule fires."""
    doc: str
    """What the rule checks and why, for the documentation."""
    check: Callable[[Document, Rule], Iterable[Finding]]
    """The check itself: yields findings, never raises on odd input."""
    obligation: str | None = None
    """The role-registry obligation the rule enforces (``needs-interpretation``…), if any."""
    group: str = "argument"
    """``argument``, ``references``, ``tex``, ``text`` or ``format`` (for the docs)."""

    def at(self, doc: Document, message: str, cell: int | None = None,
           offset: int | None = None, labels: Iterable[str] = ()) -> Finding:
        """A finding of this rule at ``offset`` of ``cell`` (notebook-level when cell is None)."""
        return finding(doc, self.code, self.name, self.severity, message, cell, offset, labels)
