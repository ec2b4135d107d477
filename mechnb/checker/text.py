"""Rules about the text itself: balanced and safe TeX, no leftovers from drafting."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

_DANGEROUS = re.compile(
    r"\\(?P<cmd>write)\s*18\b"
    r"|\\immediate\s*\\(?P<imm>write)"
    r"|\\(?P<open>openout|openin|directlua|ShellEscape|ShellEscapeSetup)(?![A-Za-z])"
    r"|\\(?P<inp>input|include|InputIfFileExists|lstinputlisting|verbatiminput|VerbatimInput"
    r"|inputminted|includegraphics|import|subimport|includepdf)\*?"
    r"\s*(?:\[[^\]]*\]\s*)?(?:\{[^{}]*\}\s*)?"  # optional argument; \inputminted{lang}{file}
    r"(?:\{(?P<arg>[^{}]*)\}|(?P<bare>[^\s{}\\]+))"
)
_HARD_REF = re.compile(
    r"\b(?P<kind>Figures?|Figs?\.|Tables?|Tab\.|Sections?|Sec\.|Theorems?|Thm\.|Lemmas?|"
    r"Propositions?|Prop\.|Corollary|Corollaries|Definitions?|Def\.|Equations?|Eqs?\.|"
    r"Assumptions?|Claims?|Appendix|Algorithms?|Remarks?|Experiments?)"
    r"[ \t~]*\(?(?:\d+(?:\.\d+)*|[A-H](?:\.\d+)*)\)?(?![\w])"
    r"|(?P<zh>(?:图|表|定理|引理|命题|推论|定义|公式|假设|附录)[ \t]*[（(]?\d+"
    r"|第[ \t]*\d+[ \t]*[节章])"
)
_CITED_AFTER = re.compile(r"\s+(?:of|in|from)\s+(?:\\cite|\\citet|\\citep|\[@|@)")
_TODO = re.compile(r"\b(?:TODO|FIXME|XXX|TBD)\b|待补充|待完成|待定")
_PLACEHOLDER = re.compile(r"(?<![\w\]}\\!^`])\[(?P<body>[^\[\]\n]{1,80})\](?![(\[:{])")
_PLACEHOLDER_BODY = re.compile(r"^[A-Za-z\u3400-\u9fff][^\d\\$_^=+@<>{}|*#`]*$")
_LINK_DEF = re.compile(r"(?m)^[ \t]{0,3}\[([^\]\n]+)\]:")
_LONG_WORD = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff]")


def check_balanced(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Braces, ``$``/``$$`` and environments balance, reported at both ends."""
    for idx, scan in doc.scans.items():
        for problem in scan.problems:
            yield rule.at(doc, problem.message, idx, problem.start)


def _dangerous_reason(m: re.Match[str]) -> str | None:
    if m.group("cmd") or m.group("imm"):
        return "writes to files or runs shell commands"
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
                yield rule.at(doc, f"`{m.group()[:60]}` {reason}; remove it — mechnb runs TeX "
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
    """True for a template slot like ``phenomenon`` / ``factor A`` / ``现象``.

    Not a slot: intervals and lists of single letters (``a, b``), numbers, math, citations,
    task-list boxes (``x``), anything with digits or TeX.
    """
    body = body.strip()
    if not body or not _PLACEHOLDER_BODY.match(body):
        return False
    return bool(_LONG_WORD.search(body))


def check_placeholders(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Template slots (``[phenomenon]``) that were never filled in."""
    link_defs: set[str] = set()
    for scan in doc.scans.values():
        if "]:" in scan.source:
            link_defs |= {m.group(1).strip().lower() for m in _LINK_DEF.finditer(scan.source)}
    for cell, offset, text in _prose_pieces(doc):
        if "[" not in text:
            continue
        for m in _PLACEHOLDER.finditer(text):
            body = m.group("body")
            if not is_placeholder(body) or body.strip().lower() in link_defs:
                continue
            at = None if offset is None else offset + m.start()
            yield rule.at(doc, f"template placeholder {m.group()!r} is still unfilled; replace "
                               f"it with your own text", cell, at)
