"""Rules about reproducible evidence: unseeded randomness (MECH076), cells run out of order
(MECH077), outputs without an execution count (MECH078). (Being written: see issue 20.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule


def check_unseeded(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Validating code (or code it uses) draws random numbers without a fixed seed."""
    yield from ()


def check_run_order(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Code cells were not run top to bottom."""
    yield from ()


def check_execution_count(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A validating cell with outputs but no execution count."""
    yield from ()
