"""Fixtures of the move-analysis tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "moves"


@pytest.fixture(scope="session")
def fresh_training() -> tuple[dict[str, Any], dict[str, float]]:
    """``mechnb.moves.train.train()`` on the labelled abstracts, run once per session (it refits
    the layer five times for the cross-validation: about ten seconds)."""
    from mechnb.moves.train import train

    return train(FIXTURES)
