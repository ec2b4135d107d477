"""Split English and Chinese markdown prose into sentences, robust to math, citations and code.

Spans that may contain a full stop but never end a sentence (``$…$``, ``$$…$$``, ``\\(…\\)``,
``\\cite{…}``, ``[@key]``, inline code, URLs, abbreviations such as "e.g." or "et al.") are
masked first; boundaries are then searched in the masked text, so every sentence keeps its
offsets into the original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MASKED = re.compile(
    r"\$\$.*?\$\$"                      # display math
    r"|(?<!\\)\$(?:\\.|[^$\\])+?\$"     # inline math (\$ is a literal dollar)
    r"|\\\(.*?\\\)|\\\[.*?\\\]"         # \( … \)  \[ … \]
    r"|\\begin\{(?P<env>[A-Za-z*]+)\}.*?\\end\{(?P=env)\}"
    r"|\\[A-Za-z]+\*?(?:\[[^\]]*\])*\{[^{}]*\}"  # \cite{…}, \cref{…}, \textbf{…}
    r"|\[[^\[\]\n]*@[^\[\]\n]*\]"       # [@key; @other]
    r"|`[^`\n]*`"                        # inline code
    r"|https?://\S+",
    re.S)
_ABBREVIATIONS = re.compile(
    r"(?i)(?<![A-Za-z])(?:e\.g|i\.e|et al|cf|vs|resp|approx|fig|figs|eq|eqs|sec|secs|"
    r"tab|thm|lem|prop|def|cor|app|ch|no|nos|vol|pp|ref|refs|dr|mr|ms|prof|st|jr|al|"
    r"[A-Z])\.(?=[\s,;:)])")
"""An abbreviation's (or an initial's) full stop. ``etc.`` is not one: it mostly ends a list, and
with it the sentence; before a lower-case word or a comma it is no boundary anyway (see _ends)."""
_EN_END = re.compile(r"[.!?]+[\"'”’)\]*_]*(?=\s+|$)")
_ZH_END = re.compile(r"[。！？!?]+[”’」』）)*_]*|[.](?=\s*[\u3400-\u9fff])")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+[.)])[ \t]+)")
"""A blank line, or a new list item: sentences never run across these."""
_HEADING_LINE = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t][^\n]*$")
_LIST_MARK = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_SPACE = re.compile(r"\s+")
_CJK_BREAK = re.compile(
    r"(?<=[\u3000-\u9fff\uff00-\uffef])\s*\n\s*(?=[\u3000-\u9fff\uff00-\uffef])")
"""A line break inside Chinese text, which joins without a space."""
_CJK = re.compile(r"[\u3400-\u9fff]")
_LOWER_START = re.compile(r"\s*[a-z]")


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a text, with its place in the text."""

    text: str
    """The sentence, whitespace collapsed (markdown and math kept as written)."""
    start: int
    """Offset of its first character in the text it was split from."""
    end: int
    """Offset just after its last character."""
    paragraph: int
    """0-based paragraph (block) the sentence belongs to."""


def _mask(text: str) -> str:
    """``text`` with masked spans replaced by ``x`` of the same length (offsets unchanged)."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", "x", m.group(0))

    masked = _MASKED.sub(blank, text)
    masked = _HEADING_LINE.sub(lambda m: " " * len(m.group(0)), masked)
    return _ABBREVIATIONS.sub(lambda m: m.group(0)[:-1] + "x", masked)


def _ends(masked: str, start: int, end: int) -> list[int]:
    """Offsets just after each sentence end in ``masked[start:end]``."""
    out: list[int] = []
    chunk = masked[start:end]
    cuts = sorted({m.end() for m in _EN_END.finditer(chunk)} | {m.end() for m in
                                                                 _ZH_END.finditer(chunk)})
    for cut in cuts:
        # "… of a. b" style lower-case continuations are not sentence ends (unless CJK closed it)
        if chunk[cut - 1] in ".!?\"')]*_" and not _CJK.search(chunk[max(0, cut - 2):cut]) \
                and _LOWER_START.match(chunk, cut):
            continue
        out.append(start + cut)
    return out


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of markdown ``text`` in order (headings dropped, list items separate)."""
    masked = _mask(text)
    sentences: list[Sentence] = []
    blocks: list[tuple[int, int]] = []
    pos = 0
    for m in _BLOCK_BREAK.finditer(masked):
        blocks.append((pos, m.start()))
        pos = m.end() if m.group(0).count("\n") >= 2 else m.start() + 1
    blocks.append((pos, len(text)))
    paragraph = -1
    for b_start, b_end in blocks:
        if not masked[b_start:b_end].strip():
            continue
        paragraph += 1
        start = b_start
        for cut in [*_ends(masked, b_start, b_end), b_end]:
            seen = masked[start:cut]
            if seen.strip():
                lead = len(seen) - len(seen.lstrip())  # headings are masked as blanks
                mark = _LIST_MARK.match(text, start + lead)
                if mark:
                    lead = mark.end() - start
                body = text[start + lead:cut].rstrip()
                if body:
                    s = start + lead
                    flat = _SPACE.sub(" ", _CJK_BREAK.sub("", body)).strip()
                    sentences.append(Sentence(flat, s, s + len(body), paragraph))
            start = cut
    return sentences
