"""TeX comments: an unescaped ``%`` to the end of its line (shared by the checker and the
LaTeX reader)."""

from __future__ import annotations

import re


def comment_start(text: str, pos: int) -> int | None:
    """Offset of the ``%`` that comments out ``pos`` (an unescaped ``%`` earlier on its line)."""
    line_start = text.rfind("\n", 0, pos) + 1
    k = line_start
    literal: list[tuple[int, int]] | None = None
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
            if literal is None:
                line = text[line_start:pos]
                literal = ([(a + line_start, b + line_start) for a, b in literal_spans(line)]
                           if ("\\url" in line or "\\href" in line) else [])
            if not any(a <= k < b for a, b in literal):
                return k
        k += 1


_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")


_URL = re.compile(r"(?<!\\)((?:\\\\)*)\\(?:url|href)(?![A-Za-z@])[ \t]*\{"
                  r"((?:[^{}\n]|\{[^{}\n]*\})*)\}")


def literal_spans(text: str) -> list[tuple[int, int]]:
    """The targets of ``\\url{…}`` and ``\\href{…}``, which the url package reads literally
    (a ``%`` there is part of the address, as in ``%D0%A3``): on one line, braces balanced one
    level deep (a linear scan: a run of ``\\url{`` stays cheap)."""
    return [(m.start(2), m.end(2)) for m in _URL.finditer(text)]


def comment_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of every comment: an unescaped ``%`` to the end of its line (not one
    inside a ``\\url``/``\\href`` target, which the url package reads literally)."""
    spans: list[tuple[int, int]] = []
    literal = literal_spans(text) if ("\\url" in text or "\\href" in text) else []
    k = 0
    pos = 0
    while True:
        m = _PERCENT.search(text, pos)
        if m is None:
            return spans
        start = m.end() - 1
        while k < len(literal) and literal[k][1] <= start:
            k += 1
        if k < len(literal) and literal[k][0] <= start:
            pos = literal[k][1]
            continue
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
