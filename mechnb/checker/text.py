"""Rules about the text itself: balanced and safe TeX, no leftovers from drafting."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import WORD, Document

if TYPE_CHECKING:
    from .rule import Rule

_DANGEROUS = re.compile(
    r"\\(?P<cmd>write)\s*18\b"
    r"|\\immediate\s*\\(?P<imm>write)"
    r"|\\(?P<cs>csname)\s*(?:write|immediate|openout|openin|input|include|@@input)"
    r"|\\(?P<macro>input|include|@@input)\*?\s*\{\s*\\"  # a path built from macros
    r"|\\(?P<open>openout|openin|directlua|ShellEscape|ShellEscapeSetup)(?![A-Za-z])"
    r"|\\(?P<inp>@@input|input|include|InputIfFileExists|lstinputlisting|verbatiminput|VerbatimInput"
    r"|inputminted|includegraphics|import|subimport|includepdf)\*?"
    r"\s*(?:\[[^\]]*\]\s*)?(?:\{[^{}]*\}\s*)?"  # optional argument; \inputminted{lang}{file}
    r"(?:\{(?P<arg>[^{}]*)\}|(?P<bare>[^\s{}\\]+))"
)
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


def check_balanced(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Braces, ``$``/``$$`` and environments balance, reported at both ends."""
    for idx, scan in doc.scans.items():
        for problem in scan.problems:
            yield rule.at(doc, problem.message, idx, problem.start)


def _dangerous_reason(m: re.Match[str]) -> str | None:
    if m.group("cmd") or m.group("imm"):
        return "writes to files or runs shell commands"
    if m.group("cs"):
        return "builds a file or shell command name with \\csname"
    if m.group("macro"):
        return "reads a file whose path is built from macros; write a plain relative path"
    if m.group("open"):
        return f"(\\{m.group('open')}) opens files or runs code outside the paper"
    path = (m.group("arg") if m.group("arg") is not None else m.group("bare") or "").strip()
    if path.startswith("|"):
        return "pipes a shell command into TeX"
    if path.startswith(("/", "~", "\\\\")) or re.match(r"[A-Za-z]:[\\/]", path):
        return f"reads the absolute path {path!r}"
    if ".." in re.split(r"[\\/]", path):
        return f"reads {path!r} outside the paper's folder"
    return None


def check_dangerous(doc: Document, rule: Rule) -> Iterator[Finding]:
    """TeX that could reach outside the paper (shell escape, file writes, absolute inputs)."""
    for c in doc.cells:
        pieces: list[tuple[int | None, str]] = list(doc.tex_texts(c.index))
        if doc.exported(c):
            pieces += [(None, t) for t in doc.metadata_texts(c)]
        for offset, text in pieces:
            if "\\" not in text:
                continue
            for m in _DANGEROUS.finditer(text):
                reason = _dangerous_reason(m)
                if reason is None:
                    continue
                at = None if offset is None else offset + m.start()
                shown = text[m.start():max(m.end(), m.start() + 32)].split("\n", 1)[0]
                if len(m.group()) < len(shown):
                    shown = shown.split(" ", 2)[0] if m.group("cs") is None else shown
                yield rule.at(doc, f"`{shown[:60]}` {reason}; remove it — mechnb runs TeX "
                                   f"without shell escape and keeps the paper self-contained",
                              c.index, at)


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
        yield rule.at(doc, f"template placeholder {slot!r} is still unfilled; replace it with "
                           f"your own text", cell, at)
