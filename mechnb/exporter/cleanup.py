"""Stale build files: what an earlier build or an earlier name of the notebook left behind.

After a successful export into the default ``build/<stem>/``:

* the bundle check logs (``<stem>-arxiv-check.log``, ``<stem>-overleaf-check.log``) of a bundle
  that now builds are removed (``bundle._write_checked`` does it when the bundle passes);
* a sibling ``build/<old stem>/`` made for this same notebook under its old name (renamed in
  JupyterLab, or with ``mv``) is removed — only when its record (``.mechnb-export.json``)
  names a notebook that is gone from the folder, the record's cell ids are mostly this
  notebook's, and every file in it is one mechnb wrote: the ``.tex`` with its recorded hash,
  the resources it recorded, and the outputs it names (PDF, log, bundles, check logs, its
  records). Anything else in the folder (a hand-edited ``.tex``, a file someone put there)
  keeps the whole folder.

The server calls :func:`remove_stale_build` when the contents API renames a notebook.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path

from .context import CACHE_FILE
from .writer import SIDECAR, read_sidecar, write_sidecar

RECORDED_CELL_IDS = 1000
"""At most this many cell ids are kept in the export record (enough to recognise a rename)."""
_OUTPUT_SUFFIXES = re.compile(r"(?:\.pdf|\.log|\.synctex\.gz|-arxiv\.tar\.gz|-overleaf\.zip"
                              r"|-(?:arxiv|overleaf)-check\.log)\Z")


def _sha256(path: Path) -> str | None:
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def remember_source(out_dir: Path, notebook: Path, cell_ids: Iterable[str | None],
                    resources: Iterable[str]) -> None:
    """Record in ``out_dir``'s export record which notebook it was built from, its cell ids and
    the hashes of the resource files written (what :func:`remove_stale_build` checks)."""
    sidecar = read_sidecar(out_dir)
    written = {}
    for rel in resources:
        digest = _sha256(out_dir / rel)
        if digest is not None:
            written[rel] = digest
    ids = [i for i in cell_ids if isinstance(i, str)][:RECORDED_CELL_IDS]
    write_sidecar(out_dir, {**sidecar, "notebook": notebook.name, "cell_ids": ids,
                            "resources": written})


def _only_mechnb_files(folder: Path, record: dict[str, object]) -> bool:
    """Every file under ``folder`` is one mechnb wrote and nobody changed since."""
    tex = record.get("tex") if isinstance(record.get("tex"), dict) else {}
    resources = record.get("resources") if isinstance(record.get("resources"), dict) else {}
    assert isinstance(tex, dict) and isinstance(resources, dict)
    stems = {Path(name).stem for name in tex}
    for root, dirs, names in os.walk(folder, followlinks=False):
        for d in dirs:
            if os.path.islink(os.path.join(root, d)):
                return False
        for name in names:
            path = Path(root) / name
            rel = path.relative_to(folder).as_posix()
            if rel in (SIDECAR, CACHE_FILE):
                continue
            if rel in tex:
                if _sha256(path) != tex[rel]:
                    return False  # edited by hand: never removed
                continue
            if rel in resources:
                if _sha256(path) != resources[rel]:
                    return False
                continue
            m = _OUTPUT_SUFFIXES.search(rel)
            if m and "/" not in rel and rel[:m.start()] in stems and not os.path.islink(path):
                continue  # the PDF, log and bundles compiled from that .tex
            return False
    return True


def remove_stale_build(folder: Path, *, current_ids: set[str] | None = None) -> bool:
    """Remove ``folder`` (a ``build/<stem>/``) when its notebook is gone and only mechnb's own
    files are in it; with ``current_ids``, only if most recorded cell ids are among them (the
    same notebook, renamed). Returns whether it was removed."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return False
    except OSError:
        return False
    record = read_sidecar(folder)
    name = record.get("notebook")
    if not isinstance(name, str) or not name or "/" in name:
        return False
    base = folder.parent.parent  # build/<stem>/ sits in the notebook's folder
    if (base / name).exists():
        return False
    if current_ids is not None:
        recorded = {i for i in record.get("cell_ids", []) if isinstance(i, str)}
        if not recorded or 2 * len(recorded & current_ids) < len(recorded):
            return False
    if not _only_mechnb_files(folder, record):
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return not folder.exists()


def clean_after_build(out_dir: Path, cell_ids: Iterable[str | None]) -> list[Path]:
    """After a successful build in ``out_dir`` (``build/<stem>/``): the sibling build folders
    of this notebook under an earlier name, removed. Returns the folders removed."""
    build = out_dir.parent
    if build.name != "build":
        return []
    ids = {i for i in cell_ids if isinstance(i, str)}
    if not ids:
        return []
    removed = []
    try:
        siblings = sorted(p for p in build.iterdir() if p != out_dir)
    except OSError:
        return []
    for folder in siblings:
        if remove_stale_build(folder, current_ids=ids):
            removed.append(folder)
    return removed
