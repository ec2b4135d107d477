"""Reading prose for the substance rules (``substance.py``, ``claims.py``): what to set aside
before the words are read, and how a wording pattern of the data files is compiled."""

from __future__ import annotations

import re

from .document import CITE_COMMANDS

CITE = re.compile(r"\\(?:" + "|".join(CITE_COMMANDS) + r")\*?(?:\[[^\[\]]*\]){0,2}\{[^{}]*\}")
"""A LaTeX citation: ``\\citep[p.~2]{key}``."""
PANDOC_CITE = re.compile(r"\[[^\[\]\n]*@[^\[\]\n]*\]")
"""A pandoc citation: ``[@key; see @other]``."""
HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?$")
URL = re.compile(r"\]\([^()\s]*\)|<https?://[^>\s]*>|https?://\S+")
"""A link target or a bare URL."""
LABEL = re.compile(r"\\label\{([^{}]*)\}")


def blank(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` turned into spaces (line breaks kept: offsets hold)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def blank_all(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with every match of ``pattern`` turned into spaces (line breaks kept)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def wording_pattern(body: str, lang: str) -> re.Pattern[str]:
    """A wording pattern of ``data/checks/*.json``, case-insensitive; an English one matches
    whole words only."""
    if lang == "en":
        body = r"(?<![A-Za-z])(?:" + body + r")(?![A-Za-z])"
    return re.compile(body, re.IGNORECASE)
