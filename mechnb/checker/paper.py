"""Rules about the paper's shape and the seed checklist: sections, tables, abstract, formulas.

A mechanism paper reads like an arXiv paper: numbered sections for the introduction, the
theory/mechanism, the experiments and the conclusion; captioned tables; an abstract that stands
alone; each key formula with an intuition; derivations in ``align``; the main theorem's proof
sketched in the main text; implications said in terms of attention and LLM behavior.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..findings import Finding
from ..notebook import Cell
from ..roles import get_role
from .document import STATEMENT_BOUNDARY, Document
from .evidence import has_image, table_outputs
from .structure import equation_name, matched_after, prose_pieces, unmet

if TYPE_CHECKING:
    from .rule import Rule

# greedy text, trailing " #" stripped in code: a lazy group before [ \t#]*$ is quadratic on a
# heading padded with spaces
_HEADING = re.compile(r"(?m)^[ \t]{0,3}(#{1,6})[ \t]+([^\n]*)$")
_SECTION_KINDS = frozenset({None, "text", "evidence", "appendix"})
"""Role LaTeX kinds whose headings become sections (in environments a heading is the title)."""
PARTS: dict[str, frozenset[str]] = {
    "introduction": frozenset({"context", "prior", "gap", "lens", "contributions", "question"}),
    "theory": frozenset({"theorem", "lemma", "proposition", "claim", "mechanism", "definition",
                         "formula", "setup", "assumption", "corollary"}),
    "experiments": frozenset({"experiment"}),
    "conclusion": frozenset({"conclusion"}),
}
"""The four parts of a paper and the roles that show where each one is."""
_CONCLUSION_HEADING = re.compile(r"(?i)conclu|summary|结论|总结|结语")
_PART_NAMES = {"introduction": "Introduction", "theory": "Theory / Mechanism",
               "experiments": "Experiments", "conclusion": "Conclusion"}
INTUITION = re.compile(
    r"(?i)\b(?:intuitively|intuitive|intuition|in words|in other words|put simply|informally|"
    r"roughly speaking|read(?:s)? as|this says|that is|the idea is|this means|means that|"
    r"says that|loosely|think of|in this view|corresponds? to|mirrors|analog(?:y|ous)|"
    r"plays the role of|can be (?:read|seen|understood|interpreted|viewed) as|"
    r"penali[sz]es|rewards|encourages|discourages)\b"
    r"|\bas (?:the )?[^.,;]{1,40}? "
    r"(?:grows|increases|decreases|shrinks|vanishes|goes to|tends to)\b"
    r"|\bif [^.;]{1,80}? is (?:small|large|close to|near|zero|high|low)\b[^.;]{0,100}\bthen\b"
    r"|直观|换言之|也就是说|这意味着|意味着|简单地说|通俗地说|直白地说")
INTUITION_BEFORE = re.compile(
    r"(?i)\b(?:intuitively|intuition|in words|informally|in plain (?:words|terms)|the idea)\b"
    r"|直观|通俗地说")
"""An intuition given in the sentences right before a formula ("the intuition behind the
definition is that …"): it counts as well as one after it."""
_ALIGN_ENVS = re.compile(r"\\begin\{(?:align|aligned|alignat|flalign|split|gather|gathered|"
                         r"multline|eqnarray|array|[dr]*cases|IEEEeqnarray)\*?\}")
_RELATION = re.compile(r"(?<![<>\\!])(?:=|<|>)(?!=)|\\(?:le|leq|ge|geq|approx|lesssim|gtrsim|"
                       r"simeq|equiv|ll|gg|propto)(?![A-Za-z])")
_LEADING_RELATION = re.compile(r"^\s*(?:&\s*)?(?:=|<|>|\\(?:le|leq|ge|geq|approx|lesssim|"
                               r"gtrsim|simeq|equiv|propto)(?![A-Za-z]))")
_ALIGN_OPENER = re.compile(r"\\begin\{(?:align|alignat|flalign|gather|multline|eqnarray)\*?\}"
                           r"(?:\{[^{}]*\})?\s*$")
_SIDE_BY_SIDE = re.compile(r"\\q?quad|,|;|\\text\{[^{}]*\}|\\(?:mbox|hbox)\{[^{}]*\}")
"""What separates independent relations written side by side in one display."""
_NESTED_ROWS = re.compile(r"(?s)\\begin\{(\w*matrix|array|[dr]*cases|subarray|smallmatrix)\*?\}.*?"
                          r"\\end\{\1\*?\}|\\substack\{[^{}]*\}")
_PROOF_POINTER = re.compile(r"(?i)\bproofs?\b|证明")
MODEL_TERMS = re.compile(
    r"(?i)attention|transformer|language model|\bLLMs?\b|\bheads?\b|\btokens?\b|in-context|"
    r"\bprompts?\b|\blayers?\b|training|pretrain|注意力|语言模型|大模型|词元|上下文|提示|训练|"
    r"Transformer")


@dataclass(frozen=True, slots=True)
class Heading:
    """A markdown heading that becomes a section (level 1 = ``\\section``)."""

    level: int
    text: str
    cell: int
    offset: int


def _title_cell(doc: Document) -> int | None:
    """The cell the exporter takes the title from, when it is a ``# Title`` heading cell."""
    for c in doc.cells:
        if c.role == "title":
            return c.index
    first = doc.cells[0] if doc.cells else None
    if first is not None and first.is_markdown and first.role is None and \
            re.match(r"\A\s*#(?!#)[ \t]+\S", first.source):
        return first.index
    return None


def headings(doc: Document) -> list[Heading]:
    """Section headings of the exported text, in order (titles of environments excluded)."""
    title = _title_cell(doc)
    out: list[Heading] = []
    for idx, scan in sorted(doc.scans.items()):
        cell = doc.cells[idx]
        role = get_role(cell.role) if cell.role else None
        if (role.latex_kind if role else None) not in _SECTION_KINDS:
            continue
        found = [m for s in scan.spans if s.kind == "prose"
                 for m in _HEADING.finditer(scan.source, s.start, s.end)]
        if idx == title and found:
            found = found[1:]  # the title heading is \title, not a section
        out.extend(Heading(len(m.group(1)), m.group(2).rstrip(" \t#").strip(), idx, m.start())
                   for m in found)
    return out


def _section_of(doc: Document) -> tuple[list[Heading], dict[int, int]]:
    """Top-level main-text sections, and cell → index of the section it is in (-1: none)."""
    main = [h for h in headings(doc) if h.cell < doc.appendix_start]
    if not main:
        return [], {}
    top = min(h.level for h in main)
    sections = [h for h in main if h.level == top]
    where: dict[int, int] = {}
    k = -1
    for c in doc.cells[:doc.appendix_start]:
        # a cell that opens a section with its first heading belongs to that section
        while k + 1 < len(sections) and sections[k + 1].cell <= c.index:
            k += 1
        where[c.index] = k
    return sections, where


def _first(doc: Document, roles: frozenset[str]) -> Cell | None:
    return next((c for c in doc.cells[:doc.appendix_start]
                 if c.role in roles and doc.stated(c)), None)


def _last(doc: Document, roles: frozenset[str]) -> Cell | None:
    return next((c for c in reversed(doc.cells[:doc.appendix_start])
                 if c.role in roles and doc.stated(c)), None)


def check_sections(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Introduction, theory/mechanism, experiments and conclusion are sections of their own."""
    present = {part: _first(doc, roles) for part, roles in PARTS.items()}
    # the paper's conclusion is its last one: a "summary" closing the related work or an
    # outline paragraph of the introduction, read as a conclusion, is not it
    present["conclusion"] = _last(doc, PARTS["conclusion"])
    if sum(c is not None for c in present.values()) < 2:
        return  # a fragment, not yet a paper to divide into sections
    sections, where = _section_of(doc)
    if not sections:
        yield rule.at(doc, "the main text has no sections; open the Introduction, the "
                           "theory/mechanism, the Experiments and the Conclusion with `# "
                           "Heading` lines so the PDF is shaped like a paper")
        return
    parts: dict[str, int] = {}
    for part, cell in present.items():
        if cell is None:
            continue
        sec = where.get(cell.index, -1)
        if sec < 0:
            yield rule.at(doc, f"the {_PART_NAMES[part]} (cell {cell.index + 1}, `{cell.role}`) "
                               f"comes before the first section heading; put it under one",
                          cell.index)
            continue
        clash = next((p for p, s in parts.items() if s == sec), None)
        if clash is not None:
            yield rule.at(doc, f"the {_PART_NAMES[part]} (cell {cell.index + 1}, `{cell.role}`) "
                               f"is in the same section as the {_PART_NAMES[clash]} "
                               f"(\"{sections[sec].text}\"); give it a `# {_PART_NAMES[part]}` "
                               f"section of its own", cell.index)
        parts[part] = sec
    if "conclusion" not in parts and not any(
            _CONCLUSION_HEADING.search(h.text) for h in headings(doc)
            if h.cell < doc.appendix_start):  # at any level: a thesis's last chapter's section
        yield rule.at(doc, "the main text has no Conclusion section; end it with `# "
                           "Conclusion` (`%mech conclusion`)")


def check_heading_levels(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Sections start at ``#`` and never skip a level (``#`` then ``###``)."""
    found = headings(doc)
    main = [h for h in found if h.cell < doc.appendix_start]
    if main and min(h.level for h in main) > 1:
        h = min(main, key=lambda x: x.level)
        yield rule.at(doc, f"the main text's top headings are level {h.level} "
                           f"(`{'#' * h.level}`), which LaTeX numbers as 0.1, 0.2…; make "
                           f"sections `#` and their subsections `##`", h.cell, h.offset)
    for part in (main, [h for h in found if h.cell >= doc.appendix_start]):
        previous = 0
        for h in part:
            if previous and h.level > previous + 1 and h.level <= 3:
                # (``####`` and below are \paragraph run-in headings: never numbered)
                yield rule.at(doc, f"heading \"{h.text}\" is level {h.level} right after a "
                                   f"level-{previous} heading; use `{'#' * (previous + 1)}` so "
                                   f"the section numbering stays consistent", h.cell, h.offset)
            previous = h.level


def check_table_caption(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A table output (LaTeX ``tabular`` or markdown pipe table) has a caption and a label."""
    for c in doc.cells:
        role = get_role(c.role) if c.role else None
        if c.cell_type != "code" or role is None or role.latex_kind == "omit" or \
                not table_outputs(c):
            continue
        if role.latex_kind == "evidence" and has_image(c):
            yield rule.at(doc, "this cell's caption and label go to its figure, so its table "
                               "gets none; display the table in a cell of its own with a "
                               "caption and a `tab:` label", c.index)
            continue
        missing = [what for what, ok in (("caption", (c.caption or "").strip()),
                                         ("label", c.label)) if not ok]
        if missing:
            yield rule.at(doc, f"this cell's table has no {' and no '.join(missing)}; set "
                               f"`metadata.mechnb.caption` (what the table shows) and a "
                               f"`tab:` label so the text can \\cref it", c.index,
                          labels=(c.label,) if c.label else ())


def check_abstract_references(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The abstract is read alone: no ``\\cref`` of theorem, figure or equation numbers."""
    for site in doc.references:
        cell = doc.cells[site.cell]
        if cell.role == "abstract":
            yield rule.at(doc, f"the abstract refers to {site.name} by number "
                               f"(\\{site.command}); an abstract is read on its own — name the "
                               f"result in words instead", site.cell, site.offset,
                          (site.name,))


def _previous_cell_prose(doc: Document, cell: int) -> str:
    """Prose of the exported markdown cell right before ``cell`` (none when a statement, a proof
    or a formula cell stands between)."""
    for c in reversed(doc.cells[:cell]):
        if c.role == "note" or not c.source.strip():
            continue
        scan = doc.scans.get(c.index)
        if scan is not None and c.role not in STATEMENT_BOUNDARY:
            return " ".join(scan.source[s.start:s.end] for s in scan.spans if s.kind == "prose")
        break
    return ""


def _next_cell_prose(doc: Document, cell: int) -> str:
    """Prose of the next exported non-formal cell after ``cell`` (a formula cell counts)."""
    for c in doc.cells[cell + 1:]:
        if c.role == "note" or not c.source.strip():
            continue
        if c.is_markdown and (c.role not in STATEMENT_BOUNDARY or c.role == "formula") \
                and c.role != "proof":
            nxt = doc.scans.get(c.index)
            if nxt is not None:
                return " ".join(nxt.source[s.start:s.end] for s in nxt.spans
                                if s.kind == "prose")
        break
    return ""


def _last_sentences(text: str, count: int = 2) -> str:
    """The last ``count`` sentences of ``text``."""
    return " ".join(re.split(r"(?<=[.!?。！？])\s+", text.strip())[-count:])


def check_intuition(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Seed checklist: a key formula is followed by a sentence of intuition."""
    for cell, equations in doc.key_equations.items():
        bounds = [end for _, _, end, _ in equations] + [len(doc.cells[cell].source)]
        followed = matched_after(prose_pieces(doc, cell, bounds), INTUITION)
        edges = [0]
        for _, start, end, _ in equations:
            edges += [start, end]
        before = prose_pieces(doc, cell, edges)[::2]  # the prose since the previous formula
        followed = [ok or bool(INTUITION_BEFORE.search(_last_sentences(text)))
                    for ok, text in zip(followed, before, strict=True)]
        if doc.cells[cell].role != "formula":  # outside formula cells only labelled ones count
            followed = [ok or label is None for (_, _, _, label), ok in
                        zip(equations, followed, strict=True)]
        if edges[1:2] and not before[0]:  # the first formula opens its cell: the cell before
            followed[0] = followed[0] or bool(INTUITION_BEFORE.search(
                _last_sentences(_previous_cell_prose(doc, cell))))
        for _, start, _end, label in unmet(equations, followed, lambda c: bool(
                INTUITION.search(_next_cell_prose(doc, c)))):
            yield rule.at(doc, f"{equation_name(label)} is not followed by an intuition; add "
                               f"a sentence such as \"Intuitively, …\" that says what it means "
                               f"in plain words", cell, start, (label,) if label else ())


def check_derivation_align(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Seed checklist: a multi-step derivation is one ``align``, one step per line."""
    for idx, scan in sorted(doc.scans.items()):
        displays = [s for s in scan.spans if s.kind == "math" and s.display]
        for k, span in enumerate(displays):
            body = scan.source[span.start:span.end].strip()
            opener = scan.source[max(0, span.start - 40):span.start]
            if _ALIGN_ENVS.search(body) or _ALIGN_OPENER.search(opener):
                continue
            body = _NESTED_ROWS.sub(" ", body)  # a matrix's rows are not derivation steps
            if k > 0 and _LEADING_RELATION.match(body):
                yield rule.at(doc, "this display continues the previous one (it starts with a "
                                   "relation); write the derivation as one `align` environment, "
                                   "one step per line (`&= …`)", idx, span.start)
            elif "\\\\" in body or any(len(_RELATION.findall(piece)) >= 3
                                      for piece in _SIDE_BY_SIDE.split(body)):
                yield rule.at(doc, "this display chains several steps on one line; write the "
                                   "derivation as an `align` environment, one step per line "
                                   "(`&= …`) with a label", idx, span.start)


def check_proof_sketch(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Seed checklist: the main theorem's proof is sketched (or pointed to) in the main text."""
    main = doc.main_theorem
    if main is None or not doc.in_main_text(main):
        return
    closure = doc.closure_of(main)
    if not closure:
        return  # unclosed-statement (MECH004) reports it
    for c in closure:
        if not doc.in_main_text(c):
            continue
        if c.role == "proof" or (c.is_markdown and c.role not in ("experiment", "figure")
                                 and _PROOF_POINTER.search(c.source)):
            return
    yield rule.at(doc, f"the main theorem{' ' + main.label if main.label else ''} has no proof "
                       f"sketch in the main text; add a short `proof` (`%mech proof --kind "
                       f"sketch`) or a sentence pointing to the proof in the appendix",
                  main.index, labels=(main.label,) if main.label else ())


def check_implication(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Seed checklist: the implications translate the result back to attention / LLMs — for a
    paper about Transformers / LLMs (``domain.domain_term``: from its own title, abstract or
    introduction); a paper on another subject owes no attention vocabulary."""
    from .domain import domain_term

    if doc.main_theorem is None and not doc.paper.cells_with_role("claim"):
        return
    term = domain_term(doc.paper)
    if term is None:
        return
    why = f"the paper is about Transformers / LLMs (it speaks of “{term}”)"
    cells = [c for c in doc.paper.cells_with_role("implication") if doc.stated(c)]
    if not cells:
        yield rule.at(doc, f"{why} but never says what its result means for attention or LLM "
                           "behavior; add an `implication` cell (`%mech implication`)")
        return
    prose = " ".join(t for c in cells for _, t in doc.tex_texts(c.index))
    if not MODEL_TERMS.search(prose):
        yield rule.at(doc, f"{why}, but the implication does not translate the result back to "
                           "attention / LLM behavior (heads, tokens, layers, training, "
                           "prompts…); say what changes in a real model", cells[0].index)
