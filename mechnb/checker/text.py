"""Rules about the text itself: balanced and safe TeX, no leftovers from drafting."""

from __future__ import annotations

import bisect
import json
import re
import shlex
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING
from urllib.parse import unquote

from ..findings import Finding, Severity
from ..lazyre import lazy
from ..paper_paths import resolve_in_folder
from ..tex.escape import is_safe_label
from ..tex.gate import BUILTIN_TEMPLATES
from .document import WORD, Document, finding

if TYPE_CHECKING:
    from ..notebook import Cell
    from .rule import Rule

_HARD_REF = lazy(
    r"\b(?P<kind>Figures?|Figs?\.|Tables?|Tab\.|Sections?|Sec\.|Theorems?|Thm\.|Lemmas?|"
    r"Propositions?|Prop\.|Corollary|Corollaries|Definitions?|Def\.|Equations?|Eqs?\.|"
    r"Assumptions?|Claims?|Appendix|Algorithms?|Remarks?|Experiments?)"
    r"[ \t~]*\(?(?:\d+(?:\.\d+)*[a-z]?|[A-H](?:\.\d+)*)\)?(?![\w])"
    r"|(?P<zh>(?:图|表|定理|引理|命题|推论|定义|公式|假设|附录)[ \t]*[（(]?\d+"
    r"|第[ \t]*\d+[ \t]*[节章])"
)
_WORK = r"(?:work|paper|article|book|survey|report|thesis|preprint|monograph)s?\b"
_CITED_AFTER = lazy(
    r"[\s~]*(?:\([^()]{0,20}\))?\s*(?:of|in|from)\s+(?:\\\w*cite|\[@|@|\[\d"
    r"|(?:their|his|her|its|that|the original|the cited|the (?:[A-Z][\w-]*\s+){1,2})\s*" + _WORK +
    r"|the (?:[\w-]+\s+){0,2}" + _WORK + r"\s*~?(?:\\\w*cite|\[\d|\[@|by\s|of\s+[A-Z]))")
_LOCATOR_BEFORE = lazy(
    r"(?:\\\w*cite\w*\*?\s*(?:\[[^\[\]]*\]\s*)?\[[^\[\]{}]*"  # \citep[see Theorem 3 in][]
    r"|\[[^\[\]]*\d[^\[\]]*,\s*[^\[\]]*"  # [12, Sec. 3]
    r"|\[@[^\[\]]*,\s*[^\[\]]*"  # [@key, Table 2]
    # \citet{x}, Section 4 / \citet{x}'s Table 2
    r"|\\\w*cite\w*\*?(?:\[[^\[\]]*\])*\{[^{}]*\}(?:'s|’s)?\s*[,(]?\s*(?:see\s+)?"
    r"|\b(?:their|his|her|its)\s+|(?:其|该文|原文|他们的|作者的)[^，。,.\s]{0,8}?)$")
"""What, right before a "Table 2", makes it a locator into another work: the optional argument
of a citation, a numbered citation's locator ("[12, Sec. 3]"), a citation just before ("\\citet{x},
Section 4"), a possessive ("their Figure 22", 其论文中的图22)."""
_TODO = lazy(r"\b(?:TODO|FIXME|XXX|TBD)\b|待补充|待完成|待定")
_PLACEHOLDER = lazy(r"(?<![A-Za-z0-9_}\\!^`])\[(?P<body>[^\[\]\n]{1,160})\](?![({])")
_PLACEHOLDER_BODY = lazy(r"^[A-Za-z\u3400-\u9fff][^\d\\$_^=+@<>{}|*#`]*$")
_INLINE_MATH = lazy(r"\$[^$\n]*\$")
_MATH_SLOT = lazy(r"(?<![A-Za-z0-9})\]^_\\])\[\s*\\text\{[^\[\]\n]*\]")
_EXAMPLE_HINT = lazy(r"\be\.g\.|例如")
_LINK_DEF = lazy(r"(?m)^[ \t]{0,3}\[([^\]\n]+)\]:")
_TOKEN_RE = lazy(r"\{\{\w+\}\}")


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


GATE_FINDINGS_PER_PLACE = 20
"""Refusals listed one by one for a cell (or the metadata); the rest are counted in one
finding."""


def check_dangerous(doc: Document, rule: Rule) -> Iterator[Finding]:
    """TeX the gate refuses (``mechnb.tex.gate``): it never compiles without --trust."""
    shown: dict[tuple[int | None, str], int] = {}
    for r in doc.gate.refused:
        key = (r.cell, r.where)
        shown[key] = shown.get(key, 0) + 1
        place = f"{r.where}: " if r.where else ""
        if shown[key] == GATE_FINDINGS_PER_PLACE + 1:
            yield rule.at(doc, f"{place}more TeX the gate refuses from `{r.snippet}` on (only "
                               f"the first {GATE_FINDINGS_PER_PLACE} places are listed); remove "
                               "it", r.cell, r.offset)
        if shown[key] > GATE_FINDINGS_PER_PLACE:
            continue
        yield rule.at(doc, f"{place}`{r.snippet}` {r.reason}; remove it — mechnb keeps the "
                           f"paper self-contained and will not compile it to PDF without "
                           f"--trust", r.cell, r.offset)


def check_needs_review(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Content off the allow-list, not refused, that this user has not approved yet."""
    from ..tex.trust import unapproved

    name = shlex.quote(doc.paper.path.name if doc.paper.path else "paper.ipynb")
    for item in unapproved(doc.gate):
        where = f"{item.where}: " if item.where and item.cell is not None else (
            f"{item.where} — " if item.where else "")
        yield rule.at(doc, f"{where}{item.reason}; `mechnb export --pdf` compiles it once you "
                           f"have read it and approved it with `mechnb trust {name}` (approval "
                           "covers exactly this content)", item.cell, item.offset)


_IMAGE_REF = lazy(r"!\[[^\[\]\n]{0,1000}\]\(\s{0,20}<?([^()<>\s]{1,2000})")
_SCHEME = lazy(r"[A-Za-z][A-Za-z0-9+.-]*:")


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


BAD_NAME = lazy(r"[\s#%\\{}$&~^,]")
"""Characters a label or citation key cannot hold in the .tex (they end or escape the name)."""


def check_names(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Labels, references, citation keys and ``validates`` entries use characters TeX accepts."""
    def bad(name: str) -> bool:  # a label may hold single spaces between words (LaTeX keeps them)
        return bool(name.strip()) and not is_safe_label(name.strip())

    for c in doc.cells:
        for key, names in (("label", [c.label] if c.label else []),
                           ("validates", list(c.validates))):
            for name in names:
                if bad(name):
                    yield rule.at(doc, f"metadata.mechnb.{key} {name[:60]!r} contains characters "
                                       f"a LaTeX label cannot hold (# % \\ {{ }} $ & ~ ^ , or "
                                       f"spaces at its ends or doubled); rename it, e.g. "
                                       f"thm:main", c.index, None, (name,))
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
        if BAD_NAME.search(site.name.strip()):
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


_OWN_HEADING_BEFORE = lazy(r"(?:^|\n)[ \t]*(?:\\noindent\s*)?(?:\*\*|__|\*|_|\\textbf\{|"
                          r"\\emph\{|\\textit\{|\\paragraph\{)?\s*$")
_OWN_HEADING_AFTER = lazy(r"\s*(?:\((?:[^()\n]|\([^()\n]{0,40}\)){1,80}\))?\s*[.:]")
"""A "Proposition 1 (Endpoints)." that opens a paragraph (bold or not) and ends in a full stop
or a colon names the statement that follows: it is the statement's heading, typed where a
theorem environment would number it, not a reference to another part of the paper."""


def _own_heading(doc: Document, cell: int | None, offset: int | None, text: str, start: int,
                 end: int) -> bool:
    """Is the match at ``start:end`` of a prose piece a statement's own heading? Read in the
    whole cell (a title may hold math, which the prose piece stops before)."""
    if cell is not None and offset is not None and cell in doc.scans:
        text, start, end = doc.scans[cell].source, offset + start, offset + end
    return bool(_OWN_HEADING_BEFORE.search(text, max(0, start - 40), start)
                and _OWN_HEADING_AFTER.match(text, end))


def check_hard_coded(doc: Document, rule: Rule) -> Iterator[Finding]:
    """"Figure 3" / "Section 2" / "Theorem 1" written by hand instead of ``\\cref``."""
    for cell, offset, text in _prose_pieces(doc):
        for m in _HARD_REF.finditer(text):
            if _CITED_AFTER.match(text, m.end()):
                continue  # "Theorem 2 of \citet{x}" is about another paper
            if _LOCATOR_BEFORE.search(text, max(0, m.start() - 120), m.start()):
                continue  # "\citep[Prop. A.22]{x}", "their Figure 22": a locator into another work
            at = None if offset is None else offset + m.start()
            if _own_heading(doc, cell, offset, text, m.start(), m.end()):
                # "**Proposition 1 (Endpoints).** If …": the statement's own heading, numbered
                # by hand; no \cref can stand there, an environment numbers it
                kind = m.group().split()[0].split("~")[0].lower()
                yield rule.at(doc, f"{m.group()!r} numbers a statement by hand, and the number "
                                   f"breaks when the paper is reordered; set it in a `{kind}` "
                                   f"environment (LaTeX numbers it) with a \\label", cell, at)
                continue
            yield rule.at(doc, f"{m.group()!r} is a hard-coded number that breaks when the paper "
                               f"is reordered; use \\cref{{<label>}} instead", cell, at)


def check_todo(doc: Document, rule: Rule) -> Iterator[Finding]:
    """TODO/FIXME/XXX/TBD left in the text."""
    for cell, offset, text in _prose_pieces(doc):
        for m in _TODO.finditer(text):
            at = None if offset is None else offset + m.start()
            yield rule.at(doc, f"{m.group()!r} left in the text; finish it or move it to a "
                               f"`note` cell (never exported)", cell, at)


_DIMENSION_WORDS = frozenset((
    "batch", "seq", "sequence", "pos", "position", "positions", "head", "heads", "layer",
    "layers", "d_model", "d_head", "d_mlp", "d_vocab", "vocab", "hidden", "channel", "channels",
    "time", "token", "tokens", "dim", "feature", "features", "embed", "width", "height",
    "n_heads", "n_layers", "query", "key", "q", "k", "v", "row", "col", "i", "j"))
"""Names of tensor axes: ``[layer, pos, head]`` is a shape, not a template slot."""
_SHAPE_BEFORE = lazy(r"(?i)(?:shape|shaped|dimensions?|dims|indexed by|axes|size)\s*"
                     r"(?:of\s*|is\s*|=\s*|:\s*)?$")
_LIST_STEP = lazy(r"^[ \t]*(?:\d+[.)]|[-*+])[ \t]+$")


def is_placeholder(body: str) -> bool:
    """True for a template slot like ``phenomenon`` / ``factor A`` / ``现象`` / ``i``.

    Not a slot: intervals and lists of single letters (``a, b``), task-list boxes (``x``),
    numbers, citations, anything with digits or TeX; an editorial aside written with spaces
    inside the brackets (``[ here the author … ]``: slots are written tight); a label in
    capitals (``[NOTE]``); a list of tensor axes (``[layer, pos, head]``). Inline math inside
    the slot (``[condition on $w$]``) counts as a word.
    """
    if body[:1].isspace() or body[-1:].isspace():
        return False
    letters = [c for c in body if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters if c.isascii()) and all(
            c.isascii() for c in letters):
        return False
    items = [t.strip().lower() for t in body.split(",")]
    if len(items) > 1 and all(t in _DIMENSION_WORDS for t in items):
        return False
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

    code = _indented_code(src)
    for m in _PLACEHOLDER.finditer(src):
        if not (in_prose(m.start()) and in_prose(m.end() - 1)) or "`" in m.group("body"):
            continue
        if doc.in_dropped_html(idx, m.start()) or any(a <= m.start() < b for a, b in code):
            continue  # raw HTML (a script's `([name, data]) =>`) or an indented code block
        if _quoted_or_labelled(src, m.start(), m.end()):
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


SLOTS_NAMED = 4
"""Slots a MECH025 finding names before "…"."""


def check_placeholders(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Template slots (``[phenomenon]``, ``$[\\text{bound}]$``) that were never filled in: one
    finding per cell, at its first slot. A cell that is still exactly what a template inserted
    is a note (the paper is being written; a fresh scaffold marks no cell); a cell the author
    has begun writing keeps its slots as a warning. A ``title`` cell that metadata's title
    overrides is not printed, so its slots are not reported (one note says so)."""
    link_defs: set[str] = set()
    for scan in doc.scans.values():
        if "]:" in scan.source:
            link_defs |= {m.group(1).strip().lower() for m in _LINK_DEF.finditer(scan.source)}
    meta_title = (doc.paper.meta.title or "").strip()
    overridden = {c.index for c in doc.cells if c.role == "title"} if meta_title else set()
    found: dict[int | None, list[tuple[int | None, str]]] = {}
    for idx in doc.scans:
        if idx not in overridden:
            for at, slot in _slots_in_cell(doc, idx, link_defs):
                found.setdefault(idx, []).append((at, slot))
    for cell, _offset, text in _prose_pieces(doc):
        if _offset is None and "[" in text and cell not in overridden:  # title and captions
            found.setdefault(cell, []).extend(
                (None, m.group()) for m in _PLACEHOLDER.finditer(text)
                if is_placeholder(m.group("body")))
    for idx in sorted(overridden):
        if any(True for _ in _slots_in_cell(doc, idx, link_defs)):
            yield finding(doc, rule.code, rule.name, Severity.INFO,
                          f"the paper's title comes from Paper Settings (\"{meta_title[:80]}\"), "
                          "so this title cell is not printed and its template slots do not "
                          "matter; delete the cell, or write the same title in it", idx, None)
    for cell in sorted(found, key=lambda c: (c is not None, c or 0)):
        slots = sorted(found[cell], key=lambda s: (s[0] is not None, s[0] or 0))
        first: int | None = next((a for a, _ in slots if a is not None), None)
        names = [s for _, s in slots]
        shown = ", ".join(names[:SLOTS_NAMED]) + (", …" if len(names) > SLOTS_NAMED else "")
        n = len(names)
        count = f"{n} template slot{'' if n == 1 else 's'}"
        if cell is not None and is_template_text(doc.cells[cell]):
            yield finding(doc, rule.code, rule.name, Severity.INFO,
                          f"this cell is still the template as inserted ({count}: {shown}); "
                          "write it in your own words, or delete it if the paper does not "
                          "need it", cell, first)
        else:
            yield rule.at(doc, f"{count} still unfilled: {shown}; replace "
                               f"{'it' if n == 1 else 'them'} with your own text", cell, first)


def is_template_text(cell: Cell) -> bool:
    """True when every line of ``cell`` (and its caption) is a line some template or scaffold
    inserts, tokens (labels, targets, titles) read as wildcards: nobody has written in it yet."""
    exact, by_prefix, loose = _template_lines()
    texts = [cell.source, *(t for t in (cell.caption,) if t)]
    for text in texts:
        for line in text.splitlines():
            line = line.strip()
            if not line or line in exact:
                continue
            candidates = by_prefix.get(line[:_PREFIX], [])
            if not any(_pieces_match(line, pieces) for pieces in (*candidates, *loose)):
                return False
    return True


_PREFIX = 6
"""Template lines with tokens are looked up by their first characters (no regex compiled)."""


def _pieces_match(line: str, pieces: tuple[str, ...]) -> bool:
    """``line`` is ``pieces`` joined by anything (the ``{{token}}``s of a template line)."""
    first, last = pieces[0], pieces[-1]
    if not line.startswith(first):
        return False
    at = len(first)
    for piece in pieces[1:-1]:
        k = line.find(piece, at)
        if k < 0:
            return False
        at = k + len(piece)
    return len(line) - len(last) >= at and line.endswith(last)


@cache
def _template_lines() -> tuple[frozenset[str], dict[str, list[tuple[str, ...]]],
                               list[tuple[str, ...]]]:
    """Every line of every template, scaffold and caption in both languages: the lines
    without tokens as a set; those with ``{{token}}``s as their literal pieces, indexed by
    their first characters (``loose``: lines that start with a token or a short piece)."""
    from .. import templates

    exact: set[str] = set()
    with_tokens: set[tuple[str, ...]] = set()

    def add(text: object) -> None:
        if isinstance(text, dict):
            for v in text.values():
                add(v)
            return
        if isinstance(text, list):
            text = "\n".join(str(t) for t in text)
        for line in str(text).splitlines():
            line = line.strip()
            if not line:
                continue
            if "{{" in line:
                with_tokens.add(tuple(_TOKEN_RE.split(line)))
            else:
                exact.add(line)

    def add_cell(cell: dict[str, object]) -> None:
        for key in ("source", "caption", "heading"):
            if key in cell:
                add(cell[key])

    for role in templates.template_roles():
        data = templates._template(role)
        for values in data.get("slots", {}).values():
            add(values)
        title_slot = data.get("slots", {}).get("title")
        for title in title_slot.values() if isinstance(title_slot, dict) else ():
            add(f"# {title}")
        for cells in data["variants"].values():
            for c in cells:
                add_cell(c)
    folder = resources.files("mechnb").joinpath("data/scaffolds")
    for entry in folder.iterdir():
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text("utf-8"))
            for c in data.get("cells", []):
                add_cell(c)
    for blank in templates.TITLE_BLANK.values():
        exact.add(f"# {blank}")
    exact.add("#")
    by_prefix: dict[str, list[tuple[str, ...]]] = {}
    loose: list[tuple[str, ...]] = []
    for pieces in sorted(with_tokens):
        if len(pieces[0]) >= _PREFIX:
            by_prefix.setdefault(pieces[0][:_PREFIX], []).append(pieces)
        else:
            loose.append(pieces)
    return frozenset(exact), by_prefix, loose


def _indented_code(src: str) -> list[tuple[int, int]]:
    """``[start, end)`` of the indented code blocks of a markdown source (as markdown-it reads
    them); parsed only when some line starts with four spaces or a tab."""
    if "\n    " not in src and "\n\t" not in src and not src.startswith(("    ", "\t")):
        return []
    from ..tex.markdown import block_span, walk

    starts = [0] + [m.end() for m in re.finditer("\n", src)] + [len(src)]
    return [block_span(token, starts) for token in walk(src)
            if token.type == "code_block" and token.map]


def _quoted_or_labelled(src: str, start: int, end: int) -> bool:
    """Is the bracket at ``[start, end)`` inside quoted material (a blockquote line, an
    unclosed ``"``/``“`` earlier in its paragraph, an open triple quote in the cell: a quoted
    prompt or passage, whose brackets belong to the quotation), after a word that names a
    tensor shape (``shape [batch, d]``), or the title of a list step whose text follows on the
    next lines (``2. [Policy evaluation]``)?"""
    para = max(src.rfind("\n\n", 0, start), -1) + 1
    before = src[para:start]
    line = src[src.rfind("\n", 0, start) + 1:start]
    if line.lstrip().startswith(">"):
        return True
    if before.count('"') % 2 or before.count("“") > before.count("”") or (
            src.count('"""', 0, start) % 2):
        return True
    if _SHAPE_BEFORE.search(before[-30:]):
        return True
    if _LIST_STEP.match(line):
        rest = src[end:src.find("\n", end) if "\n" in src[end:] else len(src)]
        following = src[end + len(rest) + 1:].split("\n", 1)[0]
        return not rest.strip() and bool(following.strip()) and following[:1] in " \t"
    return False


def cell_slots(doc: Document, idx: int) -> list[tuple[int, str]]:
    """``(offset, slot)`` of the unfilled template slots in one markdown cell's text (the slots
    MECH025 reports; other rules skip cells still made of slots)."""
    scan = doc.scans.get(idx)
    if scan is None or "[" not in scan.source:
        return []
    link_defs = {m.group(1).strip().lower() for m in _LINK_DEF.finditer(scan.source)}
    return list(_slots_in_cell(doc, idx, link_defs))
