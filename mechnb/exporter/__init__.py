"""Export an annotated notebook to a LaTeX paper draft (and PDF).

``mechnb.export(...)`` is ``mechnb.exporter.export``. Importing this package is cheap: the
markdown parser and the renderer load on first use (``mechnb <cmd>`` imports ``exporter.cli``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import ExportResult, export, render

__all__ = ["ExportResult", "export", "render"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'mechnb.exporter' has no attribute {name!r}")
