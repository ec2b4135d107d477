"""Approving a test notebook's needs-review TeX, as ``mechnb trust --yes`` would.

Tests that compile TeX off the allow-list on purpose (MathJax-only macros, an undefined macro,
a raw cell, a venue style next to the notebook) approve it first, in the test's own record
(``conftest.approvals_of_this_test``), and so exercise the approval path rather than --trust.
"""

from __future__ import annotations

from pathlib import Path

from mechnb.notebook import read_paper
from mechnb.tex.gate import assess
from mechnb.tex.trust import approve


def approve_review(path: Path | str, style: object = None, **options: object) -> int:
    """Approve every needs-review item of the notebook at ``path`` as the export with
    ``options`` (``include_code``, ``template``, ``engine``) compiles it; returns how many."""
    verdict = assess(read_paper(path), style, **options)
    assert not verdict.refused, verdict.refused
    return approve(verdict.review, str(path))
