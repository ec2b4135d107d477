"""Rules about the prose's moves: does the abstract (and the introduction) make each of them,
in the usual order? The analysis itself is ``mechnb.moves`` (rule-based, stdlib only)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from ..roles import with_obligation
from .document import Document

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..moves.analyser import Analysis
    from ..moves.paper import Paragraph
    from ..notebook import Cell
    from .rule import Rule


def _abstract(doc: Document) -> tuple[Cell, Analysis] | None:
    from ..moves.paper import abstract_cell, cached_analysis

    cell = abstract_cell(doc.paper)
    if cell is None:
        return None
    return cell, cached_analysis(cell.source, doc.paper.lang)


INTRO_SUGGEST = {"context": "introduction/raise-problem", "gap": "introduction/gap",
                 "lens": "introduction/lens", "contributions": "introduction/contributions"}
"""Phrase functions suggested for a missing introduction move."""


def _suggest(move: str, lang: str, function: str | None = None) -> str:
    from ..moves.cues import load_lexicon, suggestions

    found = suggestions(move, lang, limit=1, function=function)
    function = function or load_lexicon().suggest_functions.get(move, "")
    if not found:
        return ""
    return (f"; e.g. “{found[0]['text']}” (more: `mechnb phrases --function {function}`)")


def check_abstract_moves(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The abstract makes every move: context, gap, contribution, mechanism, validation,
    implication. Only the moves the analyser is sure are absent are reported (``Analysis.missing``:
    no sentence has even a weak cue for it and, in English, none comes near the learned layer's
    bound); a move no sentence clearly makes but one might (``Analysis.unsure``) is not."""
    from ..moves.view import purpose

    found = _abstract(doc)
    if found is None:
        return
    cell, analysis = found
    lang = doc.paper.lang
    templated = [m for m in analysis.missing if m in analysis.templated]
    if len(templated) > 1:  # a scaffold's abstract: one line, not one per move
        yield rule.at(doc, f"the abstract makes no {', '.join(templated)} move yet: its "
                           "sentences still have template slots to fill in (phrases for each "
                           "move: `mechnb phrases --function abstract`)", cell.index)
    for move in analysis.missing:
        if len(templated) > 1 and move in templated:
            continue
        if move in analysis.templated:
            why = "its sentence still has template slots to fill in"
        else:
            why = analysis.weak_note(move) or "no sentence makes it or comes close"
        yield rule.at(doc, f"the abstract has no {move} move ({purpose(move, 'en')}): {why}"
                           f"{_suggest(move, lang)}", cell.index)


def check_abstract_order(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The abstract's moves come in the usual order."""
    found = _abstract(doc)
    if found is None:
        return
    cell, analysis = found
    for move, after, idx in analysis.out_of_order:
        sentence = analysis.sentences[idx].sentence
        yield rule.at(doc, f"the {move} (sentence {idx + 1}) comes after the {after}; abstracts "
                           f"usually go {' → '.join(analysis.moves)}", cell.index,
                      sentence.start)


def _reported_elsewhere(doc: Document, move: str) -> bool:
    """A move whose role is absent from the whole paper is reported by MECH001 / MECH027."""
    role = {"contributions": "contributions", "gap": "gap", "lens": "lens"}.get(move)
    if role is None or role in doc.roles_present():
        return False
    required = {r.name for r in with_obligation("paper-requires")} | {"contributions"}
    return role in required


def _notebook(doc: Document) -> bool:
    """A notebook paper (mechnb's own genre), not LaTeX input (which has no code cells)."""
    return any(c.cell_type == "code" for c in doc.cells)


def _owes_lens(doc: Document) -> bool:
    """A notebook paper (mechnb's own genre) or a paper about a mechanism in
    Transformers / LLMs (``domain.mechanism_paper``) owes a lens; a LaTeX paper on another
    subject does not."""
    from .domain import mechanism_paper

    return _notebook(doc) or mechanism_paper(doc.paper)


def _context_in_prior(doc: Document, paragraphs: Sequence[Paragraph]) -> bool:
    """In a LaTeX paper, a paragraph on what prior work has observed is the introduction's
    context, wherever it stands ("Herein we introduce …", then "Recent work has shown …"); a
    notebook keeps its `context` and `prior` cells apart, as its template asks."""
    return not _notebook(doc) and any("prior" in p.moves for p in paragraphs)


def check_introduction_moves(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The introduction opens with context and states the gap, the lens and the contributions."""
    from ..moves.paper import analyse_introduction, introduction_cells
    from ..moves.view import purpose

    intro = analyse_introduction(doc.paper, doc.paper.lang)
    if intro is None:
        return
    first = introduction_cells(doc.paper)[0]
    for move in intro.missing:
        if _reported_elsewhere(doc, move):
            continue
        if move == "lens" and not _owes_lens(doc):
            continue  # the lens is a move of mechanism papers about Transformers / LLMs
        if move == "context" and _context_in_prior(doc, intro.paragraphs):
            continue
        role = "" if move == "key-step" else f" (a `{move}` cell, `%mech {move}`)"
        yield rule.at(doc, f"the introduction has no {move} paragraph ({purpose(move, 'en')})"
                           f"{role}{_suggest(move, doc.paper.lang, INTRO_SUGGEST.get(move))}",
                      first.index)


def check_introduction_order(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The introduction's paragraphs follow context → prior → gap → lens → key step →
    contributions."""
    from ..moves.paper import INTRO_MOVES, analyse_introduction

    intro = analyse_introduction(doc.paper, doc.paper.lang)
    if intro is None:
        return
    for move, after, idx in intro.out_of_order:
        p = intro.paragraphs[idx]
        yield rule.at(doc, f"the {move} paragraph comes after the {after}; introductions usually "
                           f"go {' → '.join(INTRO_MOVES)}", p.cell, p.offset if p.role is None
                      else None)
