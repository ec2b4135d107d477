"""Fixtures for the foundation tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager
from kernel_driver import Kernel


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    """A fresh python3 kernel whose working directory is ``tmp_path``."""
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    try:
        yield Kernel(km)
    finally:
        km.shutdown_kernel(now=True)
