"""Rules about the text itself: balanced and safe TeX, no leftovers from drafting."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from ..findings import Finding
from ..paper_paths import resolve_in_folder
from ..tex.scan import ScannedText, find_dangerous, scan_markdown
from .document import WORD, Document

if TYPE_CHECKING:
    from .rule import Rule

_HARD_REF = re.compile(
    r"\b(?P<kind>Figures?|Figs?\.|Tables?|Tab\.|Sections?|Sec\.|Theorems?|Thm\.|Lemmas?|"
    r"Propositions?|Prop\.|Corollary|Corollaries|Definitions?|Def\.|Equations?|Eqs?\.|"
    r"Assumptions?|Claims?|Appendix|Algorithms?|Remarks?|Experiments?)"
    r"[ \t~]*\(?(?:\d+(?:\.\d+)*[a-z]?|[A-H](?:\.\d+)*)\)?(?![\w])"
    r"|(?P<zh>(?:图|表|定理|引理|命题|推论|定义|公式|假设|附录)[ \t]*[（(]?\d+"
    r"|第[ \t]*\d+[ \t]*[节章])"
)
_CITED_AFTER = re.compile(r"\s+(?:of|in|from)\s+(?:\\cite|\\citet|\\citep|\[@|@)")
_TODO = re.compile(r"\b(?:TODO|FIXME|XXX|TBD)\b|待补充|待完成|待定")
_PLACEHOLDER = re.compile(r"(?<![A-Za-z0-9_}\\!^`])\[(?P<body>[^\[\]\n]{1,160})\](?![({])")
_PLACEHOLDER_BODY = re.compile(r"^[A-Za-z\u3400-\u9fff][^\d\\$_^=+@<>{}|*#`]*$")
_INLINE_MATH = re.compile(r"\$[^$\n]*\$")
_MATH_SLOT = re.compile(r"(?<![A-Za-z0-9})\]^_\\])\[\s*\\text\{[^\[\]\n]*\]")
_EXAMPLE_HINT = re.compile(r"\be\.g\.|例如")
_LINK_DEF = re.compile(r"(?m)^[ \t]{0,3}\[([^\]\n]+)\]:")


BALANCE_FINDINGS_PER_CELL = 20
"""Unbalanced delimiters reported one by one per cell; the rest are counted in one finding
(60,000 stray braces are one mistake repeated, and printing each would take seconds)."""


def check_balanced(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Braces, ``$``/``$$`` and environments balance, reported at both ends."""
    for idx, scan in doc.scans.items():
        for problem in scan.problems[:BALANCE_FINDINGS_PER_CELL]:
            yield rule.at(doc, problem.message, idx, problem.start)
        rest = scan.problems[BALANCE_FINDINGS_PER_CELL:]
        if rest:
            yield rule.at(doc, f"{len(rest)} more unbalanced delimiters in this cell, the first "
                               f"at {scan.where(rest[0].start)} (only the first "
                               f"{BALANCE_FINDINGS_PER_CELL} are listed one by one)",
                          idx, rest[0].start)


BUILTIN_TEMPLATES = ("article", "ctexart")
"""Template names that are not files (``mechnb.exporter.latex.BUILTIN_TEMPLATES``)."""
GATE_FINDINGS_PER_PIECE = 20
"""Gate findings reported one by one per piece of text; the rest are counted in one finding."""
GATE_PARSE_LIMIT = 20_000
"""Characters of a cell the gate parses with the exporter's markdown parser (see
``_exported_tex_outside_math``); code in a larger cell that looks dangerous is refused as is."""
GATE_FILE_LIMIT = 2_000_000
"""Bytes of a template or .bib read for the gate (larger files are refused unread)."""


def gate_pieces(doc: Document
                ) -> Iterator[tuple[int | None, int | None, str, str, bool | None]]:
    # is_tex: True for TeX, False for prose, None for a template file (judged as a preamble)
    """``(cell, offset, text, where, is_tex)`` for everything of the notebook that reaches the .tex.

    Markdown prose and math, raw cells, ``text/latex`` / ``text/markdown`` outputs of exported
    code cells, cell labels / titles / captions, the notebook's title and authors, and the
    template and .bib files the notebook metadata names (their TeX is compiled too). ``where`` is
    empty for cell source, else says which part it is.
    """
    meta = doc.paper.meta
    if meta.title:
        yield None, None, meta.title, "notebook metadata.mechnb.title", True
    for author in meta.authors:
        yield None, None, author, "notebook metadata.mechnb.authors", False
    for cell in doc.cells:
        if not doc.exported(cell):
            continue
        scan = doc.scans.get(cell.index)
        if scan is not None:
            for span in scan.spans:
                if span.kind != "code":
                    yield (cell.index, span.start, scan.source[span.start:span.end], "",
                           span.kind == "math")
            yield from ((cell.index, offset, tex, "", True)
                        for offset, tex in _exported_tex_outside_math(scan))
        raw = doc.raw_tex.get(cell.index)
        if raw is not None:
            yield cell.index, 0, raw, "", True
        for key in ("label", "title", "caption"):
            value = getattr(cell, key)
            if value:
                if key != "caption" or "$" not in value:
                    yield cell.index, None, value, f"metadata.mechnb.{key}", key != "caption"
                    continue
                # a caption is markdown: its prose is judged as prose, its math as TeX (so
                # key= options count there too)
                for span in scan_markdown(value).spans:
                    yield (cell.index, None, value[span.start:span.end],
                           "metadata.mechnb.caption", span.kind == "math")
        if cell.cell_type == "code" and cell.role is not None:
            for n, output in enumerate(cell.outputs):
                data = output.get("data")
                if not isinstance(data, Mapping):
                    continue
                for mime in ("text/latex", "text/markdown"):
                    if mime in data:
                        value = data[mime]
                        text = "".join(map(str, value)) if isinstance(value, list) else str(value)
                        yield cell.index, None, text, f"output {n + 1} ({mime})", True
    folder = doc.paper.path.parent if doc.paper.path else None
    for key, value in (("template", meta.template), ("bibliography", meta.bibliography)):
        if not value or (key == "template" and value in BUILTIN_TEMPLATES):
            continue
        for name in value.split(",") if key == "bibliography" else [value]:
            name = name.strip()
            if key == "bibliography" and name and not name.endswith(".bib"):
                name += ".bib"
            path, _ = resolve_in_folder(folder, name)
            content = _read_small(path) if path is not None else None
            if content:
                yield (None, None, content, f"the {key} file {name}",
                       None if key == "template" else True)


_EXPORTED_TEX_TOKENS = frozenset({"math_inline", "math_inline_double", "math_block",
                                  "math_block_label", "amsmath", "latex_ref"})
"""markdown-it tokens whose content the exporter writes into the .tex as TeX."""


def _exported_tex_outside_math(scan: ScannedText) -> Iterator[tuple[int | None, str]]:
    """TeX the exporter's markdown parser finds where the scanner saw code or prose.

    The scanner only approximates CommonMark: a backtick inside a raw HTML tag or an autolink,
    a fence whose info string holds a backtick, a fence closed by the end of its list item all
    hide math from it that markdown-it (and so the .tex) sees. So a cell whose code or prose
    holds what the gate refuses in TeX is parsed as the exporter parses it, and every piece of
    TeX outside the scanner's math is judged too (``(offset in the cell or None, text)``). A
    cell too large to parse quickly has those code and prose spans judged as TeX instead.
    """
    source = scan.source
    suspect = [s for s in scan.spans if s.kind != "math"
               and find_dangerous(source[s.start:s.end], limit=1)]
    if not suspect:
        return
    if len(source) > GATE_PARSE_LIMIT:
        for span in suspect[:GATE_FINDINGS_PER_PIECE + 1]:
            yield span.start, source[span.start:span.end]
        return
    from ..tex.markdown import parse

    math = [(s.start, s.end) for s in scan.spans if s.kind == "math"]
    starts = [start for start, _ in math]
    cursor = 0
    found = 0
    stack = list(reversed(parse(source)))
    while stack and found <= GATE_FINDINGS_PER_PIECE:
        token = stack.pop()
        if token.children:
            stack.extend(reversed(token.children))
        if token.type not in _EXPORTED_TEX_TOKENS or not find_dangerous(token.content, limit=1):
            continue
        at = source.find(token.content, cursor)
        if at >= 0:
            cursor = at + len(token.content)
            k = bisect.bisect_right(starts, at) - 1
            if k >= 0 and math[k][1] >= cursor:
                continue  # inside a math span the scanner judged already
        found += 1
        yield (at if at >= 0 else None), token.content


def _read_small(path: Path) -> str | None:
    try:
        if path.stat().st_size > GATE_FILE_LIMIT:
            return None
        return path.read_text("utf-8", errors="replace")
    except (OSError, ValueError):
        return None


def check_dangerous(doc: Document, rule: Rule) -> Iterator[Finding]:
    """TeX that could reach outside the paper: the gate ``export --pdf`` enforces."""
    for cell, offset, text, where, is_tex in gate_pieces(doc):
        hits = find_dangerous(text, keys=is_tex is not False, limit=GATE_FINDINGS_PER_PIECE + 1,
                              template=is_tex is None)
        if len(hits) > GATE_FINDINGS_PER_PIECE:
            first = hits[GATE_FINDINGS_PER_PIECE]
            at = None if offset is None else offset + first.offset
            yield rule.at(doc, f"{where + ': ' if where else ''}more TeX that could reach "
                               f"outside the paper from `{first.snippet}` on (only the first "
                               f"{GATE_FINDINGS_PER_PIECE} places are listed); remove it",
                          cell, at)
            hits = hits[:GATE_FINDINGS_PER_PIECE]
        for hit in hits:
            at = None if offset is None else offset + hit.offset
            place = f"{where}: " if where else ""
            yield rule.at(doc, f"{place}`{hit.snippet}` {hit.reason}; remove it — mechnb "
                               f"keeps the paper self-contained and will not compile it to PDF "
                               f"without --trust", cell, at)


_IMAGE_REF = re.compile(r"!\[[^\[\]\n]{0,1000}\]\(\s{0,20}<?([^()<>\s]{1,2000})")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def check_resources(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Images, the .bib and the template lie inside the notebook's folder (symlinks followed)."""
    folder = doc.paper.path.parent if doc.paper.path else None
    meta = doc.paper.meta
    if meta.template and meta.template not in BUILTIN_TEMPLATES:
        _, why = resolve_in_folder(folder, meta.template)
        if why:
            yield rule.at(doc, f"metadata.mechnb.template {meta.template!r} {why}; it is not used "
                               f"— put the template next to the notebook")
    for name in (meta.bibliography or "").split(","):
        name = name.strip()
        if name:
            _, why = resolve_in_folder(folder, name if name.endswith(".bib") else name + ".bib")
            if why:
                yield rule.at(doc, f"metadata.mechnb.bibliography {name!r} {why}; it is not "
                                   f"used — put the .bib next to the notebook")
    for idx, scan in doc.scans.items():
        if "](" not in scan.source:
            continue
        for span in scan.spans:
            if span.kind != "prose":
                continue
            for m in _IMAGE_REF.finditer(scan.source, span.start, span.end):
                src = unquote(m.group(1))
                if src.startswith("attachment:") or _SCHEME.match(src):
                    continue
                _, why = resolve_in_folder(folder, src)
                if why:
                    yield rule.at(doc, f"image {src[:80]!r} {why}; copy it next to the notebook",
                                  idx, m.start())


BAD_NAME = re.compile(r"[\s#%\\{}$&~^,]")
"""Characters a label or citation key cannot hold in the .tex (they end or escape the name)."""


def check_names(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Labels, references, citation keys and ``validates`` entries use characters TeX accepts."""
    def bad(name: str) -> bool:
        return bool(BAD_NAME.search(name.strip()))

    for c in doc.cells:
        for key, names in (("label", [c.label] if c.label else []),
                           ("validates", list(c.validates))):
            for name in names:
                if bad(name):
                    yield rule.at(doc, f"metadata.mechnb.{key} {name[:60]!r} contains characters "
                                       f"a LaTeX label cannot hold (spaces, # % \\ {{ }} $ & ~ "
                                       f"^ ,); rename it, e.g. thm:main", c.index, None, (name,))
    for name, sites in doc.label_sites.items():
        for site in sites:
            if site.command == "label" and bad(name):
                yield rule.at(doc, f"\\label{{{name[:60]}}} contains characters a LaTeX label "
                                   f"cannot hold; rename it", site.cell, site.offset, (name,))
    for site in doc.references:
        if bad(site.name):
            yield rule.at(doc, f"\\{site.command}{{{site.name[:60]}}} names a label with "
                               f"characters LaTeX cannot hold; fix the name", site.cell,
                          site.offset, (site.name,))
    for site in doc.citations:
        if bad(site.name):
            yield rule.at(doc, f"citation key {site.name[:60]!r} contains characters BibTeX keys "
                               f"cannot hold in the .tex (spaces, # % \\ {{ }} $ & ~ ^); fix "
                               f"the key", site.cell, site.offset, (site.name,))


def _prose_pieces(doc: Document, with_metadata: bool = True
                  ) -> Iterator[tuple[int | None, int | None, str]]:
    """``(cell, offset, text)`` for every piece of prose that reaches the paper."""
    for idx, scan in doc.scans.items():
        for span in scan.spans:
            if span.kind == "prose":
                yield idx, span.start, scan.source[span.start:span.end]
    if with_metadata:
        if doc.paper.meta.title:
            yield None, None, doc.paper.meta.title
        for c in doc.cells:
            if doc.exported(c):
                for text in doc.metadata_texts(c):
                    yield c.index, None, text


def check_hard_coded(doc: Document, rule: Rule) -> Iterator[Finding]:
    """"Figure 3" / "Section 2" / "Theorem 1" written by hand instead of ``\\cref``."""
    for cell, offset, text in _prose_pieces(doc):
        for m in _HARD_REF.finditer(text):
            if _CITED_AFTER.match(text, m.end()):
                continue  # "Theorem 2 of \citet{x}" is about another paper
            at = None if offset is None else offset + m.start()
            yield rule.at(doc, f"{m.group()!r} is a hard-coded number that breaks when the paper "
                               f"is reordered; use \\cref{{<label>}} instead", cell, at)


def check_todo(doc: Document, rule: Rule) -> Iterator[Finding]:
    """TODO/FIXME/XXX/TBD left in the text."""
    for cell, offset, text in _prose_pieces(doc):
        for m in _TODO.finditer(text):
            at = None if offset is None else offset + m.start()
            yield rule.at(doc, f"{m.group()!r} left in the text; finish it or move it to a "
                               f"`note` cell (never exported)", cell, at)


def is_placeholder(body: str) -> bool:
    """True for a template slot like ``phenomenon`` / ``factor A`` / ``现象`` / ``i``.

    Not a slot: intervals and lists of single letters (``a, b``), task-list boxes (``x``),
    numbers, citations, anything with digits or TeX. Inline math inside the slot
    (``[condition on $w$]``) counts as a word.
    """
    body = _INLINE_MATH.sub("X", body).strip()
    if body[:1].isalpha() and _EXAMPLE_HINT.search(body):
        return True  # "[format, e.g. bfloat16]": a slot that shows an example
    if not body or not _PLACEHOLDER_BODY.match(body):
        return False
    if len(body) == 1:
        return body not in "xX"
    return bool(WORD.search(body))


def _slots_in_cell(doc: Document, idx: int, link_defs: set[str]) -> Iterator[tuple[int, str]]:
    """``(offset, slot)`` of every unfilled slot in a markdown cell's prose and math."""
    scan = doc.scans[idx]
    src = scan.source
    if "[" not in src:
        return
    prose = [(s.start, s.end) for s in scan.spans if s.kind == "prose"]
    starts = [a for a, _ in prose]

    def in_prose(offset: int) -> bool:
        k = bisect.bisect_right(starts, offset) - 1
        return k >= 0 and prose[k][0] <= offset < prose[k][1]

    for m in _PLACEHOLDER.finditer(src):
        if not (in_prose(m.start()) and in_prose(m.end() - 1)) or "`" in m.group("body"):
            continue
        body = m.group("body")
        line_start = m.start() == 0 or src[m.start() - 1] == "\n"
        if line_start and src.startswith(":", m.end()):
            continue  # a link reference definition "[name]: url"
        following = re.match(r"\[([^\[\]\n]*)\]", src[m.end():m.end() + 162])
        if body.strip().lower() in link_defs or (
                following and following.group(1).strip().lower() in link_defs):
            continue  # a reference-style link [text][ref] / [ref]
        if is_placeholder(body):
            yield m.start(), m.group()
    for span in scan.spans:
        if span.kind == "math" and "\\text" in src[span.start:span.end]:
            for m in _MATH_SLOT.finditer(src, span.start, span.end):
                yield m.start(), m.group()


def check_placeholders(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Template slots (``[phenomenon]``, ``$[\\text{bound}]$``) that were never filled in."""
    link_defs: set[str] = set()
    for scan in doc.scans.values():
        if "]:" in scan.source:
            link_defs |= {m.group(1).strip().lower() for m in _LINK_DEF.finditer(scan.source)}
    found: list[tuple[int | None, int | None, str]] = []
    for idx in doc.scans:
        found += [(idx, at, slot) for at, slot in _slots_in_cell(doc, idx, link_defs)]
    for cell, _offset, text in _prose_pieces(doc):
        if _offset is None and "[" in text:  # title and captions
            found += [(cell, None, m.group()) for m in _PLACEHOLDER.finditer(text)
                      if is_placeholder(m.group("body"))]
    for cell, at, slot in sorted(found, key=lambda f: (f[0] is not None, f[0] or 0, f[1] or 0)):
        yield rule.at(doc, f"template slot {slot} is still unfilled; replace it with "
                           f"your own text", cell, at)


def cell_slots(doc: Document, idx: int) -> list[tuple[int, str]]:
    """``(offset, slot)`` of the unfilled template slots in one markdown cell's text (the slots
    MECH025 reports; other rules skip cells still made of slots)."""
    scan = doc.scans.get(idx)
    if scan is None or "[" not in scan.source:
        return []
    link_defs = {m.group(1).strip().lower() for m in _LINK_DEF.finditer(scan.source)}
    return list(_slots_in_cell(doc, idx, link_defs))
