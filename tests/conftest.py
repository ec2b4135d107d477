"""Shared test fixtures: paths of the repository and its fixture data."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from kernel_driver import Kernel

# A test's speed is never asserted (DESIGN §6: measurements live in ``make bench``): no
# Hypothesis deadline, which a busy machine would trip at random.
settings.register_profile("mechnb", deadline=None)
settings.load_profile("mechnb")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
VENV_BIN = Path(sys.executable).parent

# ``make test`` runs the suite on three workers (pytest-xdist, ``--dist loadgroup``). Tests that
# share state or an expensive set-up run in one worker, one after the other: the browser tests
# (one Chromium, the Jupyter servers of the session), the corpus tests (they compile real
# notebooks and papers: CPU-bound, so two at once would only compete), and the tests that share
# a module- or session-scoped fixture (a Jupyter server, a fitted model, a compiled PDF), which
# one worker then sets up once. Every other test goes to whichever worker is free.
_GROUPED_DIRS = {"browser": "browser", "corpus": "corpus"}
_CHEAP_SHARED = {"repo", "fixtures", "checker_fixtures"}  # constant paths, nothing to share


def _xdist_group(item: pytest.Item) -> str | None:
    """The group ``item`` must run in, or ``None`` when any worker may run it."""
    parts = Path(str(item.fspath)).relative_to(REPO).parts
    if len(parts) > 2 and parts[0] == "tests" and parts[1] in _GROUPED_DIRS:
        return _GROUPED_DIRS[parts[1]]
    info = getattr(item, "_fixtureinfo", None)
    shared = []
    for name, defs in sorted((info.name2fixturedefs if info else {}).items()):
        last = defs[-1]
        if (name in _CHEAP_SHARED or not last.baseid  # pytest's own (tmp_path_factory, …)
                or last.scope not in ("session", "package", "module")):
            continue
        shared.append(f"{last.baseid}::{name}" if last.scope != "module"
                      else item.nodeid.split("::", 1)[0])
    return shared[0] if shared else None


_FIRST = ("corpus", "browser")
"""The longest groups, put first in collection order. pytest-xdist's loadgroup scheduling sorts
groups by their number of tests (``--loadscope-reorder``, its default) and keeps this order only
among equals; putting them first by ``--no-loadscope-reorder`` on four workers measured no faster
(docs/development.md)."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = _xdist_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))

    def rank(item: pytest.Item) -> int:
        marker = item.get_closest_marker("xdist_group")
        name = marker.args[0] if marker and marker.args else marker.kwargs.get("name") \
            if marker else None
        return _FIRST.index(name) if name in _FIRST else len(_FIRST)

    items.sort(key=rank)  # stable: the order within each rank is kept


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
