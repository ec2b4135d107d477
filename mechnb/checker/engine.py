"""MECH040: characters pdfLaTeX cannot typeset, found in the notebook text before any export.

Applies when the paper compiles with pdfLaTeX (``metadata.mechnb.engine``, else English papers).
A character is reported when the exporter's escaping leaves it as it is and pdfLaTeX's inputenc
has no definition for it (an emoji, a dingbat, Hebrew…); CJK is typeset by ctex. The exporter
checks the rendered ``.tex`` again (MECH825), which also covers outputs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from ..notebook import CJK_RE, HANGUL_RE
from ..tex.escape import pdflatex_lacks
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule


CHARACTERS_PER_CELL = 3
"""Characters of one cell reported one by one; the rest share one finding (as MECH825)."""


def _typesettable(char: str) -> bool:
    return (char.isascii() or (CJK_RE.match(char) is not None and not HANGUL_RE.match(char))
            or "\u3000" <= char <= "\u303f" or not pdflatex_lacks(char))


def check_pdflatex_characters(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Every character of exported text pdfLaTeX would stop at, once per cell."""
    if doc.paper.engine != "pdflatex":
        return
    pieces: list[tuple[int | None, int | None, str]] = []
    if doc.paper.meta.title:
        pieces.append((None, None, doc.paper.meta.title))
    for c in doc.cells:
        if not doc.exported(c):
            continue
        if c.is_markdown:
            pieces.append((c.index, 0, c.source))
        pieces += [(c.index, None, t) for t in doc.metadata_texts(c)]
    seen: set[tuple[int | None, str]] = set()
    rest: dict[int | None, list[tuple[int | None, str]]] = {}  # past the first few of a cell
    for cell, base, text in pieces:
        if text.isascii():
            continue
        for n, char in enumerate(text):
            if (cell, char) in seen or _typesettable(char):
                continue
            seen.add((cell, char))
            if sum(1 for c, _ in seen if c == cell) > CHARACTERS_PER_CELL:
                rest.setdefault(cell, []).append((None if base is None else base + n, char))
                continue
            yield rule.at(doc, f"pdfLaTeX cannot typeset {char!r} (U+{ord(char):04X}), and arXiv "
                               "and most venue styles compile with pdfLaTeX: replace it or write "
                               "it as a LaTeX command (or set metadata.mechnb.engine to xelatex)",
                          cell, None if base is None else base + n,
                          labels=(f"U+{ord(char):04X}",))
    for cell, more in rest.items():  # a Korean notebook: a few, then one line for the rest
        listed = "".join(c for _, c in more[:20]) + ("…" if len(more) > 20 else "")
        yield rule.at(doc, f"pdfLaTeX cannot typeset {len(more)} more character"
                           f"{'s' if len(more) > 1 else ''} of this cell either ({listed})",
                      cell, more[0][0], labels=(f"U+{ord(more[0][1]):04X}",))
