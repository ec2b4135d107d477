"""A LaTeX paper → blocks of the argument model → a notebook (the same ``Paper`` a notebook gives).

The body (``\\begin{document}`` … ``\\end{document}``, text after it ignored) is parsed with
pylatexenc in tolerant mode and cut into blocks: one per paragraph (blank line), heading,
theorem-like environment, proof, abstract, figure or table, and environment MathJax cannot show.
Each block becomes one cell: markdown where ``convert`` can say it faithfully, raw LaTeX (which
exports unchanged) where it cannot. Roles come from the structure: theorem-like environments by
their declarations, proofs, the abstract, the appendix; the introduction's paragraphs by the
moves they make (gap, lens, contributions…); limitations and conclusions by their section; the
first paragraph after a statement that talks about it is its interpretation; figures, tables and
paragraphs of an experiments section that reference a statement validate it.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from pylatexenc import macrospec
from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexNode,
    LatexSpecialsNode,
    LatexWalker,
    LatexWalkerError,
    get_default_latex_context_db,
)

from ..notebook import CJK_RE
from ..tex.comments import comment_spans, literal_spans, mask_comments
from ..tex.escape import is_safe_name
from .convert import ACRONYM_FORMS, LISTS, MATH_ENVIRONMENTS, Converter, Markdown, Unconvertible
from .preamble import (
    NOT_THEOREMS,
    Declarations,
    bibliography_commands,
    document_class,
    find_authors,
    find_title,
    packages,
    read_declarations,
    role_for,
)
from .source import Problem as SourceProblem
from .source import Source, load_source, read_in_paper

SECTIONS = {"part": 0, "chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
            "paragraph": 4, "subparagraph": 5}
FIGURES = frozenset({"figure", "figure*", "table", "table*", "wrapfigure", "wraptable",
                     "SCfigure", "sidewaysfigure", "sidewaystable", "subfigure", "floatrow"})
DROPPED_MACROS = frozenset({
    "maketitle", "tableofcontents", "listoffigures", "listoftables", "bibliographystyle",
    "bibliography", "printbibliography", "addbibresource", "newpage", "clearpage",
    "cleardoublepage", "pagebreak", "vspace", "vskip", "smallskip", "medskip", "bigskip",
    "frontmatter", "mainmatter", "backmatter", "title", "author", "date", "icmltitle",
    "icmltitlerunning", "icmlauthor", "icmlaffiliation", "icmlcorrespondingauthor",
    "icmlkeywords", "icmlsetsymbol", "printAffiliationsAndNotice", "thanks", "affiliation",
    "printAffiliationsAndNoticeArxiv", "institute", "authorrunning", "titlerunning",
    "pagestyle", "thispagestyle",
    "nocite", "onecolumn", "twocolumn", "centering", "noindent",
    "makeatletter", "makeatother", "linenumbers", "FloatBarrier", "balance", "newline",
    "hypersetup", "graphicspath", "setlength", "setcounter", "addtocounter", "renewcommand",
    "newcommand", "providecommand", "def", "let", "DeclareMathOperator", "newtheorem",
    "theoremstyle", "newenvironment", "renewenvironment", "ctitle", "etitle", "cauthor",
    "eauthor", "keywords", "ckeywords", "ekeywords", "thusetup", "ustcsetup", "appendix",
    "listofalgorithms", "acknowledgments", "maketitlepage", "makedeclaration"})
"""Body macros that say nothing the notebook holds as text (layout, metadata, definitions)."""
MAX_NESTING = 1000
"""Braces and environments nested deeper than this are not taken apart (``nesting_depth``): the
body is kept as one raw LaTeX cell, with a finding."""
FRAMES_PER_LEVEL = 16
"""Python frames a nesting level may take while parsing and converting (measured: about 7)."""
MAX_PROBLEMS = 50
"""Problems of one kind listed one by one; more are counted in one."""
_BLANK = re.compile(r"\n[ \t]*\n\s*")
_IGNORE = re.compile(r"%\s*mech-ignore\s*:\s*([A-Za-z0-9_, -]+)")
_HEADING_CLASS: tuple[tuple[str, str], ...] = (
    (r"(?i)^\s*(?:\d+[.\s]*)?(introduction|overview)\b|引言|绪论|概述|简介|前言", "introduction"),
    (r"(?i)related\s+work|prior\s+work|background|literature|previous\s+work|相关工作|研究现状|背景",
     "related"),
    (r"(?i)limitation|局限|不足", "limitations"),
    (r"(?i)future\s+work|open\s+(?:question|problem)|未来工作|展望", "future"),
    (r"(?i)conclu|summary|discussion|结论|总结|结语|讨论", "conclusion"),
    (r"(?i)experiment|empirical|evaluation|results|simulation|numerical|实验|验证|评估|仿真",
     "experiments"),
    (r"(?i)appendix|附录", "appendix"),
)
_STATEMENT_ROLES = frozenset({"theorem", "lemma", "proposition", "corollary", "claim"})
_TALKS_ABOUT = re.compile(
    r"(?i)\b(?:this|the|our|above|previous|preceding)\s+(?:theorem|lemma|proposition|result|"
    r"corollary|claim|bound|statement)\b|\b(?:intuitively|in words|in other words|informally|"
    r"roughly speaking|that is|this means|means that|says that|shows that|implies that|"
    r"tells us|interpret|interpretation|implication)\b"
    r"|该定理|这一结果|上述|直观|换言之|也就是说|意味着")
_INTERVENTION = re.compile(r"(?i)interven|ablat|patch|knock|steer|causal|干预|消融")
_RESULT_ROLES = {"introduction": None, "related": "prior", "limitations": "limitations",
                 "future": "future", "conclusion": "conclusion"}
_INTRO_ROLES = {"context": "context", "prior": "prior", "gap": "gap", "lens": "lens",
                "contributions": "contributions", "key-step": "lens"}


@dataclass
class Block:
    """One future cell."""

    kind: str
    """``markdown`` or ``raw``."""
    source: str
    start: int
    end: int
    anchors: list[tuple[int, int]] = field(default_factory=list)
    role: str | None = None
    label: str | None = None
    title: str | None = None
    caption: str | None = None
    validates: list[str] = field(default_factory=list)
    exp_kind: str | None = None
    ignore: set[str] = field(default_factory=set)
    section: str | None = None
    """Class of the section the block is in (``introduction``, ``experiments``…)."""
    heading: int | None = None
    """Level of a heading block."""
    refs: set[str] = field(default_factory=set)
    """Labels the block references."""
    appendix: bool = False
    environment: str | None = None
    images: list[str] = field(default_factory=list)

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for key in ("role", "label", "title", "caption"):
            value = getattr(self, key)
            if value is not None:
                meta[key] = value
        if self.validates:
            meta["validates"] = list(self.validates)
        if self.exp_kind:
            meta["kind"] = self.exp_kind
        return meta


@dataclass
class Problem:
    """Something the reader reports (at a flattened offset, or the file when ``None``)."""

    slug: str
    message: str
    at: int | None = None


@dataclass
class LatexPaper:
    """What reading a LaTeX paper found."""

    source: Source
    declarations: Declarations
    blocks: list[Block]
    title: str | None
    authors: list[str]
    bibliography: list[str]
    bbl: Path | None
    lang: str
    document_class: tuple[str, str | None] | None
    packages: list[tuple[str, str | None]]
    problems: list[Problem]
    body_start: int
    bib_files: list[tuple[str, Path, bytes]] = field(default_factory=list)
    """``(name, path, bytes)`` of each ``.bib`` file ``\\bibliography`` names that lies in the
    paper's folder and was read (``name`` as written, with ``.bib``)."""
    bbl_data: bytes | None = None
    """The bytes of ``bbl``."""


_REF = re.compile(r"\\(?:ref|eqref|cref|Cref|autoref|Autoref|vref|nameref|labelcref|cpageref)"
                  r"\*?\{([^{}]*)\}")
_TITLE_BREAK = re.compile(r"\\\\\*?(?:\s*\[[^\]]{0,100}\])?|\\newline(?![A-Za-z@])")
"""A line break written in ``\\title{…}`` (``\\\\``, ``\\\\[2pt]``, ``\\newline``)."""
_BIB_COMMAND = re.compile(r"\\(?:bibliographystyle|bibliography|addbibresource|printbibliography)"
                          r"(?![A-Za-z@])\s*(?:\[[^\]]{0,1000}\])?\s*(?:\{[^{}]*\})?")
_CITES = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?[\[{]|\[@")


@cache
def _context_db(theorems: frozenset[str] = frozenset()) -> Any:
    """pylatexenc's macros and environments, plus what papers use (``theorems``: the paper's
    own theorem-like environments, which take an optional title)."""
    db = get_default_latex_context_db().filter_context()
    opt_env = ["proof", "figure", "figure*", "table", "table*", "theorem", "lemma",
               "proposition", "corollary", "definition", "assumption", "remark", "claim",
               *sorted(theorems)]
    db.add_context_category(
        "mechnb-latexin", prepend=True,
        macros=[macrospec.MacroSpec(name, "*[{") for name in SECTIONS]
        + [macrospec.MacroSpec(name, "{") for name in (
            "Cref", "autoref", "Autoref", "nameref", "icmltitle", "label", "subfile",
            "texttt", "textsc", "underline", "textsf", "textnormal", "ensuremath", "url",
            "textsubscript", "textsuperscript", "mathcal", "bibliographystyle")]
        + [macrospec.MacroSpec(name, "*[[{") for name in (
            "citet", "citep", "citealp", "citealt", "citeauthor", "citeyear", "Citet",
            "Citep", "citeyearpar", "parencite", "textcite", "autocite")]
        + [macrospec.MacroSpec("caption", "*[{"), macrospec.MacroSpec("includegraphics", "*[[{"),
           macrospec.MacroSpec("footnote", "[{"), macrospec.MacroSpec("item", "["),
           # the jmlr / PMLR classes' float body: \floatconts{label}{caption}{contents}
           macrospec.MacroSpec("floatconts", "{{{"),
           *(macrospec.MacroSpec(name, "*[{") for name in ACRONYM_FORMS),
           macrospec.MacroSpec("captionof", "*{[{"), macrospec.MacroSpec("vspace", "*{"),
           macrospec.MacroSpec("hspace", "*{"), macrospec.MacroSpec("icmlauthor", "{{"),
           # a venue's front matter in \twocolumn[…] (ICML): one node, dropped
           macrospec.MacroSpec("twocolumn", "["),
           macrospec.MacroSpec("icmlaffiliation", "{{"),
           macrospec.MacroSpec("icmlcorrespondingauthor", "{{"),
           macrospec.MacroSpec("printAffiliationsAndNotice", "{"),
           *(macrospec.MacroSpec(name, "{") for name in ("institute", "authorrunning",
                                                          "titlerunning"))],
        environments=[macrospec.EnvironmentSpec(name, "[") for name in opt_env]
        + [macrospec.EnvironmentSpec("restatable", "*[{{"),
           macrospec.EnvironmentSpec("subfigure", "[{"),
           macrospec.EnvironmentSpec("minipage", "[[[{"),
           macrospec.EnvironmentSpec("wrapfigure", "[{[{")])
    return db


def _blank_split(node: LatexCharsNode) -> list[LatexNode | None]:
    """A chars node cut at blank lines; ``None`` marks each paragraph break."""
    chars = node.chars
    if not _BLANK.search(chars):
        return [node]
    out: list[LatexNode | None] = []
    pos = 0
    for m in _BLANK.finditer(chars):
        if m.start() > pos:
            out.append(LatexCharsNode(chars=chars[pos:m.start()], pos=node.pos + pos,
                                      len=m.start() - pos, parsing_state=node.parsing_state))
        out.append(None)
        pos = m.end()
    if pos < len(chars):
        out.append(LatexCharsNode(chars=chars[pos:], pos=node.pos + pos, len=len(chars) - pos,
                                  parsing_state=node.parsing_state))
    return out


def _text_of(node: LatexNode | None, text: str) -> str:
    if node is None:
        return ""
    return text[node.pos:node.pos + node.len]


def _arg(node: LatexMacroNode | LatexEnvironmentNode, index: int) -> LatexNode | None:
    args = node.nodeargd.argnlist if node.nodeargd else []
    return args[index] if 0 <= index < len(args) or -len(args) <= index < 0 else None


def _inner(node: LatexNode | None, text: str) -> str:
    """The text of a group argument without its braces/brackets."""
    raw = _text_of(node, text).strip()
    return raw[1:-1] if raw[:1] in "{[" and raw[-1:] in "}]" else raw


def _find_macros(nodes: Sequence[LatexNode | None], names: frozenset[str]) -> list[LatexMacroNode]:
    out: list[LatexMacroNode] = []
    stack = [n for n in reversed(nodes) if n is not None]
    while stack:
        n = stack.pop()
        if isinstance(n, LatexMacroNode):
            if n.macroname in names:
                out.append(n)
            if n.nodeargd:
                stack.extend(a for a in reversed(n.nodeargd.argnlist) if a is not None)
        elif isinstance(n, (LatexGroupNode, LatexEnvironmentNode, LatexMathNode)):
            stack.extend(c for c in reversed(n.nodelist) if c is not None)
            if isinstance(n, LatexEnvironmentNode) and n.nodeargd:
                stack.extend(a for a in reversed(n.nodeargd.argnlist) if a is not None)
    return out


class _Reader:
    def __init__(self, src: Source, decl: Declarations, keep_hidden: bool = True) -> None:
        self.src = src
        self.text = src.text
        self.decl = decl
        self.convert = Converter(src.text, decl, keep_hidden)
        self.blocks: list[Block] = []
        self.pending: list[LatexNode] = []
        self.section: str | None = None
        self.appendix = False
        self.ignore_next: set[str] = set()
        self.problems: list[Problem] = []
        self.def_spans = _merged(decl.spans)
        self.comments = comment_spans(src.text)
        self.appendix_pending = False
        """``\\appendix`` was read: the next heading opens the appendix (role ``appendix``)."""
        self.has_chapters = False
        """The body uses ``\\chapter``: sections are one level down."""
        self.chapters_as_latex = True
        """A chapter heading stays LaTeX and sections keep ``#`` (see ``read_latex``)."""

    # -------------------------------------------------------------- blocks
    def add(self, block: Block) -> None:
        block.section = self.section
        block.appendix = self.appendix
        block.ignore |= self.ignore_next
        self.ignore_next = set()
        for m in _IGNORE.finditer(self.text, block.start, block.end):  # inside the block
            if self.in_comment(m.start()):
                block.ignore |= {c.strip().upper() for c in re.split(r"[,\s]+", m.group(1))
                                 if c.strip()}
        block.refs = {x.strip() for m in _REF.finditer(self.text, block.start, block.end)
                      for x in m.group(1).split(",") if x.strip()}
        self.blocks.append(block)

    def raw(self, start: int, end: int, **kw: Any) -> Block:
        body = self.text[start:end].strip("\n")
        lead = len(self.text[start:end]) - len(self.text[start:end].lstrip("\n"))
        return Block("raw", body, start, end, [(0, start + lead)], **kw)

    def flush(self) -> None:
        nodes = [n for n in self.pending if n is not None]
        self.pending = []
        if not any(not (isinstance(n, (LatexCharsNode,)) and not n.chars.strip())
                   and not isinstance(n, LatexCommentNode) for n in nodes):
            return
        while nodes and (isinstance(nodes[0], LatexCommentNode) or
                         (isinstance(nodes[0], LatexCharsNode) and not nodes[0].chars.strip())):
            nodes.pop(0)
        while nodes and isinstance(nodes[-1], LatexCharsNode) and not nodes[-1].chars.strip():
            nodes.pop()
        start, end = nodes[0].pos, nodes[-1].pos + nodes[-1].len
        md = self.markdown(nodes, start)
        if md is None:
            self.add(self.raw(start, end))
            return
        if md.text.strip():
            self.add(Block("markdown", md.text, start, end, md.anchors))

    def markdown(self, nodes: Sequence[LatexNode], start: int) -> Markdown | None:
        """The nodes as markdown, or ``None`` (kept as LaTeX) when markdown cannot say them."""
        try:
            return self.convert.paragraph(nodes)
        except Unconvertible:
            return None
        except (ValueError, IndexError, KeyError, TypeError, AttributeError,
                RecursionError) as exc:  # a construct the converter mishandles: keep the LaTeX
            self.problems.append(Problem("parse-error", f"this text is kept as LaTeX: mechnb "
                                         f"could not convert it ({type(exc).__name__}: {exc}); "
                                         "please report it", start))
            return None

    def in_comment(self, pos: int) -> bool:
        """``pos`` is a comment's ``%`` or inside the comment."""
        import bisect

        k = bisect.bisect_right(self.comments, (pos, 1 << 60)) - 1
        return k >= 0 and self.comments[k][0] <= pos < self.comments[k][1]

    # -------------------------------------------------------------- walking
    def in_definition(self, pos: int) -> bool:
        import bisect

        k = bisect.bisect_right(self.def_spans, (pos, 1 << 60)) - 1
        return k >= 0 and self.def_spans[k][0] <= pos < self.def_spans[k][1]

    def walk(self, nodes: Sequence[LatexNode]) -> None:
        k = 0
        while k < len(nodes):
            node = nodes[k]
            k += 1
            if node is None:
                continue
            if self.in_definition(node.pos):
                continue
            if isinstance(node, LatexCharsNode):
                for piece in _blank_split(node):
                    if piece is None:
                        self.flush()
                    else:
                        self.pending.append(piece)
            elif isinstance(node, LatexCommentNode):
                m = _IGNORE.search("%" + node.comment)
                if m:
                    codes = {c.strip().upper() for c in re.split(r"[,\s]+", m.group(1))
                             if c.strip()}
                    # inside a paragraph, add() finds the comment in the block's text;
                    # on a line of its own, it is for the block that follows
                    if not any(not isinstance(p, LatexCommentNode) for p in self.pending):
                        self.ignore_next |= codes
                if self.pending:
                    self.pending.append(node)
            elif isinstance(node, LatexMacroNode):
                k = self.macro(nodes, k - 1)
            elif isinstance(node, LatexEnvironmentNode):
                self.environment(node)
            else:
                self.pending.append(node)
        self.flush()

    def macro(self, nodes: Sequence[LatexNode], k: int) -> int:
        node = nodes[k]
        assert isinstance(node, LatexMacroNode)
        name = node.macroname
        if name in SECTIONS:
            self.flush()
            self.heading(node, nodes, k)
            return self._skip_label(nodes, k + 1)
        if name == "appendix":
            self.flush()
            self.appendix = True
            self.section = "appendix"
            self.appendix_pending = True
            return k + 1
        if name in ("bibliography", "printbibliography") or name == "end" or \
                (name in DROPPED_MACROS and not any(
                    not (isinstance(p, LatexCharsNode) and not p.chars.strip())
                    and not isinstance(p, LatexCommentNode) for p in self.pending)):
            if name in ("bibliography", "printbibliography"):
                self.flush()
            return k + 1
        if name == "item":
            self.pending.append(node)
            return k + 1
        self.pending.append(node)
        return k + 1

    def _skip_label(self, nodes: Sequence[LatexNode], k: int) -> int:
        """Attach a ``\\label`` right after a heading (spaces and comments between) to it."""
        j = k
        while j < len(nodes) and (isinstance(nodes[j], LatexCommentNode) or (
                isinstance(nodes[j], LatexCharsNode) and not nodes[j].chars.strip())):
            j += 1
        if j < len(nodes) and isinstance(nodes[j], LatexMacroNode) and \
                nodes[j].macroname == "label":
            label = _inner(_arg(nodes[j], -1), self.text).strip()
            if self.blocks and label:
                block = self.blocks[-1]
                block.label = label
                block.end = nodes[j].pos + nodes[j].len
                if block.kind == "raw" or not is_safe_name(label):
                    # the label stays in the LaTeX (a raw heading, or a name with spaces)
                    role = block.role
                    raw = self.raw(block.start, block.end, role=role, label=label)
                    raw.heading, raw.section, raw.appendix = block.heading, block.section, \
                        block.appendix
                    raw.refs, raw.ignore = block.refs, block.ignore
                    self.blocks[-1] = raw
            return j + 1
        return k

    def heading(self, node: LatexMacroNode, nodes: Sequence[LatexNode], k: int) -> None:
        title_node = _arg(node, -1)
        if title_node is None:  # \section without an argument: its text is the next group
            nxt = nodes[k + 1] if k + 1 < len(nodes) else None
            title_node = nxt if isinstance(nxt, LatexGroupNode) else None
        title_src = _inner(title_node, self.text)
        level = SECTIONS[node.macroname] + (0 if not self.has_chapters else 1)
        level = max(1, min(level, 6)) if node.macroname not in ("part", "chapter") else 1
        star = _arg(node, 0) is not None
        classified = None
        for pattern, what in _HEADING_CLASS:
            if re.search(pattern, title_src):
                classified = what
                break
        if level <= (2 if self.has_chapters else 1) or classified:
            if level <= (2 if self.has_chapters else 1):
                self.section = classified if not self.appendix else "appendix"
            elif classified in ("limitations", "future"):
                self.section = classified
        try:
            title = self.convert.inline(title_node.nodelist if isinstance(title_node,
                                                                          LatexGroupNode)
                                        else [title_node] if title_node else [])
        except Unconvertible:
            title = None
        end = node.pos + node.len
        # a book or thesis keeps its class's sectioning: its \chapter (and \part) stays LaTeX,
        # and a \section is a "#" heading, which the export writes as \section again
        as_latex = self.chapters_as_latex and self.has_chapters
        marks = max(1, min(SECTIONS[node.macroname], 6)) if as_latex else level
        if title is None or star or not title or (as_latex and node.macroname in ("part",
                                                                                 "chapter")):
            block = self.raw(node.pos, end)
        else:
            block = Block("markdown", "#" * marks + " " + title, node.pos, end,
                          [(0, node.pos), (marks + 1, (title_node.pos + 1) if title_node
                                           else node.pos)])
        block.heading = level
        if self.appendix_pending:
            block.role = "appendix"
            self.appendix_pending = False
        self.add(block)

    def environment(self, node: LatexEnvironmentNode) -> None:
        name = node.environmentname
        if name == "document":
            self.walk(node.nodelist)
            return
        if name in ("comment", "iffalse"):
            return
        if name in MATH_ENVIRONMENTS or name in LISTS:
            self.pending.append(node)
            return
        self.flush()
        start, end = node.pos, node.pos + node.len
        if name == "abstract":
            self.body_block(node, node.nodelist, role="abstract")
            return
        if name == "proof":
            title = _arg(node, 0)
            self.body_block(node, node.nodelist, role="proof", title_node=title)
            return
        if name == "restatable":
            env = _inner(_arg(node, 2), self.text).strip()
            role = self.decl.theorems.get(env) or role_for(env)
            block = self.raw(start, end, role=role if role != "other" else None)
            block.environment = env
            self.take_label(block, node.nodelist)
            self.add(block)
            return
        role = self.theorem_role(name)
        if role is not None:
            self.body_block(node, node.nodelist, role=role if role != "other" else None,
                            title_node=_arg(node, 0), environment=name)
            return
        if name in FIGURES:
            self.figure(node)
            return
        if self.holds_structure(node):
            # A frame around a proof, a statement or a figure (mdframed, tcolorbox, framed,
            # a minipage …) is layout: its content is read as if it stood in the text, so the
            # proof still closes its theorem and the figure is still a figure.
            self.walk(node.nodelist)
            self.flush()
            return
        self.add(self.raw(start, end))

    def holds_structure(self, node: LatexEnvironmentNode) -> bool:
        """Does ``node``'s body (at any depth, not inside math) hold a proof, a theorem-like
        statement or a figure?"""
        stack = [n for n in node.nodelist if n is not None]
        while stack:
            n = stack.pop()
            if isinstance(n, LatexEnvironmentNode):
                name = n.environmentname
                if name == "proof" or name in FIGURES or name == "restatable" or (
                        name not in MATH_ENVIRONMENTS and name not in LISTS
                        and self.theorem_role(name) not in (None, "other")):
                    return True
                if name not in MATH_ENVIRONMENTS:
                    stack.extend(c for c in n.nodelist if c is not None)
            elif isinstance(n, LatexGroupNode):
                stack.extend(c for c in n.nodelist if c is not None)
        return False

    def theorem_role(self, name: str) -> str | None:
        if name in self.decl.theorems:
            return self.decl.theorems[name]
        if name in NOT_THEOREMS or name in self.decl.environments:
            return None
        return role_for(name.rstrip("*"))

    def take_label(self, block: Block, nodes: Sequence[LatexNode]) -> LatexMacroNode | None:
        for n in nodes:
            if isinstance(n, LatexMacroNode) and n.macroname == "label":
                block.label = _inner(_arg(n, -1), self.text).strip() or None
                return n
        labels = _find_macros(nodes, frozenset({"label"}))
        if labels and block.role not in ("abstract", "proof", None):
            block.label = _inner(_arg(labels[0], -1), self.text).strip() or None
        return None

    def body_block(self, env: LatexEnvironmentNode, nodes: Sequence[LatexNode], role: str | None,
                   title_node: LatexNode | None = None, environment: str | None = None) -> None:
        start, end = env.pos, env.pos + env.len
        probe = Block("raw", "", start, end, role=role)
        label_node = self.take_label(probe, nodes)
        body = [n for n in nodes if n is not label_node]
        title: str | None = None
        ok = True
        if title_node is not None:
            try:
                title = self.convert.inline(title_node.nodelist if isinstance(
                    title_node, LatexGroupNode) else [title_node]).strip()
            except Unconvertible:
                ok = False
        md: Markdown | None = None
        if ok and role is not None:  # the export writes the role's own environment
            md = self.markdown(body, start)
        if md is not None:
            block = Block("markdown", md.text, start, end, md.anchors, role=role,
                          label=probe.label, title=title)
        else:
            block = self.raw(start, end, role=role, label=probe.label, title=title)
        block.environment = environment
        self.add(block)

    def figure(self, node: LatexEnvironmentNode) -> None:
        block = self.raw(node.pos, node.pos + node.len, role="figure")
        block.environment = node.environmentname
        captions = _find_macros(node.nodelist, frozenset({"caption", "captionof"}))
        if captions:
            cap = _arg(captions[-1], -1)
            try:
                block.caption = self.convert.inline(cap.nodelist if isinstance(
                    cap, LatexGroupNode) else [cap] if cap else []) or None
            except Unconvertible:
                block.caption = " ".join(_inner(cap, self.text).split()) or None
        labels = _find_macros(node.nodelist, frozenset({"label"}))
        if labels:
            block.label = _inner(_arg(labels[-1], -1), self.text).strip() or None
        elif conts := _find_macros(node.nodelist, frozenset({"floatconts"})):
            block.label = _inner(_arg(conts[-1], 0), self.text).strip() or None
        block.images = [_inner(_arg(g, -1), self.text).strip()
                        for g in _find_macros(node.nodelist, frozenset({"includegraphics"}))]
        self.add(block)



def _guess_lang(text: str) -> str:
    cjk = len(CJK_RE.findall(text))
    latin = len(re.findall(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", text)))
    return "zh" if cjk and cjk * 3 >= 0.8 * latin else "en"


_ANNOUNCES_INTERPRETATION = re.compile(
    r"(?i)^#+\s*(?:\**\s*)?(?:an? )?(?:interpretations?|intuitions?|interpreting|intuitively|"
    r"meaning|what (?:this|it|the \w+) (?:means|says)|in (?:plain )?words|takeaways?|"
    r"insights?)\b|^#+\s*(?:解释|直观|含义|解读|直观理解)")
"""A run-in heading (``\\paragraph{Interpretation: …}``) that announces the interpretation of
the statement before it."""


def _annotate(blocks: list[Block], lang: str) -> None:
    """Roles from the structure: introduction moves, sections, interpretations, validation."""
    from ..moves.paper import _untyped_moves

    statements = {b.label: b for b in blocks if b.role in _STATEMENT_ROLES and b.label}
    for b in blocks:
        if b.heading is not None or b.role is not None:
            continue
        if b.section == "introduction" and b.kind == "markdown":
            moves = _untyped_moves(b.source, lang, "rules")
            if moves:
                b.role = _INTRO_ROLES.get(moves[0])
        elif b.section in _RESULT_ROLES and _RESULT_ROLES[b.section] and not b.appendix:
            b.role = _RESULT_ROLES[b.section]
            if b.role == "prior" and not _CITES.search(b.source):
                b.role = None  # a paragraph of a background section that cites nothing
            if b.role in ("limitations", "future"):
                b.title = ""  # the section heading says it: no run-in heading
        elif b.section == "experiments":
            named = sorted(r for r in b.refs if r in statements)
            if named:
                b.role, b.validates = "result", named
    for b in blocks:  # figures and tables: what their caption or text references
        if b.role == "figure":
            named = sorted(r for r in b.refs if r in statements)
            if named or b.section == "experiments":
                b.role = "experiment"
                b.validates = named
                b.exp_kind = "intervention" if _INTERVENTION.search(
                    (b.caption or "") + " " + b.source[:2000]) else "controlled"
    for n, b in enumerate(blocks):  # the first paragraph after a statement that talks about it
        if b.role not in _STATEMENT_ROLES:
            continue
        announced = False
        for c in blocks[n + 1:n + 6]:
            if c.role == "proof" or (c.kind == "raw" and c.role is None):
                continue
            if c.heading is not None and c.heading >= 4 and c.role is None \
                    and _ANNOUNCES_INTERPRETATION.search(c.source):
                announced = True  # "\paragraph{Interpretation: …}": the paragraph under it
                continue
            if c.heading is not None or c.role not in (None, "result"):
                break
            if c.kind == "markdown" and (announced or _TALKS_ABOUT.search(c.source) or (
                    b.label and b.label in c.refs)):
                c.role, c.title = "interpretation", ""
            break


def read_latex(path: str | Path, *, keep_hidden: bool = True,
               chapters_as_latex: bool = True) -> LatexPaper:
    """Read the paper at ``path`` (a main ``.tex`` or a folder) into blocks.

    ``keep_hidden``: text a macro of the paper hides (``\\newcommand{\\ignore}[1]{}``) stays as
    raw LaTeX (for import); ``False`` drops it as TeX does (for check), and reads a macro of the
    paper that ends in ``\\label`` as the label it sets. ``\\iffalse … \\fi`` (or ``\\if0``)
    blocks are dropped either way, like comments. ``chapters_as_latex``: a book's ``\\chapter``
    stays a raw LaTeX cell, so the export keeps the class's sectioning (for import); ``False``
    makes it a ``#`` heading like the sections under it, one level down (for check)."""
    src = load_source(path)
    text = src.text
    masked_begin = _find_env_mark(text, "begin")
    body_start = masked_begin if masked_begin is not None else 0
    end = _find_env_mark(text, "end", body_start)
    body_end = end if end is not None else len(text)
    preamble = text[:body_start]
    decl = read_declarations(text[:body_end])
    problems = [Problem(p.slug, p.message, None) for p in src.problems[:MAX_PROBLEMS]]
    if len(src.problems) > MAX_PROBLEMS:
        problems.append(Problem("input-not-found", f"and {len(src.problems) - MAX_PROBLEMS} more "
                                "inputs that are not read (not listed)"))
    # environment-opening macros (\be … \ee) become the environments they open
    if decl.openers:
        names = sorted(decl.openers, key=len, reverse=True)
        pattern = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z@])")
        spans = [(m.start(), m.end(), decl.openers[m.group(1)])
                 for m in pattern.finditer(text, body_start, body_end)]
        if spans:
            src = src.substitute(spans)
            text = src.text
            body_end = _find_env_mark(text, "end", body_start) or len(text)
            decl = read_declarations(text[:body_end])
    # label-setting macros (\alglinelabel{alg:step}) are read as the \label they set (for
    # check; an import keeps the paper's macro, which may also step a counter)
    if decl.labellers and not keep_hidden:
        names = sorted(decl.labellers, key=len, reverse=True)
        pattern = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z@])")
        defined = _merged(decl.spans)
        spans = [(m.start(), m.end(), "\\label")
                 for m in pattern.finditer(text, body_start, body_end)
                 if not _inside(defined, m.start())]
        if spans:
            src = src.substitute(spans)
            text = src.text
            body_end = _find_env_mark(text, "end", body_start) or len(text)
            decl = read_declarations(text[:body_end])
    bib_commands = bibliography_commands(text[:body_end])
    bibs = [name for name, _at in bib_commands]
    bib_files, bbl, bbl_data, refusals, bbl_why = _bibliography_files(src, bib_commands)
    # the bibliography commands: the notebook's metadata holds the bibliography instead
    masked = mask_comments(text)
    bib_spans = [(m.start(), m.end(), "") for m in _BIB_COMMAND.finditer(text, body_start, body_end)
                 if masked[m.start()] == "\\"]  # not in a comment
    if bib_spans:
        src = src.substitute(bib_spans)
        text = src.text
        body_end = _find_env_mark(text, "end", body_start) or len(text)
        decl = read_declarations(text[:body_end])
    # environments the paper defines without arguments become what they stand for
    simple = {name: env for name, env in decl.environments.items()
              if env.args == 0 and name not in ("proof", "document")}
    if simple:
        def_spans = _merged(decl.spans)
        def_starts = [a for a, _b in def_spans]
        names = sorted(simple, key=len, reverse=True)
        pattern = re.compile(r"\\(begin|end)\s*\{(" + "|".join(map(re.escape, names)) + r")\}")
        spans = [(m.start(), m.end(), simple[m.group(2)].begin if m.group(1) == "begin"
                  else simple[m.group(2)].end)
                 for m in pattern.finditer(text, body_start, body_end)
                 if not _in_spans(m.start(), def_starts, def_spans)]
        if spans:
            src = src.substitute(spans)
            text = src.text
            body_end = _find_env_mark(text, "end", body_start) or len(text)
            decl = read_declarations(text[:body_end])
    dead = _iffalse_blocks(text, body_start, body_end)
    if dead:
        src = src.substitute([(a, b, "") for a, b in dead])
        text = src.text
        body_end = _find_env_mark(text, "end", body_start) or len(text)
        decl = read_declarations(text[:body_end])
    reader = _Reader(src, decl, keep_hidden)
    reader.chapters_as_latex = chapters_as_latex
    reader.has_chapters = bool(re.search(r"(?m)^[^%\n]*\\chapter\*?\s*[\[{]",
                                         text[body_start:body_end]))
    body_pos = body_start
    envs = frozenset(e for e in decl.theorems if re.fullmatch(r"[A-Za-z]+\*?", e))
    depth, deepest = nesting_depth(mask_comments(text[:body_end]), body_pos, body_end)
    try:
        with _deep_enough(depth):
            marked, marks = _marked(text, body_pos, body_end)
            marked = _blank_definitions(marked, decl.spans, body_pos, body_end)
            walker = LatexWalker(marked, latex_context=_context_db(envs),
                                 tolerant_parsing=True)
            try:
                nodes, _, _ = walker.get_latex_nodes(pos=body_pos)
            except LatexWalkerError as exc:  # tolerant mode rarely raises: go on without a body
                problems.append(Problem("parse-error", f"the body could not be read: {exc}",
                                        body_pos))
                nodes = []
            if marks:
                _unmark(nodes, text, marks)
            reader.walk(nodes)
    except (_TooDeep, RecursionError):
        problems.append(Problem("parse-error", f"the body nests braces or environments more than "
                                f"{MAX_NESTING} levels deep; mechnb does not take it apart and "
                                "keeps it as one raw LaTeX cell", deepest))
        reader = _Reader(src, decl, keep_hidden)
        reader.add(reader.raw(body_pos, body_end))
    except Exception as exc:  # a reader bug must not lose the paper
        problems.append(Problem("parse-error", f"mechnb could not take the body apart "
                                f"({type(exc).__name__}: {exc}); it is kept as one raw LaTeX "
                                "cell — please report it", body_pos))
        reader = _Reader(src, decl, keep_hidden)
        reader.add(reader.raw(body_pos, body_end))
    problems += reader.problems
    problems += [Problem("definition-not-read", f"this \\{command} is not imported (mechnb reads "
                         "\\newcommand-style definitions and \\def with plain #1…#9 "
                         "parameters); the text that uses it is kept as LaTeX", at)
                 for at, command in decl.unread[:MAX_PROBLEMS]]
    if len(decl.unread) > MAX_PROBLEMS:
        problems.append(Problem("definition-not-read", f"and {len(decl.unread) - MAX_PROBLEMS} "
                                "more definitions mechnb does not import (not listed)",
                                decl.unread[MAX_PROBLEMS][0]))
    title = find_title(text[:body_end])
    title_text = None
    if title is not None:
        # a line break in the title is the space between two words in the metadata's one line
        written = _TITLE_BREAK.sub(" ", title[0])
        plain = " ".join(re.sub(r"\\[A-Za-z]+\*?|[{}]|\\\\", " ", written).split())
        try:
            with _deep_enough(nesting_depth(mask_comments(written))[0]):
                tw = LatexWalker(written, latex_context=_context_db(), tolerant_parsing=True)
                tnodes, _, _ = tw.get_latex_nodes()
                title_text = Converter(written, decl).inline(
                    [n for n in tnodes if not (isinstance(n, LatexMacroNode) and n.macroname in (
                        "\\", "newline", "thanks", "footnote", "centering"))]) or None
        except (Unconvertible, _TooDeep, RecursionError, LatexWalkerError):
            title_text = plain
    lang = _guess_lang(text[body_start:body_end])
    _annotate(reader.blocks, lang)
    src.problems.extend(refusals)  # placed at their file and line (input_findings)
    problems += [Problem(r.slug, r.message, None) for r in refusals]
    if bbl is not None and bbl_data is None:
        problems.append(Problem("file-refused", f"the bibliography {bbl.name} {bbl_why}"))
        bbl = None
    return LatexPaper(src, decl, reader.blocks, title_text, find_authors(text[:body_end]), bibs,
                      bbl, lang, document_class(preamble), packages(preamble), problems,
                      body_start, bib_files, bbl_data)


_IF_TOKEN = re.compile(r"\\(if ?0(?=[ \t]*(?:\n|\Z)|[ \t])|if[A-Za-z@]*|fi)(?![A-Za-z@])")
"""A conditional's tokens; ``\\if0`` (``0`` against the space after it: false) is the
``\\iffalse`` many papers write."""


class _TooDeep(Exception):
    """The text nests deeper than ``MAX_NESTING``."""


_NEST = re.compile(r"\\(?:begin|end)(?![A-Za-z@])|\\.|[{}]", re.S)


def nesting_depth(text: str, start: int = 0, end: int | None = None) -> tuple[int, int]:
    """``(depth, offset)``: how deep braces and environments nest in ``text[start:end]`` (comments
    masked by the caller; a stray closing one ignored) and where it first goes deeper than
    ``MAX_NESTING`` (else where the depth is reached). Linear, without recursion: what tells
    whether the parser may take the text apart."""
    depth = deepest = 0
    at = start
    for m in _NEST.finditer(text, start, len(text) if end is None else end):
        token = m.group()
        if token in ("{", "\\begin"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth <= MAX_NESTING + 1:
                    at = m.start()
        elif token in ("}", "\\end") and depth:
            depth -= 1
    return deepest, at


def _blank_definitions(text: str, spans: list[tuple[int, int]], start: int, end: int) -> str:
    """``text`` with the definitions the body makes that open or close an environment
    (``\\newenvironment{block}{\\begin{minipage}…}{\\end{minipage}}``) blanked for pylatexenc
    (same length): read as text, their lone ``\\begin`` would swallow the rest of the paper.
    The template carries them; the cells never held them."""
    cuts = [(a, b) for a, b in spans if start <= a < b <= end
            and re.search(r"\\(?:begin|end)(?![A-Za-z@])", text[a:b])]
    if not cuts:
        return text
    parts: list[str] = []
    cursor = 0
    for a, b in sorted(cuts):
        if a < cursor:
            continue
        blank = re.sub(r"[^\n]", " ", text[a:b])
        parts += [text[cursor:a], blank]
        cursor = b
    parts.append(text[cursor:])
    return "".join(parts)


RUN = 2048
"""Characters pylatexenc reads in one stretch of plain text before ``_marked`` breaks it."""
_BREAK = re.compile(r"[\\{}$%&~]")
_MACRO_NAME = re.compile(r"[A-Za-z@]*")
_MARKABLE = re.compile(r"(?<=[^\W_])[^\W_](?=[^\W_])")  # a letter or digit (any script) in a word
_NAME_OPENS = re.compile(r"\\(?:begin|end)\s*\{\Z")


def _marked(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """``text[:end]`` for pylatexenc, with one letter or digit every ``RUN`` characters of a long
    stretch of plain text in ``[start, end)`` replaced by ``~``; and where.

    pylatexenc gathers a stretch of characters by appending one character at a time to an
    attribute, so reading it takes time quadratic in its length (a megabyte without a command:
    25 s). A ``~`` (same length: every offset stays) ends the stretch; ``_unmark`` turns it back
    into the letter it replaced. Only a letter between two letters or digits is replaced, never
    in a comment, a command's name or an environment's name, so nothing around it is read
    differently."""
    import bisect

    comments = comment_spans(text[:end])
    starts = [a for a, _b in comments]

    def in_comment(pos: int) -> bool:
        k = bisect.bisect_right(starts, pos) - 1
        return k >= 0 and comments[k][0] <= pos < comments[k][1]

    marks: list[int] = []
    a = start
    for m in (*_BREAK.finditer(text, start, end), None):
        b = m.start() if m is not None else end
        if b - a > RUN and not (a > 0 and _NAME_OPENS.search(text, max(0, a - 40), a)):
            if a > 0 and text[a - 1] == "\\":  # a command's name is read whole
                a = _MACRO_NAME.match(text, a).end()  # type: ignore[union-attr]
            target = a + RUN
            while target < b - 1:
                found = _MARKABLE.search(text, target, b)
                if found is None:
                    break
                if not in_comment(found.start()):
                    marks.append(found.start())
                target = found.start() + RUN
        a = b + 1
    if "%" in text[start:end]:  # a % in a \url/\href target is part of the address (%D0%A3)
        for lo, hi in literal_spans(text[:end]):
            if lo >= start:
                marks += [k for k in range(lo, hi) if text[k] == "%"]
        marks.sort()
    if not marks:
        return text[:end], []
    parts: list[str] = []
    cursor = 0
    for at in marks:
        parts += [text[cursor:at], "~"]
        cursor = at + 1
    parts.append(text[cursor:end])
    return "".join(parts), marks


def _unmark(nodes: list[LatexNode], text: str, marks: list[int]) -> None:
    """Undo ``_marked`` in the parsed ``nodes`` (in place): each ``~`` it put becomes the letter it
    replaced again, one characters node with the characters around it, as pylatexenc reads the
    unmarked text."""
    import bisect

    def marked(node: LatexNode) -> bool:
        k = bisect.bisect_left(marks, node.pos)
        return k < len(marks) and marks[k] < node.pos + node.len

    def joined(run: list[LatexNode]) -> list[LatexNode]:
        if not any(marked(n) for n in run):
            return run
        first, last = run[0], run[-1]
        return [LatexCharsNode(chars=text[first.pos:last.pos + last.len], pos=first.pos,
                               len=last.pos + last.len - first.pos,
                               parsing_state=first.parsing_state)]

    lists: list[list[LatexNode]] = [nodes]
    while lists:
        nodelist = lists.pop()
        out: list[LatexNode] = []
        run: list[LatexNode] = []  # adjacent characters (and marks)
        for node in nodelist:
            chars = isinstance(node, LatexCharsNode) or (
                isinstance(node, LatexSpecialsNode) and marked(node))
            if chars and (not run or run[-1].pos + run[-1].len == node.pos):
                run.append(node)
                continue
            out += joined(run)
            run = [node] if chars else []
            if chars:
                continue
            out.append(node)
            if node is None:
                continue
            children = getattr(node, "nodelist", None)
            if children:
                lists.append(children)
            argd = getattr(node, "nodeargd", None)
            if argd is not None and argd.argnlist:
                lists.append(argd.argnlist)
        out += joined(run)
        nodelist[:] = out


def _stack_depth() -> int:
    frame: FrameType | None = sys._getframe()
    n = 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


@contextmanager
def _deep_enough(depth: int) -> Iterator[None]:
    """Room on Python's stack for parsing text that nests ``depth`` levels (pylatexenc and the
    converter recurse, several frames a level); ``_TooDeep`` beyond ``MAX_NESTING``. The
    recursion limit is raised only as far as needed, and put back after."""
    if depth > MAX_NESTING:
        raise _TooDeep
    old = sys.getrecursionlimit()
    need = _stack_depth() + FRAMES_PER_LEVEL * depth + 500
    raised = need > old
    if raised:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if raised and sys.getrecursionlimit() == need:
            sys.setrecursionlimit(old)


def _bibliography_files(src: Source, commands: list[tuple[str, int]]
                        ) -> tuple[list[tuple[str, Path, bytes]], Path | None, bytes | None,
                                   list[SourceProblem], str]:
    """The ``.bib`` files ``commands`` name (``preamble.bibliography_commands``) and the
    ``.bbl`` (the main file's, or the only one next to it), read safely
    (``source.read_in_paper``). Returns ``(bib files, bbl, its bytes, refusals, why)``: a
    ``.bib`` that exists but is refused is a problem at its command's file and line; ``bbl``
    with ``None`` bytes is refused for ``why``."""
    base = src.main.parent
    found: list[tuple[str, Path, bytes]] = []
    refusals: list[SourceProblem] = []
    for name, at in commands:
        fname = name + ".bib"
        path = base / fname
        if not path.exists():
            continue  # missing (or not a valid name): the citation rules say so
        _resolved, data, why = read_in_paper(base, fname)
        if data is None:
            file, offset = src.origin(at)
            refusals.append(SourceProblem(src.files[file], offset,
                                          f"the bibliography {fname} {why}", "file-refused"))
        else:
            found.append((fname, path, data))
    bbl: Path | None = src.main.with_suffix(".bbl")
    if bbl is not None and not bbl.exists():
        bbls = sorted(base.glob("*.bbl"))
        bbl = bbls[0] if len(bbls) == 1 else None
    bbl_data, bbl_why = None, ""
    if bbl is not None:
        _resolved, bbl_data, bbl_why = read_in_paper(base, bbl.name)
    return found, bbl, bbl_data, refusals, bbl_why


def _iffalse_blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` of every ``\\iffalse … \\fi`` outside comments (nested conditionals
    counted): text TeX never reads."""
    out: list[tuple[int, int]] = []
    depth = 0
    opened = -1
    masked = mask_comments(text)
    for m in _IF_TOKEN.finditer(text, start, end):
        if masked[m.start()] != "\\":
            continue  # in a comment
        word = m.group(1)
        if depth == 0:
            if word in ("iffalse", "if0", "if 0"):
                depth, opened = 1, m.start()
            continue
        if word == "fi":
            depth -= 1
            if depth == 0:
                out.append((opened, m.end()))
        elif word.startswith("if") and word not in ("ifthenelse",):
            depth += 1
    return out


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    """Is ``pos`` in one of ``spans`` (sorted, disjoint: ``_merged``)?"""
    k = bisect.bisect_right(spans, (pos, sys.maxsize)) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping ones joined (a definition inside a definition)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _in_spans(pos: int, starts: list[int], spans: list[tuple[int, int]]) -> bool:
    """``pos`` is in one of ``spans`` (sorted, disjoint; ``starts`` their starts)."""
    import bisect

    k = bisect.bisect_right(starts, pos) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


def _find_env_mark(text: str, which: str, start: int = 0) -> int | None:
    """Offset after ``\\begin{document}`` (``which="begin"``) or of ``\\end{document}``,
    outside comments."""
    pattern = re.compile(r"\\" + which + r"\s*\{document\}")
    masked = mask_comments(text)
    for m in pattern.finditer(text, start):
        if masked[m.start()] == "\\":  # not in a comment
            return m.end() if which == "begin" else m.start()
    return None
