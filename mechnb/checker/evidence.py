"""Rules about what the PDF will really show: labels the export places, evidence that is real.

``check`` must predict the export: a label that only an unrun output, a ``note`` cell or an
uncaptioned table defines is not in the ``.tex``, so a ``\\cref`` to it prints ``??``. And a
``validates`` backed by template code or made-up data is not evidence, whatever its figure shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..findings import Finding
from ..lazyre import lazy
from ..notebook import Cell
from ..roles import get_role
from ..tex.gate import is_latex_raw
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

INCLUDABLE_IMAGES = ("application/pdf", "image/png", "image/jpeg")
"""Image outputs the exporter can include (``exporter.outputs.IMAGE_TYPES``; SVG/GIF cannot)."""
_UNPLACED_KINDS = frozenset({"title", "abstract", "omit"})
"""Role LaTeX kinds whose cell label the exporter does not place."""
_LABEL = lazy(r"\\label\{([^{}]*)\}")
_MD_TABLE = lazy(r"(?m)^\s*\|?\s*:?-{3,}:?\s*\|")

PENDING_SENTINEL = lazy(r"(?mi)^[ \t]*#[ \t]*mechnb:[ \t]*pending\b")
"""The comment line mechnb's experiment templates write until the cell plots real data."""
_MEASURED = r"(?:measur|observ|metric|empirical)\w*"
_SYNTHETIC = (
    (re.compile(r"(?mi)^[ \t]*(?P<name>" + _MEASURED + r")\s*=[^\n#]*\bpredict\w*[^\n#]*"
                r"(?:\brng\b|random|noise|normal|randn|uniform)"),
     "derives the measured values from the prediction plus noise"),
    (re.compile(r"(?mi)=\s*-?[\d.]+\s+if\s+(?:not\s+)?\w*interven\w*\s+else\s+-?[\d.]+"),
     "simulates the intervention with a hard-coded switch instead of running it"),
    (re.compile(r"(?mi)^[ \t]*(?P<name>" + _MEASURED + r")\s*=\s*np\.(?:linspace|full|ones|"
                r"zeros|arange)\("),
     "fills the measured values with a made-up sequence"),
)
_CODE_TODO = lazy(r"\b(?:TODO|FIXME|XXX|TBD)\b|待补充|待完成|待定")
_CODE_SLOT = lazy(
    r"""(["'])\[(?=[^\]]*[a-z\u3400-\u9fff])[A-Za-z\u3400-\u9fff][^\]\d\\$"'\n]{0,80}\]\1""")
"""A string that is only a template slot, ``"[quantity]"`` (not ``"[MASK]"`` or ``"[0, 1]"``)."""


# ---- labels the export places -----------------------------------------------------------
def has_image(cell: Cell) -> bool:
    """True if ``cell`` has an image output the exporter can include (PNG, JPEG, PDF)."""
    return any(isinstance(o.get("data"), Mapping) and any(m in o["data"] for m in
                                                            INCLUDABLE_IMAGES)
               for o in cell.outputs)


def _first_rich_is_table(cell: Cell) -> bool:
    """True if the first LaTeX/markdown output is a table (the exporter captions only that)."""
    for o in cell.outputs:
        data = o.get("data")
        if o.get("output_type") == "error" or not isinstance(data, Mapping):
            continue
        for mime in ("text/latex", "text/markdown"):
            if mime in data:
                value = data[mime]
                text = "".join(value) if isinstance(value, list) else str(value)
                return "\\begin{tabular" in text or (mime == "text/markdown"
                                                     and bool(_MD_TABLE.search(text)))
    return False


def table_outputs(cell: Cell) -> bool:
    """True if some output of ``cell`` is a LaTeX tabular or a markdown pipe table."""
    for o in cell.outputs:
        data = o.get("data")
        if not isinstance(data, Mapping):
            continue
        for mime in ("text/latex", "text/markdown"):
            value = data.get(mime)
            if value is None:
                continue
            text = "".join(value) if isinstance(value, list) else str(value)
            if "\\begin{tabular" in text or (mime == "text/markdown" and _MD_TABLE.search(text)):
                return True
    return False


def code_label_problem(cell: Cell) -> str | None:
    """Why the exporter will not place the label of code cell ``cell`` (None: it will)."""
    role = get_role(cell.role) if cell.role else None
    if role is None:
        return (f"cell {cell.index + 1} is a code cell without a role, whose outputs are not "
                "exported")
    if role.latex_kind == "omit":
        return f"cell {cell.index + 1} is a `{cell.role}` cell, which is not exported"
    if role.latex_kind == "evidence" and has_image(cell):
        return None
    if (cell.caption or "").strip() and _first_rich_is_table(cell):
        return None
    if not cell.outputs:
        return (f"the label belongs to the output of code cell {cell.index + 1}, which has not "
                "been run")
    if table_outputs(cell):
        return (f"the table of code cell {cell.index + 1} has no caption, and the export places "
                "the label with the caption")
    return (f"code cell {cell.index + 1} has no figure (PNG/PDF/JPEG image) or captioned table "
            f"among its outputs to carry the label")


def unplaced_labels(doc: Document) -> dict[str, str]:
    """Label → why the export will not define it, for every label ``check`` knows but LaTeX won't.

    Mirrors ``exporter.document``: markdown labels are placed unless the cell is a title or
    abstract; a code cell's label goes with its first includable image (evidence roles) or its
    captioned table; raw cells place ``\\label``s only when passed to LaTeX.
    """
    placed: set[str] = set()
    why: dict[str, str] = {}
    for c in doc.cells:
        role = get_role(c.role) if c.role else None
        kind = role.latex_kind if role else None
        if c.role == "note":
            for m in _LABEL.finditer(c.source):
                why.setdefault(m.group(1).strip(),
                               f"it is defined in the `note` cell {c.index + 1}, which is never "
                               "exported")
            if c.label:
                why.setdefault(c.label, f"it is the label of the `note` cell {c.index + 1}, "
                                        "which is never exported")
            continue
        texts_placed = True
        if c.cell_type == "code":
            if c.label:
                problem = code_label_problem(c)
                if problem is None:
                    placed.add(c.label)
                else:
                    why.setdefault(c.label, problem)
            continue
        if c.cell_type == "raw":
            texts_placed = is_latex_raw(c.metadata)
            if not texts_placed:
                for m in _LABEL.finditer(c.source):
                    why.setdefault(m.group(1).strip(), f"raw cell {c.index + 1} is not a LaTeX raw "
                                                       f"cell, so it is not exported")
            if c.label:
                why.setdefault(c.label, f"the metadata label of raw cell {c.index + 1} is not "
                                        f"exported; write \\label{{{c.label}}} in it")
        elif kind == "title":
            texts_placed = False
            if c.label:
                why.setdefault(c.label, f"cell {c.index + 1} is the title, which carries no label")
            for m in _LABEL.finditer(c.source):
                why.setdefault(m.group(1).strip(), f"cell {c.index + 1} is the title, whose text "
                                                   f"becomes \\title without its labels")
        elif c.label:
            if kind in _UNPLACED_KINDS:
                why.setdefault(c.label,
                               f"cell {c.index + 1} is the {c.role}, which carries no label")
            else:
                placed.add(c.label)
        if texts_placed:
            for _, text in doc.tex_texts(c.index):
                if "\\label" in text:
                    placed.update(m.group(1).strip() for m in _LABEL.finditer(text))
    return {name: reason for name, reason in why.items() if name not in placed}


def _rendered(doc: Document, cell: Cell, in_metadata: bool) -> bool:
    """True if a reference written in ``cell`` (its text, or its caption/title) reaches LaTeX."""
    role = get_role(cell.role) if cell.role else None
    if role is not None and role.latex_kind in ("title", "omit"):
        return False
    if cell.cell_type == "code":
        return in_metadata and code_label_problem(cell) is None
    return True


def check_export_references(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A ``\\ref``/``\\cref`` to a label the export will not place prints ``??`` in the PDF."""
    unplaced = unplaced_labels(doc)  # labels no cell defines at all are MECH015's
    if not unplaced:
        return
    # the export prints a reference to a code cell's label it cannot place as a visible
    # placeholder, [exp:name] (exporter.document.mark_pending_references); an unrun experiment
    # that validates a statement is MECH007's error already
    code_labels = {c.label: c for c in doc.cells if c.cell_type == "code" and c.label}
    for site in doc.references:
        reason = unplaced.get(site.name)
        if reason is None or site.name not in doc.labels or \
                not _rendered(doc, doc.cells[site.cell], site.offset is None):
            continue
        owner = code_labels.get(site.name)
        if owner is not None and not owner.outputs and owner.validates:
            continue
        prints = f"[{site.name}] as a placeholder" if owner is not None else "??"
        yield rule.at(doc, f"\\{site.command}{{{site.name}}} will print {prints} in the PDF: "
                           f"{reason}", site.cell, site.offset, (site.name,))


# ---- evidence that is not evidence ------------------------------------------------------
def pending_reasons(source: str) -> list[tuple[int, str]]:
    """``(offset, why)`` for every sign that ``source`` is template code or made-up data."""
    found: list[tuple[int, str]] = []
    m = PENDING_SENTINEL.search(source)
    if m:
        found.append((m.start(), "it is still mechnb's pending template (the `# mechnb: "
                                 "pending` line)"))
    for pattern, why in _SYNTHETIC:
        synthetic = pattern.search(source)
        if synthetic:
            found.append((synthetic.start(), why))
    todo = _CODE_TODO.search(source)
    if todo:
        found.append((todo.start(), f"it still says {todo.group(0)}"))
    slot = _CODE_SLOT.search(source)
    if slot:
        found.append((slot.start(), f"it still holds the template slot {slot.group(0)}"))
    return sorted(found)


@dataclass(frozen=True)
class EvidenceProblem:
    """One reason a validating code cell is not evidence."""

    kind: str
    """``placeholder`` (template code, stand-ins, TODOs: MECH046) or ``hand-typed`` (the values
    it shows are literals typed into the notebook: MECH071)."""
    offset: int
    """Where in the cell source."""
    why: str
    """The reason, as a clause (``it still says TODO``)."""


def evidence_problems(doc: Document, cell: Cell) -> list[EvidenceProblem]:
    """Every reason the code cell ``cell``, which ``validates`` a statement, is not evidence
    (empty: it is, or the cell validates nothing). The one place that decides what counts as
    evidence: a placeholder is reported as such (MECH046) and is not also read for typed-in
    values, which are only judged on code that looks finished (MECH071)."""
    if cell.cell_type != "code" or not cell.validates or not doc.exported(cell):
        return []
    problems = [EvidenceProblem("placeholder", at, why) for at, why in pending_reasons(cell.source)]
    if problems:
        return problems
    from .provenance import describe, hand_typed

    typed = hand_typed(doc).get(cell.index)
    if typed is not None:
        problems.append(EvidenceProblem(
            "hand-typed", typed.offset, f"the values it {typed.verb} come only from "
                                        f"{describe(typed)}, with nothing computed or loaded"))
    return problems


def check_placeholder_evidence(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Code that ``validates`` something is real: no template sentinel, stand-ins or TODOs."""
    for c in doc.cells:
        if c.cell_type != "code" or not c.validates:
            continue
        reasons = [p for p in evidence_problems(doc, c) if p.kind == "placeholder"]
        if not reasons:
            continue
        whys = list(dict.fromkeys(p.why for p in reasons))
        yield rule.at(doc, f"this cell validates {', '.join(c.validates)} but is not evidence "
                           f"yet: {'; '.join(whys)}; plot your real measurements, then delete "
                           f"the markers", c.index, reasons[0].offset, c.validates)


_NUMBERED_KINDS = frozenset({"environment", "box", "proof", "title", "abstract", "omit"})
"""Role LaTeX kinds whose text sits in a numbered environment (or is not placed at all)."""
_HEADING_LINE = lazy(r"[ \t]{0,3}#")


def _names_a_heading(source: str, at: int) -> bool:
    """True if the ``\\label`` at ``at`` is on a heading line, or starts the line right after
    one (``# Proof⏎\\label{app:proof}``): then it names that section, as intended."""
    line_start = source.rfind("\n", 0, at) + 1
    if _HEADING_LINE.match(source, line_start):
        return True
    if source[line_start:at].strip() or line_start == 0:
        return False
    prev_start = source.rfind("\n", 0, line_start - 1) + 1
    return bool(_HEADING_LINE.match(source, prev_start))


def check_label_in_text(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A ``\\label`` in running text points at the enclosing section, not at the sentence."""
    for idx, scan in doc.scans.items():
        if "\\label" not in scan.source:
            continue
        cell = doc.cells[idx]
        role = get_role(cell.role) if cell.role else None
        if role is not None and role.latex_kind in _NUMBERED_KINDS:
            continue
        source = scan.source
        for span in scan.spans:
            inline_math = span.kind == "math" and not span.display
            if (span.kind != "prose" and not inline_math) or (
                    "\\label" not in source[span.start:span.end]):
                continue
            for m in _LABEL.finditer(source, span.start, span.end):
                if doc.in_dropped_html(idx, m.start()) or (
                        not inline_math and _names_a_heading(source, m.start())):
                    continue
                name = m.group(1).strip()
                if inline_math:
                    yield rule.at(doc, f"\\label{{{name[:60]}}} stands in inline math, which "
                                       "LaTeX does not number: the label takes the number of "
                                       "the enclosing section (?? before the first section); "
                                       f"write the formula as display math ($$ … "
                                       f"\\label{{{name[:60]}}} $$)", idx, m.start(), (name,))
                    continue
                yield rule.at(doc, f"\\label{{{name[:60]}}} stands in running text, where "
                                   f"LaTeX gives it the number of the enclosing section (?? "
                                   f"before the first section); put it in the heading it names "
                                   f"or inside the equation", idx, m.start(), (name,))


def check_hand_typed_evidence(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Validating code whose plotted / tabulated values are literals typed into the notebook."""
    for c in doc.cells:
        if c.cell_type != "code" or not c.validates:
            continue
        for p in evidence_problems(doc, c):
            if p.kind == "hand-typed":
                yield rule.at(doc, f"this cell validates {', '.join(c.validates)}, but {p.why}: "
                                   f"compute them in the notebook or load your saved results "
                                   f"(`np.load`, `pd.read_csv`, `json.load`) instead of typing "
                                   f"them in", c.index, p.offset,
                              c.validates)
