"""Rules that read what a cell says: vacuous cells (MECH070), prior work with no citation
(MECH075). (Being written: see issue 20.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule


def check_vacuous(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A gap / interpretation / implication / limitations / lens / result cell that says nothing
    specific."""
    yield from ()


def check_nothing_cited(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Context / prior cells and no citation at all, or a prior cell with no citation."""
    yield from ()
