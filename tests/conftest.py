"""Shared test fixtures: paths of the repository and its fixture data."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """``tests/fixtures``."""
    return FIXTURES


@pytest.fixture(scope="session")
def ipython_shell() -> Any:
    """The global in-process IPython shell of ``IPython.testing.globalipapp``."""
    from IPython.testing import globalipapp

    globalipapp.start_ipython()
    return globalipapp.get_ipython()  # the module attribute is the real shell once started
