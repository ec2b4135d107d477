"""Cell markers in an exported ``.tex`` (DESIGN §2a): ``% mechnb:cell <id>`` before each cell's
text, ``#<0-based index>`` for a cell without an id (nbformat before 4.5) or with a duplicate
id. TeX errors, SyncTeX jumps and LaTeX-to-notebook updates find their cell by the marker above
them: by id first, then by index, so they survive moved cells."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

MARKER = "% mechnb:cell "
MARKER_RE = re.compile(r"^% mechnb:cell (\S+)\s*$")
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _HasId(Protocol):
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str | None: ...


def cell_tokens(cells: Iterable[_HasId]) -> dict[int, str]:
    """Cell index → the token its marker carries."""
    cells = list(cells)
    counts = Counter(c.id for c in cells if c.id)
    return {c.index: c.id if c.id and counts[c.id] == 1 and _ID.fullmatch(c.id)
            else f"#{c.index}" for c in cells}


def token_index(cells: Iterable[_HasId]) -> dict[str, int]:
    """Marker token → cell index (ids, and ``#<index>`` for every cell)."""
    cells = list(cells)
    out = {f"#{c.index}": c.index for c in cells}
    out.update({token: index for index, token in cell_tokens(cells).items()})
    return out


def resolve(token: str, tokens: Mapping[str, int]) -> int | None:
    """The cell a marker token names (id first, then ``#index``)."""
    if token in tokens:
        return tokens[token]
    if token.startswith("#") and token[1:].isdigit():
        return int(token[1:])
    return None


def line_cells(tex: str, tokens: Mapping[str, int] | None = None) -> tuple[int | None, ...]:
    """For each line of ``tex``, the cell of the nearest marker above it (``None`` outside)."""
    tokens = tokens or {}
    cells: list[int | None] = []
    current: int | None = None
    for line in tex.split("\n"):
        if line.startswith(MARKER):
            m = MARKER_RE.match(line)
            if m:
                current = resolve(m.group(1), tokens)
        elif line.startswith("\\end{document}") or line.startswith("\\bibliography") or \
                (line.startswith("\\input{") and line.rstrip().endswith(".bbl}")):
            current = None
        cells.append(current)
    return tuple(cells)


@dataclass(frozen=True)
class Segment:
    """The text of one cell in a ``.tex``: the lines after its marker, up to the next one."""

    token: str
    start_line: int
    """1-based line of the first line after the marker."""
    text: str


def segments(tex: str) -> list[Segment]:
    """Every marked cell's text, in order (the body's end and the bibliography end the last)."""
    out: list[Segment] = []
    token: str | None = None
    start = 0
    lines: list[str] = []
    for n, line in enumerate(tex.split("\n"), 1):
        m = MARKER_RE.match(line) if line.startswith(MARKER) else None
        ends = line.startswith(("\\end{document}", "\\bibliographystyle", "\\bibliography{",
                                "\\appendix")) or (line.startswith("\\input{") and
                                                   line.rstrip().endswith(".bbl}"))
        if m or ends:
            if token is not None:
                out.append(Segment(token, start, "\n".join(lines)))
            token = m.group(1) if m else None
            start, lines = n + 1, []
        elif token is not None:
            lines.append(line)
    if token is not None:
        out.append(Segment(token, start, "\n".join(lines)))
    return out
