"""The moves of a paper: its ``abstract`` cell sentence by sentence, its introduction by paragraph.

The introduction is the run of markdown cells that starts at the first narrative cell
(``context``, ``prior``, ``gap``, ``lens``, ``question``, ``contributions``) or at an
"Introduction"/"引言" heading, and ends at the next cell of another role, a code cell, or a
cell that opens a new section. A cell with one of those roles makes its role's move; the
paragraphs of cells without a role are read by the analyser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..notebook import Cell, Paper
from .analyser import Analysis, analyse, move_order, normalise

INTRO_MOVES = ("context", "prior", "gap", "lens", "key-step", "contributions")
"""The introduction's paragraph moves, in their usual order."""
INTRO_REQUIRED = ("context", "gap", "lens", "contributions")
_OPENING_WORDS = 25
"""A paragraph this long (words; or four times as many characters, for Chinese) can open an
introduction with context."""
"""Moves an introduction should make (``prior`` and ``key-step`` are welcome, not required)."""
INTRO_ROLES = frozenset({"context", "prior", "gap", "lens", "question", "contributions"})
ROLE_MOVES = {"context": "context", "prior": "prior", "gap": "gap", "lens": "lens",
              "contributions": "contributions"}
_INTRO_HEADING = re.compile(
    r"(?im)^[ \t]{0,3}#{1,3}[ \t]+(?:\d+\.?\s*)?(?:introduction|引言|绪论|介绍)\b")
_HEADING = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]")
_HEADING_LEVEL = re.compile(r"(#{1,6})[ \t]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$(])|(?<=[。！？])")
_FIRST_PERSON = re.compile(r"(?i)\b(?:we|our|us|this (?:paper|work|thesis))\b|本文|我们|笔者")
_HEADING_LINE = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t][^\n]*$")
_PRIOR = re.compile(r"\bcite\b|\b(?:prior|previous|earlier|existing|recent) "
                    r"(?:work|studies|analyses|research)\b|\bhas been (?:shown|proposed|observed)\b"
                    r"|已有|此前|先前|以往|前人")
_LENS = re.compile(
    r"\blens\b|\bperspective\b|\bviewpoint\b|\bview (?:\w+ ){0,3}as\b|视角|角度")
_KEY_STEP = re.compile(r"\bkey (?:step|idea|observation|lemma)\b|\btechnical (?:core|heart)\b|"
                       r"\bmain (?:difficulty|obstacle|idea)\b|\bcrux\b|\brests on\b"
                       r"|技术核心|关键(?:一步|步骤|观察|引理)|主要困难")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of the introduction and the moves it makes."""

    cell: int
    """Index of the cell it is in."""
    offset: int
    """Offset of the paragraph in the cell source."""
    role: str | None
    moves: tuple[str, ...]
    """Introduction moves (``INTRO_MOVES``), strongest first."""
    text: str

    @property
    def main(self) -> str | None:
        """The paragraph's main move."""
        return self.moves[0] if self.moves else None

    def to_json(self) -> dict[str, Any]:
        """``{"cell", "role", "moves", "text"}``."""
        return {"cell": self.cell, "role": self.role, "moves": list(self.moves),
                "text": self.text}


@dataclass(frozen=True)
class Introduction:
    """The introduction's paragraphs, the moves it lacks and where they are out of order."""

    paragraphs: tuple[Paragraph, ...]
    missing: tuple[str, ...]
    order: tuple[str, ...]
    out_of_order: tuple[tuple[str, str, int], ...]
    """``(move, came_after, paragraph index)``."""

    def to_json(self) -> dict[str, Any]:
        """``{"paragraphs", "missing", "order"}``."""
        return {"paragraphs": [p.to_json() for p in self.paragraphs],
                "missing": list(self.missing), "order": list(self.order)}


@dataclass(frozen=True)
class PaperMoves:
    """The move analysis of a notebook: its abstract and its introduction (either may be absent)."""

    abstract_cell: Cell | None
    abstract: Analysis | None
    introduction: Introduction | None

    def to_json(self) -> dict[str, Any]:
        """The abstract's ``{"sentences", "missing", "order"}``, plus ``"introduction"``."""
        out: dict[str, Any] = (self.abstract.to_json() if self.abstract is not None
                               else {"sentences": [], "missing": [], "order": []})
        if self.introduction is not None:
            out["introduction"] = self.introduction.to_json()
        return out


@lru_cache(maxsize=256)
def cached_analysis(text: str, lang: str | None, method: str = "learned") -> Analysis:
    """``analyse`` memoised: the checker's rules and views share one analysis per text."""
    return analyse(text, lang, method)


def abstract_cell(paper: Paper) -> Cell | None:
    """The first markdown ``abstract`` cell that says something."""
    return next((c for c in paper.cells
                 if c.role == "abstract" and c.is_markdown and c.source.strip()), None)


def introduction_cells(paper: Paper) -> list[Cell]:
    """The cells of the introduction (empty when the paper has none)."""
    start = next((c.index for c in paper.cells if c.is_markdown and (
        c.role in INTRO_ROLES or (c.role is None and _INTRO_HEADING.search(c.source)))), None)
    if start is None:
        return []
    cells: list[Cell] = []
    level = heading_level(paper.cells[start].source) or 1
    for c in paper.cells[start:]:
        if c.role == "note" or (not c.is_markdown and c.role in (None, "figure")):
            continue  # a paragraph kept as raw LaTeX, or a figure, does not end it
        if not c.is_markdown or (c.role is not None and c.role not in INTRO_ROLES):
            break
        if cells and c.role is None and _HEADING.search(c.source) and \
                (heading_level(c.source) or 1) <= level:
            break  # an untyped cell opening a new section ends the introduction (its
            # subsections, as in a thesis's first chapter, are part of it)
        cells.append(c)
    return cells


def heading_level(source: str) -> int | None:
    """The level of the markdown heading ``source`` opens with (``## …`` → 2), or None."""
    m = _HEADING_LEVEL.match(source.lstrip())
    return len(m.group(1)) if m else None


def _untyped_moves(text: str, lang: str | None, method: str) -> tuple[str, ...]:
    analysis = cached_analysis(text, lang, method)
    norm = normalise(text)
    scores: dict[str, float] = {}
    for s in analysis.sentences:
        for cue in s.cues:
            move: str | None = None
            if cue.move == "context":
                move = "prior" if _PRIOR.search(normalise(s.text)) else "context"
            elif cue.move == "gap":
                move = "gap"
            elif cue.move == "contribution":
                move = "lens" if _LENS.search(normalise(s.text)) else "contributions"
            elif cue.move == "mechanism" and _KEY_STEP.search(norm):
                move = "key-step"
            elif cue.move == "validation":
                move = "contributions"
            if move is not None:
                scores[move] = scores.get(move, 0.0) + cue.score
    return tuple(sorted(scores, key=lambda m: (-scores[m], INTRO_MOVES.index(m))))


def _paragraphs(cell: Cell, lang: str | None, method: str) -> list[Paragraph]:
    if cell.role is not None:
        move = ROLE_MOVES.get(cell.role) if cell.source.strip() else None
        text = " ".join(_HEADING_LINE.sub("", cell.source).split())
        return [Paragraph(cell.index, 0, cell.role, (move,) if move else (), text)]
    out: list[Paragraph] = []
    pos = 0
    for piece in _PARAGRAPH.split(cell.source):
        at = cell.source.find(piece, pos)
        pos = at + len(piece)
        body = _HEADING_LINE.sub("", piece).strip()
        if not body:
            continue
        out.append(Paragraph(cell.index, max(at, 0), None, _untyped_moves(body, lang, method),
                             " ".join(body.split())))
    return out


def analyse_introduction(paper: Paper, lang: str | None = None, method: str = "learned"
                         ) -> Introduction | None:
    """The introduction's paragraph moves, or ``None`` when the paper has no introduction."""
    cells = introduction_cells(paper)
    if not cells:
        return None
    paragraphs = [p for c in cells for p in _paragraphs(c, lang, method)]
    made = {m for p in paragraphs for m in p.moves}
    opening = next((p for p in paragraphs if len(p.text.split()) >= _OPENING_WORDS
                    or len(p.text) >= 4 * _OPENING_WORDS), None)
    if opening is not None and (opening.main in (None, "context", "prior")
                                or not _FIRST_PERSON.search(_SENTENCE.split(opening.text)[0])):
        made.add("context")  # an introduction opens with context: its first real paragraph,
        # unless it opens speaking of "we" / "this paper" (the gap, lens, contributions)
    missing = tuple(m for m in INTRO_REQUIRED if m not in made)
    order, late = move_order([p.main for p in paragraphs], INTRO_MOVES)
    return Introduction(tuple(paragraphs), missing, order, late)


def analyse_paper(paper: Paper, lang: str | None = None, method: str = "learned") -> PaperMoves:
    """The abstract's and the introduction's moves (``lang`` defaults to the paper's;
    ``method`` as for ``analyse``)."""
    lang = lang or paper.lang
    cell = abstract_cell(paper)
    abstract = cached_analysis(cell.source, lang, method) if cell is not None else None
    return PaperMoves(cell, abstract, analyse_introduction(paper, lang, method))
