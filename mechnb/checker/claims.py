"""Rules about claims and their evidence: numbers the paper never shows (MECH072), causal
wording without an intervention (MECH073), "we prove" about experiments (MECH074).
(Being written: see issue 20.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule


def check_numbers_shown(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A number in the abstract or conclusion appears somewhere else in the paper."""
    yield from ()


def check_causal_wording(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Causal wording backed only by non-interventional experiments."""
    yield from ()


def check_proof_wording(doc: Document, rule: Rule) -> Iterator[Finding]:
    """"We prove" / "confirms" about a claim backed only by experiments."""
    yield from ()
