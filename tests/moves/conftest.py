"""Fixtures of the move-analysis tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "moves"


@pytest.fixture(scope="session")
def fresh_training() -> tuple[dict[str, Any], dict[str, float]]:
    """``mechnb.moves.train.train()`` on the labelled abstracts, run once per session (it refits
    the layer five times for the cross-validation: about ten seconds). Skipped where CSAbstruct
    (``../shared/corpus/csabstruct``), from which the validation's presence model also learns,
    is absent: the refit would not be the shipped one."""
    from mechnb.moves.train import CSABSTRUCT_SPLITS, train
    from mechnb.moves.train_roles import default_corpus

    corpus = default_corpus()
    if not all((corpus / f"{s}.jsonl").is_file() for s in CSABSTRUCT_SPLITS):
        pytest.skip(f"CSAbstruct is not at {corpus}")
    return train(FIXTURES, corpus)
