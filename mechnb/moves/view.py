"""Present a move analysis: plain text (optionally coloured), HTML for ``%mech moves``, JSON."""

from __future__ import annotations

from html import escape
from importlib import resources
from typing import Any

from .analyser import Analysis
from .cues import load_lexicon, suggestions
from .paper import Introduction, PaperMoves

ANSI = {"context": "36", "gap": "31", "contribution": "34", "mechanism": "35",
        "validation": "32", "implication": "33"}
"""Terminal colour per move (cyan, red, blue, magenta, green, yellow)."""


def purpose(move: str, lang: str) -> str:
    """What ``move`` says, in ``lang``."""
    entry = load_lexicon().purpose.get(move, {})
    return entry.get(lang) or entry.get("en") or move


def _mark(moves: tuple[str, ...], colour: bool) -> str:
    if not moves:
        return "[-]"
    if not colour:
        return "[" + ", ".join(moves) + "]"
    return "[" + ", ".join(f"\x1b[{ANSI.get(m, '0')}m{m}\x1b[0m" for m in moves) + "]"


def analysis_text(analysis: Analysis, *, colour: bool = False, title: str = "abstract") -> str:
    """One line per sentence with its moves and deciding cue, then the missing moves."""
    lines = [f"{title}: {len(analysis.sentences)} sentence(s)"]
    for i, s in enumerate(analysis.sentences, 1):
        cue = "; ".join(f"{c.move}: “{c.cue}”" if c.cue else f"{c.move}: {c.rule}"
                        for c in s.cues)
        lines.append(f"{i:>3} {_mark(s.moves, colour)} {s.text}")
        if cue:
            lines.append(f"      cues: {cue}")
        elif s.template:
            lines.append(f"      unfilled template slots (would be: {', '.join(s.template)})")
    lines.extend(missing_lines(analysis.missing, analysis.lang, analysis.templated,
                               {m: analysis.weak_note(m) for m in analysis.missing}))
    for move in analysis.unsure:
        lines.append(f"unsure: {move} — no sentence clearly makes it ({purpose(move, 'en')}); "
                     "not reported missing")
    for move, after, idx in analysis.out_of_order:
        lines.append(f"order: the {move} (sentence {idx + 1}) comes after the {after}; "
                     f"usually {' → '.join(analysis.moves)}")
    if not analysis.missing and not analysis.unsure:
        lines.append("every move is made")
    return "\n".join(lines)


def missing_lines(missing: tuple[str, ...], lang: str, templated: tuple[str, ...] = (),
                  weak: dict[str, str] | None = None) -> list[str]:
    """``missing: gap — what is still unknown …`` and up to two phrases to start from;
    ``weak``: per move, ``Analysis.weak_note`` (a sentence tagged with a move reported
    missing)."""
    lines: list[str] = []
    for move in missing:
        note = " (its sentence still has template slots)" if move in templated else ""
        if weak and weak.get(move):
            note += f" ({weak[move]})"
        lines.append(f"missing: {move} — {purpose(move, lang)}{note}")
        for p in suggestions(move, lang):
            lines.append(f"      try: {p['text']}  ({p['id']})")
    return lines


def introduction_text(intro: Introduction, lang: str) -> str:
    """One line per introduction paragraph, then the missing moves and order notes."""
    lines = [f"introduction: {len(intro.paragraphs)} paragraph(s)"]
    for p in intro.paragraphs:
        how = f"role {p.role}" if p.role else "read"
        text = p.text if len(p.text) <= 90 else p.text[:87] + "…"
        lines.append(f"  cell {p.cell + 1:>3} [{', '.join(p.moves) or '-'}] ({how}) {text}")
    lines.extend(missing_lines(intro.missing, lang))
    for move, after, _ in intro.out_of_order:
        lines.append(f"order: the {move} paragraph comes after the {after}")
    return "\n".join(lines)


def paper_text(result: PaperMoves, lang: str, *, colour: bool = False) -> str:
    """The text report for a notebook: abstract, then introduction."""
    parts = []
    if result.abstract is not None:
        parts.append(analysis_text(result.abstract, colour=colour))
    else:
        parts.append("abstract: none (add one with `%mech abstract`)")
    if result.introduction is not None:
        parts.append(introduction_text(result.introduction, lang))
    return "\n\n".join(parts)


def _css() -> str:
    return resources.files("mechnb").joinpath("moves/moves.css").read_text("utf-8")


def analysis_html(analysis: Analysis) -> str:
    """The abstract with each sentence highlighted by its moves, and the missing moves.

    Every piece of text is escaped; sentences are excluded from MathJax processing only through
    the escaping (the raw ``$…$`` stays visible as typed).
    """
    lang = analysis.lang
    legend = "".join(f'<span class="mechnb-move mechnb-move-{m}">{escape(m)}</span>'
                     for m in analysis.moves)
    rows = []
    for s in analysis.sentences:
        moves = " ".join(f"mechnb-move-{m}" for m in s.moves) or "mechnb-move-none"
        first = s.moves[0] if s.moves else "none"
        tags = "".join(f'<span class="mechnb-tag mechnb-move-{m}">{escape(m)}</span>'
                       for m in s.moves)
        if not s.moves and s.template:
            tags = '<span class="mechnb-tag mechnb-move-none">template</span>'
        cue = "; ".join(f"{c.move}: {c.cue or c.rule}" for c in s.cues)
        rows.append(f'<span class="mechnb-sentence mechnb-first-{first} {moves}" '
                    f'title="{escape(cue)}">{tags}{escape(s.text)}</span> ')
    missing = []
    for move in analysis.missing:
        tips = "".join(f"<li>{escape(p['text'])} <code>{escape(p['id'])}</code></li>"
                       for p in suggestions(move, lang))
        note = " (its sentence still has template slots)" if move in analysis.templated else ""
        if weak := analysis.weak_note(move):
            note += f" ({weak})"
        missing.append(f'<li><span class="mechnb-tag mechnb-move-{move}">{escape(move)}</span>'
                       f"{escape(purpose(move, lang) + note)}<ul>{tips}</ul></li>")
    order = "".join(f"<li>the {escape(m)} (sentence {i + 1}) comes after the {escape(a)}</li>"
                    for m, a, i in analysis.out_of_order)
    body = (f'<div class="mechnb-moves-legend">{legend}</div>'
            f'<p class="mechnb-moves-text">{"".join(rows)}</p>')
    if missing:
        body += ('<p><b>Missing moves</b></p>'
                 f'<ul class="mechnb-moves-missing">{"".join(missing)}</ul>')
    if analysis.unsure:
        body += (f"<p>No sentence clearly makes: {escape(', '.join(analysis.unsure))} "
                 "(not reported missing).</p>")
    if not missing and not analysis.unsure:
        body += "<p>Every move is made.</p>"
    if order:
        body += f'<p><b>Out of the usual order</b></p><ul>{order}</ul>'
    return f'<div class="mechnb-moves"><style>{_css()}</style>{body}</div>'


class MovesReport:
    """What ``%mech moves`` displays: HTML in a notebook, plain text elsewhere."""

    def __init__(self, result: PaperMoves, lang: str, name: str) -> None:
        self.result = result
        self.lang = lang
        self.name = name

    def _repr_html_(self) -> str:
        if self.result.abstract is None:
            return (f"<p>{escape(self.name)} has no <code>abstract</code> cell; add one with "
                    f"<code>%mech abstract</code>.</p>")
        note = (f"<p><small>{escape(self.name)}, abstract (the last saved version)</small></p>")
        return note + analysis_html(self.result.abstract)

    def __repr__(self) -> str:
        return paper_text(self.result, self.lang)

    def to_json(self) -> dict[str, Any]:
        """The same JSON as ``mechnb moves --format json``."""
        return self.result.to_json()
