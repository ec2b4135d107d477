"""TeX comments: an unescaped ``%`` to the end of its line (shared by the checker and the
LaTeX reader)."""

from __future__ import annotations

import re


def comment_start(text: str, pos: int) -> int | None:
    """Offset of the ``%`` that comments out ``pos`` (an unescaped ``%`` earlier on its line)."""
    line_start = text.rfind("\n", 0, pos) + 1
    k = line_start
    while True:
        k = text.find("%", k, pos)
        if k < 0:
            return None
        backslashes = 0
        j = k - 1
        while j >= line_start and text[j] == "\\":
            backslashes += 1
            j -= 1
        if backslashes % 2 == 0:
            return k
        k += 1


_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")


def comment_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every comment: an unescaped ``%`` to the end of its line."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _PERCENT.search(text, pos)
        if m is None:
            return spans
        start = m.end() - 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        spans.append((start, end))
        pos = end


def mask_comments(text: str) -> str:
    """``text`` with every comment blanked to spaces (offsets unchanged)."""
    parts: list[str] = []
    cursor = 0
    for start, end in comment_spans(text):
        parts.append(text[cursor:start])
        parts.append(" " * (end - start))
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
