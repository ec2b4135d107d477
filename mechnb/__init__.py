"""mechnb: write Transformer/LLM mechanism papers in Jupyter.

Importing this package is cheap: the exporter, checker, phrase library and widgets load on first
use, so ``%load_ext mechnb`` stays fast.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__

__all__ = ["__version__", "check", "export", "load_ipython_extension", "unload_ipython_extension"]

_LAZY = {
    "export": ("mechnb.exporter", "export"),
    "check": ("mechnb.checker", "check"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'mechnb' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext mechnb``: register the ``%mech`` magic (heavy modules load on first use)."""
    from .kernel.magics import register

    register(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext mechnb``."""
    from .kernel.magics import unregister

    unregister(ipython)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "mechnb"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "mechnb.serverext"}]
