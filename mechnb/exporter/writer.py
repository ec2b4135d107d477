"""Writing the draft: atomic files, and a hash record so hand edits are never overwritten.

The output directory holds ``.mechnb-export.json`` with the SHA-256 of every ``.tex`` mechnb
wrote there (``"tex"``) and of the inputs and outputs of its last successful compile (``"pdf"``,
see ``pdf.compile_pdf``). A ``.tex`` whose current hash differs from the record (or that has no
record) was written or edited by someone else and is only replaced with ``force=True``.

Nothing is written through a symlink planted inside the output directory: a link at a file's
name is replaced (``os.replace``), a link where a sub-directory should be is replaced by a real
directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .. import files
from ..paper_paths import UnsafeFileError, read_regular
from .errors import HandEditedError

SIDECAR = ".mechnb-export.json"
"""Name of the record of exported ``.tex`` hashes in the output directory."""


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` atomically, creating the output directories the draft needs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    files.atomic_write(path, data)


def inside(out_dir: Path, rel: str) -> Path:
    """``out_dir/rel`` with every directory between them a real one (a planted symlink is
    replaced by an empty directory); ``rel`` must be a plain relative path."""
    parts = PurePosixPath(rel).parts
    if (not parts or PurePosixPath(rel).is_absolute() or "\0" in rel
            or any(p in ("", ".", "..") for p in parts)):
        raise OSError(f"{rel!r} is not a path inside the output directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    current = out_dir
    for part in parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            current.mkdir()
            continue
        if stat.S_ISLNK(mode):
            os.unlink(current)
            current.mkdir()
        elif not stat.S_ISDIR(mode):
            raise NotADirectoryError(f"{current} is not a directory")
    return current / parts[-1]


def read_sidecar(out_dir: Path) -> dict[str, Any]:
    """The whole export record (empty if missing or unreadable)."""
    try:
        data = json.loads((out_dir / SIDECAR).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_sidecar(out_dir: Path, data: Mapping[str, Any]) -> None:
    """Replace the export record atomically."""
    atomic_write(out_dir / SIDECAR,
                 (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def read_record(out_dir: Path) -> dict[str, str]:
    """``{tex file name: sha256}`` from the sidecar (empty if missing or unreadable)."""
    files = read_sidecar(out_dir).get("tex")
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def check_overwrite(tex_path: Path, new_text: bytes, force: bool) -> None:
    """Raise ``HandEditedError`` if ``tex_path`` holds text mechnb did not write last time."""
    if force:
        return
    try:
        current = read_regular(tex_path)
    except FileNotFoundError:
        return
    except UnsafeFileError as exc:  # a pipe or a device where the .tex goes: never read
        raise HandEditedError(f"{exc}; it is kept as is. Export to another directory with "
                              "-o DIR") from None
    if current == new_text:
        return
    recorded = read_record(tex_path.parent).get(tex_path.name)
    if recorded == sha256(current):
        return
    why = ("was edited by hand since the last export" if recorded else
           "was not written by mechnb (no export record)")
    raise HandEditedError(
        f"{tex_path} {why}; it is kept as is. Re-run with --force to overwrite it, or export "
        f"to another directory with -o DIR")


def write_export(out_dir: Path, tex_name: str, tex: str, files: Mapping[str, bytes],
                 force: bool = False) -> Path:
    """Write the ``.tex``, its resources and the export record; returns the ``.tex`` path."""
    tex_path = out_dir / tex_name
    data = tex.encode("utf-8")
    check_overwrite(tex_path, data, force)
    for rel, blob in files.items():
        target = inside(out_dir, rel)
        try:
            if (stat.S_ISREG(os.lstat(target).st_mode) and target.stat().st_size == len(blob)
                    and read_regular(target) == blob):
                continue
        except OSError:
            pass
        atomic_write(target, blob)
    atomic_write(tex_path, data)
    sidecar = read_sidecar(out_dir)
    record = read_record(out_dir)
    record[tex_name] = sha256(data)
    write_sidecar(out_dir, {**sidecar, "tex": record})
    return tex_path
