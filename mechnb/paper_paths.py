"""Files a notebook names (images, the .bib, a template) must lie inside the notebook's folder.

A notebook is data anyone can send; the paths it names are resolved the way the operating system
would open them (``..`` and symlinks followed) and refused when they lead outside its folder, so
an export never copies ``/etc/passwd`` or ``../../secret.pdf`` into ``build/`` or the PDF.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def resolve_in_folder(folder: Path | None, name: str) -> tuple[Path | None, str | None]:
    """``(path, None)`` when ``name`` (relative to ``folder``) lies inside it, else ``(None, why)``.

    ``folder`` None means the current directory (a notebook built from a dict). ``why`` is a
    phrase that completes "… `name` …": ``lies outside the notebook's folder`` or
    ``is not a valid path (…)``.
    """
    if "\x00" in name:
        return None, "is not a valid path (it contains a NUL byte)"
    try:
        base = Path(os.path.realpath(folder if folder is not None else Path.cwd()))
        p = Path(name)
        if name.startswith("~"):
            p = p.expanduser()
        target = Path(os.path.realpath(base / p))  # an absolute name replaces base
    except (OSError, ValueError, RuntimeError) as exc:
        return None, f"is not a valid path ({exc})"
    if target != base and base not in target.parents:
        return None, (f"lies outside the notebook's folder ({target}); mechnb only uses files "
                      f"inside {base}")
    return target, None


def inside_folder(folder: Path | None, name: str) -> bool:
    """True if ``name`` resolves to a place inside ``folder``."""
    return resolve_in_folder(folder, name)[0] is not None


FILE_LIMIT = 64 * 1024 * 1024
"""Bytes mechnb reads of one file a notebook or paper names (``$MECHNB_FILE_LIMIT`` overrides):
a larger file is refused unread, never loaded into memory."""


class UnsafeFileError(OSError):
    """A file that is not a regular file (a FIFO, a device, a folder) or is too large."""


def file_limit() -> int:
    """``$MECHNB_FILE_LIMIT`` bytes, else ``FILE_LIMIT``."""
    raw = os.environ.get("MECHNB_FILE_LIMIT", "").strip()
    try:
        value = int(raw) if raw else FILE_LIMIT
    except ValueError:
        value = FILE_LIMIT
    return value if value > 0 else FILE_LIMIT


@contextlib.contextmanager
def open_regular(path: Path, *, follow: bool = True) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """``path`` opened for reading with its ``fstat``, when it is a regular file.

    Opened with ``O_NONBLOCK`` (a FIFO or a device never blocks the opener) and checked with
    ``fstat`` on the open descriptor (a file swapped after a check is still the one read);
    ``follow=False`` also refuses a symlink (``O_NOFOLLOW``). Raises ``OSError``
    (``UnsafeFileError`` for what is not a regular file).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    with os.fdopen(os.open(path, flags), "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(f"{path} is not a regular file (a pipe, device or folder); "
                                  "not read")
        yield fh, info


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes
    (``open_regular``), read in bounded chunks. Raises ``UnsafeFileError`` (an ``OSError``) for
    anything else."""
    limit = file_limit() if limit is None else limit
    with open_regular(path) as (fh, info):
        if info.st_size > limit:
            raise UnsafeFileError(f"{path} has {info.st_size} bytes, more than mechnb reads "
                                  f"({limit}; MECHNB_FILE_LIMIT); not read")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = fh.read(min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnsafeFileError(f"{path} grew past {limit} bytes while read; not read")
        return b"".join(chunks)


def read_confined(folder: Path | None, name: str, limit: int | None = None
                  ) -> tuple[Path | None, bytes | None, str | None]:
    """``(path, bytes, None)`` for a regular file ``name`` inside ``folder`` (symlinks resolved
    first, then confined), else ``(path or None, None, why)``: the one way mechnb reads a file a
    notebook or a paper names, before any sandbox."""
    path, why = resolve_in_folder(folder, name)
    if path is None:
        return None, None, why
    try:
        return path, read_regular(path, limit), None
    except UnsafeFileError as exc:
        return path, None, str(exc)
    except OSError as exc:
        return path, None, f"cannot be read ({exc.strerror or exc})"
