"""Writing files so that a crash or a full disk never leaves a half-written one behind, and
sealing the records mechnb keeps beside its outputs."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path

_UMASK = os.umask(0o022)
os.umask(_UMASK)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``.

    The directory must exist; ``OSError`` is raised (and the temporary file removed) otherwise.
    """
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp",
                               dir=path.parent if str(path.parent) else ".")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp creates 0600; written files follow the umask
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mechnb"


def notebook_cache_dir(kind: str, notebook: str | os.PathLike[str]) -> Path:
    """``$XDG_CACHE_HOME/mechnb/<kind>/<hash of the notebook's resolved path>/`` (created, mode
    0700): what mechnb keeps about one notebook for this user, never beside the notebook."""
    key = hashlib.sha256(str(Path(notebook).resolve()).encode("utf-8")).hexdigest()[:32]
    folder = _cache_home() / kind / key
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def local_key() -> bytes | None:
    """This user's secret for sealing records kept in output directories (created once, 0600,
    in ``$XDG_CACHE_HOME/mechnb/``); ``None`` when it cannot be read or created."""
    path = _cache_home() / "record-key"
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                key = fh.read(64)
            return key if len(key) == 32 else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        # The key is written whole under a temporary name and then linked into place: a process
        # reading it at the same moment (two exports at once) sees all 32 bytes or no file.
        tmp = None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".record-key.", dir=path.parent)  # mode 0600
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(32))
            os.link(tmp, path)
        except FileExistsError:
            continue  # another process created it meanwhile: read that one
        except OSError:
            return None
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
    return None


def seal(data: bytes) -> str | None:
    """HMAC-SHA256 of ``data`` under ``local_key()``: a record in a shared or received folder
    is trusted only if this user's mechnb wrote it. ``None`` without a key."""
    key = local_key()
    return hmac.new(key, data, hashlib.sha256).hexdigest() if key else None


def is_sealed(data: bytes, mac: object) -> bool:
    """Whether ``mac`` is this user's seal of ``data``."""
    expected = seal(data)
    return isinstance(mac, str) and expected is not None and hmac.compare_digest(expected, mac)
