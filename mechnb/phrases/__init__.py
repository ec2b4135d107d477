"""The phrase library: bilingual phrases by rhetorical function, a search function and a panel.

Importing this package is cheap (the CLI imports it for ``mechnb --help``); the data loads on the
first search and the ipywidgets panel only when ``mechnb.phrases.panel`` is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .library import Library, load_library
    from .lookup import FunctionNode, functions, search
    from .model import Lens, Phrase

__all__ = ["FunctionNode", "Lens", "Library", "Phrase", "functions", "load_library", "search"]

_LAZY = {
    "FunctionNode": "lookup", "functions": "lookup", "search": "lookup",
    "Library": "library", "load_library": "library",
    "Lens": "model", "Phrase": "model",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
