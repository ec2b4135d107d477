"""Shared test fixtures: paths of the repository and its fixture data."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kernel_driver import Kernel

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
VENV_BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def approvals_of_this_test(tmp_path_factory: pytest.TempPathFactory,
                           monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test approves TeX (``mechnb trust``) in a record of its own, never the user's:
    ``XDG_DATA_HOME`` points into the test's temporary directory (subprocesses inherit it)."""
    home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


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


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    """A fresh python3 kernel whose working directory is ``tmp_path``."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    try:
        yield Kernel(km)
    finally:
        km.shutdown_kernel(now=True)
