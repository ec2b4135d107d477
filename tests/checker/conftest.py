"""Fixtures of the checker tests: where the checker's fixture notebooks live."""

from __future__ import annotations

from pathlib import Path

import pytest

CHECKER_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"


@pytest.fixture(scope="session")
def checker_fixtures() -> Path:
    """``tests/fixtures/checker``."""
    return CHECKER_FIXTURES

