"""The citation keys of a BibTeX file, read with one regular expression (no BibTeX parser)."""

from __future__ import annotations

import contextlib
import re
from functools import lru_cache
from pathlib import Path

from ..paper_paths import read_regular

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s{}()]+)\s*,")
_NOT_ENTRIES = frozenset({"comment", "string", "preamble"})


_BIBITEM = re.compile(r"\\bibitem\s*(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\s*\{([^{}\s]+)\}")


def bib_keys_from_text(text: str) -> frozenset[str]:
    """Every entry key in BibTeX ``text`` (``@string``/``@comment``/``@preamble`` skipped), or
    every ``\\bibitem`` key of a ``.bbl`` (a LaTeX paper may ship only that)."""
    keys = frozenset(m.group(2) for m in _ENTRY.finditer(text)
                     if m.group(1).lower() not in _NOT_ENTRIES)
    if "\\bibitem" in text:
        keys |= frozenset(m.group(1) for m in _BIBITEM.finditer(text))
    return keys


@lru_cache(maxsize=32)
def _cached(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    text = read_regular(Path(path)).decode("utf-8", errors="replace")
    return bib_keys_from_text(text)


def bib_keys(path: Path) -> frozenset[str]:
    """The keys of the .bib file at ``path`` (cached by modification time); raises ``OSError``,
    also for a FIFO, a device or a file larger than ``paper_paths.file_limit()`` (never read)."""
    stat = path.stat()
    return _cached(str(path), stat.st_mtime_ns, stat.st_size)


def bibliography_paths(value: str, notebook: Path | None) -> list[Path]:
    """The .bib files named by ``metadata.mechnb.bibliography`` (comma-separated), resolved."""
    base = notebook.parent if notebook is not None else Path.cwd()
    paths = []
    for part in value.split(","):
        name = part.strip()
        if not name:
            continue
        p = Path(name)
        with contextlib.suppress(RuntimeError):  # "~user" of an unknown user: keep it as is
            p = p.expanduser()
        if not p.suffix and p.name:
            p = p.with_suffix(".bib")
        paths.append(p if p.is_absolute() else base / p)
    return paths
