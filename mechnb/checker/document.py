"""``Document``: a ``Paper`` plus what the rules need to know about it, each computed once.

Every property is lazy (``cached_property``), so a disabled rule costs nothing. Positions are
kept as offsets into the cell source and turned into line/column only for findings.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from ..findings import Finding, Severity
from ..lazyre import lazy
from ..memo import SourceMemo
from ..notebook import Cell, Paper
from ..roles import get_role, with_obligation
from ..tex.comments import mask_comments
from ..tex.scan import ScannedText, scan_markdown

if TYPE_CHECKING:
    from ..tex.gate import Assessment

REF_COMMANDS = ("ref", "eqref", "cref", "Cref", "autoref", "pageref", "nameref", "vref", "Vref",
                "cpageref", "labelcref", "crefrange", "Crefrange", "subref")
CITE_COMMANDS = ("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear",
                 "citeyearpar", "Citet", "Citep", "parencite", "textcite", "autocite",
                 "footcite", "nocite")
_REF = lazy(r"\\(" + "|".join(REF_COMMANDS) + r")\*?\{([^{}]*)\}")
WORD = lazy(r"[A-Za-z]{2,}|[\u3400-\u9fff]")
"""A word of prose: two or more Latin letters, or one CJK character."""
REF_PATTERN = _REF
"""``\\ref``-like commands (group 1: the command, group 2: the comma-separated labels)."""
_LABEL = lazy(r"\\label\{([^{}]*)\}")
_TAG_START = lazy(r"<[A-Za-z!/?]")
HTML_PARSE_LIMIT = 50_000
scan_cell = SourceMemo(scan_markdown)
"""A markdown cell's scan by its text (``ScannedText`` is never changed once made)."""
"""Cells longer than this are not parsed to find dropped HTML (check stays fast)."""
_NEWLINE = lazy(r"\n")
_CITE = lazy(r"\\(" + "|".join(CITE_COMMANDS) + r")\*?(?:\[[^\[\]]*\]){0,2}\{([^{}]*)\}")
_PANDOC_GROUP = lazy(r"\[([^\[\]\n]*@[^\[\]\n]*)\]")
_PANDOC_KEY = lazy(r"(?:^|[\s;\-])@([A-Za-z0-9_][\w:.#$%&+?<>~/-]*)")
_IMAGE_MIME = ("image/png", "image/jpeg", "image/svg+xml", "application/pdf", "image/gif")
_PROOF_POINTER = lazy(r"(?i)\bproofs?\b|证明")
_POINTER_TARGET = lazy(r"(?i)\\(?:ref|cref|Cref|autoref)\{|\bappendix\b|附录|deferred")
_PROOF_WORD = lazy(r"(?i)\bproofs?\b|\bprov(?:e|es|ed|en|ing)\b|\brestate(?:s|d|ment)?\b|证明|重述")
_NOT_PROVED = lazy(r"(?i)future work|conjectur|open (?:question|problem)|without proof|left open|"
                   r"we do not (?:prove|give)|猜想|尚未证明|有待证明")
_SENTENCE_END = lazy(r"[.!?。！？；;]\s|\n\s*\n|\n#")
_PROOF_OPENING = lazy(r"^\s*(?:[*_]{1,2}|\\(?:emph|textit|textbf|textsc|paragraph)\{)?\s*"
                      r"(?:(?:Proof|证明)\b[^\n]{0,60}?(?:[.:：]|\}|[*_])|(?:The|Our) proof\b)")
_NUMBERED_PROOF = lazy(r"(?i)\bproofs? of (theorem|lemma|proposition|corollary|claim)s?[\s~]*(\d+)"
                       r"|证明[\s~]*(定理|引理|命题|推论)[\s~]*(\d+)")
_ZH_KIND = {"定理": "theorem", "引理": "lemma", "命题": "proposition", "推论": "corollary"}
_RESTATABLE = lazy(r"\\begin\{restatable\}\*?(?:\[[^\]]*\])?\{[^{}]*\}\{([A-Za-z@]+)\}")
_CITED_RESULT = lazy(r"(?i)\\\w*cite\w*\*?[\[{]|\[@|\brecall\b|\bclassical\b|well[- ]known|"
                     r"\bstandard result|\btextbook\b|回顾|经典|著名|介绍")
_HEADING_LEVEL = lazy(r"^(#{1,6})\s")
_PLURAL_PROOFS = lazy(r"(?i)\b(?:all )?proofs\b|证明均|证明见|证明详见")

STATEMENT_BOUNDARY = frozenset(
    {"theorem", "lemma", "proposition", "corollary", "claim", "definition", "assumption",
     "setup", "question", "formula", "appendix"})
"""Roles that start a new formal block: an interpretation must come before the next of these."""

MAIN_LABELS = ("thm:main", "theorem:main", "thm:main-result")
KEY_EQUATION_ROLES = frozenset(
    {None, "formula", "setup", "mechanism", "lens", "result", "remark", "context", "implication"})
"""Roles whose labelled display equations are key equations (not statements or proofs)."""
KeyEquation = tuple[int, int, int, "str | None"]
"""``(cell, start, end, label)`` of a key display equation."""


@dataclass(frozen=True, slots=True)
class Site:
    """Where a name (label, reference, citation key) occurs."""

    name: str
    cell: int
    offset: int | None = None
    """Offset in the cell source; ``None`` for metadata (label, caption, title)."""
    command: str = ""
    """``label`` / the ``\\ref``-like command / the cite command / ``metadata``."""


class Document:
    """The paper being checked, with shared, lazily computed facts about it."""

    def __init__(self, paper: Paper, config_problems: tuple[tuple[str, str], ...] = ()) -> None:
        self.paper = paper
        self.cells = paper.cells
        self.config_problems = config_problems
        """``(where, message)`` for unusable configuration entries."""
        self._tex_texts: dict[int, list[tuple[int, str]]] = {}

    # ---- cells -----------------------------------------------------------------------------
    def exported(self, cell: Cell) -> bool:
        """True for cells that reach the paper (``note`` cells never do)."""
        return cell.role != "note"

    @cached_property
    def scans(self) -> dict[int, ScannedText]:
        """Scanned text of every exported markdown cell."""
        return {c.index: scan_cell(c.source) for c in self.cells
                if c.is_markdown and self.exported(c) and c.source}

    @cached_property
    def gate(self) -> Assessment:
        """The TeX gate's verdict on the paper: refused TeX and what needs review."""
        from ..tex.gate import assess

        return assess(self.paper)

    @cached_property
    def raw_tex(self) -> dict[int, str]:
        """Source of every exported raw LaTeX cell (passed to LaTeX as written; a raw cell with
        no format is printed as plain text, one with another format is left out)."""
        from ..tex.gate import is_latex_raw

        return {c.index: c.source for c in self.cells
                if c.cell_type == "raw" and self.exported(c) and c.source
                and is_latex_raw(c.metadata)}

    @cached_property
    def dropped_html(self) -> dict[int, list[tuple[int, int]]]:
        """Cell → ``[start, end)`` of the raw HTML the export drops, with the ``\\label``s and
        references inside it: HTML blocks (``<div>…``, ``<!-- … -->``) and inline HTML
        (a comment, a tag). Only cells whose prose holds something tag-like (``<`` then a
        letter, ``!``, ``/`` or ``?``) are parsed, as the exporter parses them (markdown-it),
        and only up to ``HTML_PARSE_LIMIT`` characters (a larger cell keeps every label)."""
        out: dict[int, list[tuple[int, int]]] = {}
        for index, scan in self.scans.items():
            source = scan.source
            if "<" not in source or len(source) > HTML_PARSE_LIMIT or not any(
                    _TAG_START.search(source, s.start, s.end)
                    for s in scan.spans if s.kind == "prose"):
                continue
            from ..tex.markdown import block_span, walk

            line_starts = [0] + [m.end() for m in _NEWLINE.finditer(source)] + [len(source)]
            ranges: list[tuple[int, int]] = []
            cursor = 0
            for token in walk(source):
                if token.type == "html_block" and token.map:
                    ranges.append(block_span(token, line_starts))
                elif token.type == "html_inline" and token.content:
                    at = source.find(token.content, cursor)
                    if at >= 0:
                        ranges.append((at, at + len(token.content)))
                        cursor = at + len(token.content)
            if ranges:
                out[index] = sorted(ranges)
        return out

    def in_dropped_html(self, cell: int, offset: int) -> bool:
        """True if ``offset`` of the cell lies inside raw HTML (never exported)."""
        ranges = self.dropped_html.get(cell)
        if not ranges:
            return False
        k = bisect_right(ranges, (offset, len(self.scans[cell].source) + 1)) - 1
        return k >= 0 and ranges[k][0] <= offset < ranges[k][1]

    def tex_texts(self, cell: int) -> list[tuple[int, str]]:
        """``(offset, text)`` pieces of a cell that reach LaTeX as TeX or prose (no code);
        computed once per cell (several rules read them)."""
        pieces = self._tex_texts.get(cell)
        if pieces is None:
            scan = self.scans.get(cell)
            if scan is not None:
                # a % comment in math hides a \label from MathJax and TeX alike
                pieces = [(s.start, mask_comments(scan.source[s.start:s.end])
                           if s.kind == "math" and "%" in scan.source[s.start:s.end]
                           else scan.source[s.start:s.end]) for s in scan.spans
                          if s.kind != "code"]
            else:
                raw = self.raw_tex.get(cell)
                # a commented-out \label or \ref is not there for TeX
                pieces = [(0, mask_comments(raw) if "%" in raw else raw)] \
                    if raw is not None else []
            self._tex_texts[cell] = pieces
        return pieces

    def metadata_texts(self, cell: Cell) -> list[str]:
        """Caption and title of a cell (they reach LaTeX too)."""
        return [t for t in (cell.caption, cell.title) if t]

    @cached_property
    def appendix_start(self) -> int:
        """Index of the first ``appendix`` cell (or the number of cells if none)."""
        return next((c.index for c in self.cells if c.role == "appendix"), len(self.cells))

    def in_main_text(self, cell: Cell) -> bool:
        """True for cells before the appendix."""
        return cell.index < self.appendix_start

    @staticmethod
    def stated(cell: Cell) -> bool:
        """True if the cell says something: non-blank source or outputs (an empty cell does not)."""
        return bool(cell.source.strip() or cell.outputs)

    def roles_present(self) -> set[str]:
        """Every role used by some cell that says something."""
        return {c.role for c in self.cells if c.role and self.stated(c)}

    def has_figure(self, cell: Cell) -> bool:
        """True if the cell becomes a figure: a ``figure`` cell, or image outputs."""
        if cell.role == "figure":
            return True
        return any(isinstance(o.get("data"), dict) and any(m in o["data"] for m in _IMAGE_MIME)
                   for o in cell.outputs)

    # ---- labels, references, citations ----------------------------------------------------
    @cached_property
    def label_sites(self) -> dict[str, list[Site]]:
        """Label → where it is defined (metadata labels first, then ``\\label{}`` in text)."""
        sites: dict[str, list[Site]] = {}
        for c in self.cells:
            if c.label and self.exported(c):
                sites.setdefault(c.label, []).append(Site(c.label, c.index, None, "metadata"))
        for c in self.cells:
            for offset, text in self.tex_texts(c.index):
                if "\\label" not in text:
                    continue  # most pieces: a substring test is far cheaper than a regex
                for m in _LABEL.finditer(text):
                    if self.in_dropped_html(c.index, offset + m.start()):
                        continue
                    name = m.group(1).strip()
                    sites.setdefault(name, []).append(
                        Site(name, c.index, offset + m.start(), "label"))
        return sites

    @cached_property
    def cell_labels(self) -> dict[str, Cell]:
        """Metadata label → the first cell that declares it."""
        return self.paper.labels()

    @cached_property
    def labels(self) -> frozenset[str]:
        """Every defined label."""
        return frozenset(self.label_sites)

    @cached_property
    def references(self) -> list[Site]:
        """Every ``\\ref``-like reference (one site per label in ``\\cref{a,b}``)."""
        out: list[Site] = []
        for c in self.cells:
            for offset, text in self.tex_texts(c.index):
                if "ref" not in text:  # every REF_COMMANDS name holds "ref"
                    continue
                for m in _REF.finditer(text):
                    if self.in_dropped_html(c.index, offset + m.start()):
                        continue
                    for name in m.group(2).split(","):
                        out.append(Site(name.strip(), c.index, offset + m.start(), m.group(1)))
            if self.exported(c):
                for text in self.metadata_texts(c):
                    for m in _REF.finditer(text):
                        out.extend(Site(n.strip(), c.index, None, m.group(1))
                                   for n in m.group(2).split(","))
        return out

    @cached_property
    def referenced(self) -> dict[str, set[int]]:
        """Label → cells that reference it."""
        out: dict[str, set[int]] = {}
        for site in self.references:
            out.setdefault(site.name, set()).add(site.cell)
        return out

    @cached_property
    def citations(self) -> list[Site]:
        """Every citation key (``\\cite{a,b}`` and pandoc ``[@a; @b]``)."""
        out: list[Site] = []
        for c in self.cells:
            pieces: list[tuple[int | None, str]] = list(self.tex_texts(c.index))
            if self.exported(c):
                pieces += [(None, t) for t in self.metadata_texts(c)]
            for offset, text in pieces:
                if "\\" not in text and "@" not in text:
                    continue
                for m in _CITE.finditer(text):
                    for key in m.group(2).split(","):
                        key = key.strip()
                        if key and key != "*":
                            at = None if offset is None else offset + m.start()
                            out.append(Site(key, c.index, at, m.group(1)))
                if "@" not in text:
                    continue
                for g in _PANDOC_GROUP.finditer(text):
                    for k in _PANDOC_KEY.finditer(g.group(1)):
                        key = k.group(1).rstrip(".:,;")
                        at = None if offset is None else offset + g.start()
                        out.append(Site(key, c.index, at, "pandoc"))
        return out

    # ---- the argument's structure --------------------------------------------------------
    @cached_property
    def key_equations(self) -> dict[int, list[KeyEquation]]:
        """Cell → its key display equations in source order: the first display of a
        ``formula`` cell, and every labelled display of a formula cell or of a main-text cell
        whose role is in ``KEY_EQUATION_ROLES``."""
        formula_roles = set(obligation_roles("needs-motivation")) | set(
            obligation_roles("needs-symbol-explanation"))
        out: dict[int, list[KeyEquation]] = {}
        for idx, scan in sorted(self.scans.items()):
            cell = self.cells[idx]
            is_formula = cell.role in formula_roles
            if not is_formula and (cell.role not in KEY_EQUATION_ROLES
                                   or not self.in_main_text(cell)):
                continue
            displays = [s for s in scan.spans if s.kind == "math" and s.display]
            for k, span in enumerate(displays):
                body = scan.source[span.start:span.end]
                label = None
                if "\\label{" in body:
                    label = body.split("\\label{", 1)[1].split("}", 1)[0].strip()
                if label is None and not (is_formula and k == 0):
                    continue
                out.setdefault(idx, []).append((idx, span.start, span.end, label or cell.label))
        return out

    @cached_property
    def main_theorem(self) -> Cell | None:
        """The cell labelled ``thm:main``, else the first theorem in the main text."""
        for c in self.cells:
            if c.role == "theorem" and c.label in MAIN_LABELS:
                return c
        theorems = self.paper.cells_with_role("theorem")
        main = [c for c in theorems if self.in_main_text(c)]
        candidates = main or theorems
        return candidates[0] if candidates else None

    def block_after(self, cell: Cell) -> list[Cell]:
        """The cells after ``cell`` up to (not including) the next formal block."""
        out: list[Cell] = []
        for c in self.cells[cell.index + 1:]:
            if c.role in STATEMENT_BOUNDARY:
                break
            out.append(c)
        return out

    @cached_property
    def validated_by(self) -> dict[str, list[Cell]]:
        """Label → cells whose ``validates`` names it."""
        out: dict[str, list[Cell]] = {}
        for c in self.cells:
            for label in c.validates:
                out.setdefault(label, []).append(c)
        return out

    def closure_of(self, cell: Cell) -> list[Cell]:
        """The proofs / experiments that close ``cell`` (empty when the statement is open).

        A statement is closed by a proof anywhere in the document that refers to it: a
        ``proof`` cell that references its label or names it in its title, a sentence or
        heading that references it in proof words ("Proof of Theorem~\\ref{…}", "we prove
        Theorem~\\ref{…} in the appendix"), a heading "Proof of Theorem 2" that numbers it, a
        ``restatable`` twin followed by a proof, a proof or proof pointer in the block after it,
        a section-wide pointer to proofs that exist ("proofs for this section are in
        Appendix~\\ref{…}"). A result the paper cites needs none (``cited_result``)."""
        found: list[Cell] = []
        if cell.label:
            found += [c for c in self.validated_by.get(cell.label, []) if c is not cell]
            found += [c for c in self.cells if c.role == "proof" and c not in found and (
                c.index in self.referenced.get(cell.label, ()) or cell.label in (c.title or ""))]
            found += [self.cells[i] for i in self.proof_mentions.get(cell.label, ())
                      if i != cell.index and self.cells[i] not in found]
        found += [c for c in self.numbered_proofs.get(cell.index, ()) if c not in found]
        for c in self._after_twins(cell):
            if c not in found:
                found.append(c)
        if not found:
            found += self.section_pointer(cell)
        return sorted(found, key=lambda c: c.index)

    def _after_twins(self, cell: Cell) -> list[Cell]:
        """Proofs (or pointers) in the block after ``cell`` and after its restatements."""
        found: list[Cell] = []
        blocks = [self.block_after(cell)]
        m = _RESTATABLE.search(cell.source) if "restatable" in cell.source else None
        if m is not None:
            twin = re.compile(r"\\" + re.escape(m.group(1)) + r"\*?(?![A-Za-z@])")
            blocks += [self.block_after(c) for c in self.cells[cell.index + 1:]
                       if twin.search(c.source)]
        for block in blocks:
            for c in block:
                if c in found:
                    continue
                if c.role == "proof" and self.stated(c):
                    found.append(c)
                elif c.is_markdown and c.role not in ("note",) and (
                        _PROOF_OPENING.search(c.source) or (
                            _PROOF_POINTER.search(c.source)
                            and _POINTER_TARGET.search(c.source)
                            and not _NOT_PROVED.search(c.source))):
                    found.append(c)  # "*Proof.* …", "the proof is in Appendix \ref{app:proofs}"
        return found

    @cached_property
    def proof_mentions(self) -> dict[str, list[int]]:
        """Label → cells with a sentence (or heading) that references it in proof words:
        "Proof of Theorem~\\ref{thm:a}", "the proof of \\cref{thm:a} is in the appendix"."""
        out: dict[str, list[int]] = {}
        for site in self.references:
            if site.offset is None:
                continue
            c = self.cells[site.cell]
            if not c.is_markdown or c.role == "note":
                continue
            sentence = _sentence_at(c.source, site.offset)
            if _PROOF_WORD.search(sentence) and not _NOT_PROVED.search(sentence):
                cells = out.setdefault(site.name, [])
                if site.cell not in cells:
                    cells.append(site.cell)
        return out

    @cached_property
    def numbered_proofs(self) -> dict[int, list[Cell]]:
        """Statement cell → headings or sentences "Proof of Theorem 2" that number it (the n-th
        statement of that kind in the document)."""
        by_role: dict[str, list[Cell]] = {}
        for c in self.cells:
            if c.role in ("theorem", "lemma", "proposition", "corollary", "claim"):
                by_role.setdefault(c.role, []).append(c)
        out: dict[int, list[Cell]] = {}
        for c in self.cells:
            if not c.is_markdown or c.role == "note" or ("roof" not in c.source and \
                    "证明" not in c.source):
                continue
            for m in _NUMBERED_PROOF.finditer(c.source):
                kind = (m.group(1) or "").lower() or _ZH_KIND.get(m.group(3) or "", "")
                n = int(m.group(2) or m.group(4))
                statements = by_role.get(kind, [])
                if 0 < n <= len(statements) and statements[n - 1] is not c:
                    out.setdefault(statements[n - 1].index, []).append(c)
        return out

    def cited_result(self, cell: Cell) -> bool:
        """True when ``cell`` states another work's result: a citation in its title, or the
        last sentence before it cites or recalls ("classical", "we recall", 经典…)."""
        if cell.title and _CITED_RESULT.search(cell.title):
            return True
        before = self.cells[cell.index - 1] if cell.index > 0 else None
        if before is None or not before.is_markdown or before.role in STATEMENT_BOUNDARY or \
                before.role in ("proof", "note") or _HEADING_LEVEL.search(before.source.strip()):
            return False
        text = before.source.rstrip()
        if not text:
            return False
        paragraph = text.rsplit("\n\n", 1)[-1]
        return bool(_CITED_RESULT.search(paragraph))

    def section_pointer(self, cell: Cell) -> list[Cell]:
        """A sentence earlier in ``cell``'s section that sends every proof of the section to a
        place that exists ("Proofs for this section are in Appendix~\\ref{app:b}")."""
        found = self._section_pointers[cell.index]
        return [] if found is None else [found]

    @cached_property
    def _section_pointers(self) -> list[Cell | None]:
        """For each cell, the nearest earlier pointer cell since the last level-1 heading (one
        pass over the notebook: asked cell by cell, the walk back was quadratic)."""
        out: list[Cell | None] = []
        last: Cell | None = None
        for c in self.cells:
            out.append(last)
            if not c.is_markdown:
                continue
            heading = _HEADING_LEVEL.search(c.source.lstrip())
            if heading is not None:
                if len(heading.group(1)) == 1:
                    last = None  # a new top-level section: earlier pointers do not reach
                continue
            if c.role in STATEMENT_BOUNDARY or c.role in ("proof", "note"):
                continue
            if self._points_to_proofs(c):
                last = c
        return out

    def _points_to_proofs(self, c: Cell) -> bool:
        for m in _PLURAL_PROOFS.finditer(c.source):
            sentence = _sentence_at(c.source, m.start())
            targets = [n.strip() for r in _REF.finditer(sentence)
                       for n in r.group(2).split(",")]
            if (targets and all(t in self.labels for t in targets)) or (
                    not targets and _POINTER_TARGET.search(sentence)):
                return True
        return False

    def interpretation_of(self, cell: Cell) -> Cell | None:
        """The ``interpretation`` cell that follows ``cell`` within its block, if any."""
        return next((c for c in self.block_after(cell)
                     if c.role == "interpretation" and self.stated(c)), None)

    # ---- finding construction -------------------------------------------------------------
    def position(self, cell: int | None, offset: int | None) -> tuple[int | None, int | None]:
        """(line, column) of ``offset`` in ``cell``'s source, or (None, None)."""
        if cell is None or offset is None:
            return None, None
        scan = self.scans.get(cell)
        if scan is None:
            scan = ScannedText(self.cells[cell].source)
        return scan.position(offset)

    def cell_id(self, cell: int | None) -> str | None:
        """The nbformat id of cell ``cell``."""
        return self.cells[cell].id if cell is not None and 0 <= cell < len(self.cells) else None


def _sentence_at(text: str, at: int) -> str:
    """The sentence of ``text`` around offset ``at``."""
    start = 0
    for m in _SENTENCE_END.finditer(text, max(0, at - 400), at):
        start = m.end()
    end = _SENTENCE_END.search(text, at, at + 400)
    return text[start:end.start() + 1 if end else at + 400]


def finding(doc: Document, code: str, name: str, severity: Severity, message: str,
            cell: int | None = None, offset: int | None = None,
            labels: Iterable[str] = ()) -> Finding:
    """A ``Finding`` located at ``offset`` in ``cell`` (line/column/cell id filled in)."""
    line, column = doc.position(cell, offset)
    return Finding(code=code, name=name, severity=severity, message=message, cell=cell,
                   line=line, column=column, labels=tuple(labels), cell_id=doc.cell_id(cell))


def obligation_roles(obligation: str) -> list[str]:
    """Names of the roles with ``obligation`` in the role registry."""
    return [r.name for r in with_obligation(obligation)]


def role_display(role: str | None) -> str:
    """How a role is named in messages."""
    if role is None:
        return "cell"
    r = get_role(role)
    return f"`{role}`" if r else role
