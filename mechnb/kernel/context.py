"""What the kernel knows about where it runs: the notebook's path and the running cell's id."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Variables that frontends put in the kernel namespace (or environment) to name the notebook.
_NAMESPACE_KEYS = ("__session__", "__vsc_ipynb_file__")


def parent_message(shell: Any) -> Mapping[str, Any]:
    """The execute_request being run (an empty mapping outside a kernel)."""
    parent = getattr(shell, "parent_header", None)
    if isinstance(parent, Mapping):
        return parent
    kernel = getattr(shell, "kernel", None)
    if kernel is not None and hasattr(kernel, "get_parent"):
        try:
            parent = kernel.get_parent("shell")
        except TypeError:  # ipykernel < 6.? took no channel argument
            parent = kernel.get_parent()
        if isinstance(parent, Mapping):
            return parent
    return {}


def current_cell_id(shell: Any) -> str | None:
    """The id of the cell being executed, as JupyterLab/Notebook 7 send it (``cellId``)."""
    meta = parent_message(shell).get("metadata")
    cell_id = meta.get("cellId") if isinstance(meta, Mapping) else None
    return cell_id if isinstance(cell_id, str) and cell_id else None


def client_session(shell: Any) -> str | None:
    """The session id of the client that sent the running request (one per browser tab)."""
    header = parent_message(shell).get("header")
    session = header.get("session") if isinstance(header, Mapping) else None
    return session if isinstance(session, str) and session else None


def notebook_path(shell: Any) -> Path | None:
    """The notebook file this kernel runs for, when the frontend told the kernel; else ``None``."""
    candidates: list[str] = []
    user_ns = getattr(shell, "user_ns", None)
    if isinstance(user_ns, Mapping):
        candidates += [v for k in _NAMESPACE_KEYS if isinstance(v := user_ns.get(k), str)]
    env = os.environ.get("JPY_SESSION_NAME")
    if env:
        candidates.append(env)
    for raw in candidates:
        path = Path(raw)
        if path.suffix != ".ipynb":
            continue
        # jupyter_server passes either an absolute path or one relative to its root; the kernel's
        # working directory is the notebook's directory, so try the file name there too.
        for option in (path, Path.cwd() / path.name):
            if option.is_file():
                return option.resolve()
    # The name the kernel was started with is gone: the notebook was renamed or moved (Launcher →
    # new notebook → rename). The running cell's id is in the saved notebook: look for it in the
    # notebooks of the kernel's working directory, the notebook's folder when it started.
    cell_id = current_cell_id(shell)
    return _notebook_holding(cell_id) if cell_id else None


NOTEBOOKS_SEARCHED = 200
"""At most this many notebooks of the working directory are read to find the running cell's id."""
LARGEST_SEARCHED = 50 * 1024 * 1024
"""Notebooks larger than this (bytes) are not read for it."""


def _notebook_holding(cell_id: str) -> Path | None:
    """The one notebook of the working directory whose cells include ``cell_id`` (by its JSON
    ``"id"`` field), or ``None`` when none or several do."""
    import json

    needle = json.dumps(cell_id).encode("utf-8")
    found: list[Path] = []
    try:
        paths = sorted(Path.cwd().glob("*.ipynb"))[:NOTEBOOKS_SEARCHED]
    except OSError:
        return None
    for path in paths:
        try:
            if not path.is_file() or path.stat().st_size > LARGEST_SEARCHED:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if needle not in data:
            continue
        try:
            cells = json.loads(data).get("cells", [])
        except (ValueError, AttributeError):
            continue
        if any(isinstance(c, Mapping) and c.get("id") == cell_id for c in cells):
            found.append(path.resolve())
    return found[0] if len(found) == 1 else None  # a copied notebook shares ids: say nothing


def notebook_lang(shell: Any) -> str:
    """The language of the notebook the kernel runs for (``en`` when unknown or unreadable)."""
    from ..errors import MechnbError
    from ..notebook import read_paper

    path = notebook_path(shell)
    if path is None:
        return "en"
    try:
        return read_paper(path).lang
    except MechnbError:
        return "en"
