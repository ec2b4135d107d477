"""LaTeX nodes (pylatexenc) → markdown that renders in Jupyter, or ``Unconvertible``.

What converts: text (quotes, dashes, ``~``, accents, escaped specials), ``\\emph``/``\\textit``/
``{\\em …}`` → ``*…*``, ``\\textbf``/``{\\bf …}`` → ``**…**``, ``\\texttt`` → code, ``\\cite``
and ``\\citep`` without options → ``[@key]``, the other reference and citation commands the
exporter passes through kept as LaTeX, ``\\url``/``\\href`` → links, ``\\footnote`` → markdown
footnotes, ``itemize``/``enumerate``/``description`` → lists, math verbatim (``\\[…\\]`` →
``$$``, math environments on lines of their own), and the paper's own text macros expanded.
Anything else raises ``Unconvertible``: the caller keeps that piece as raw LaTeX, which exports
unchanged. Each piece of markdown remembers the source offset it came from (``anchors``), so
findings on the markdown point back into the ``.tex``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pylatexenc.latex2text import LatexNodes2Text
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
)

from ..tex.markdown import REF_COMMANDS
from .preamble import Declarations

MATH_ENVIRONMENTS = frozenset({
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "flalign", "flalign*", "alignat", "alignat*", "eqnarray", "eqnarray*", "displaymath",
    "math", "subequations"})
"""Display environments kept verbatim on lines of their own (MathJax shows them)."""
LISTS = {"itemize": "- ", "enumerate": "1. ", "description": "- ", "compactitem": "- ",
         "compactenum": "1. "}
_ITALIC = {"emph", "textit", "textsl", "mathit"}
_BOLD = {"textbf"}
_PLAIN = {"textrm", "textnormal", "textup", "mbox", "text", "textmd", "textsf", "hbox"}
_SWITCHES = {"em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*",
             "bf": "**", "bfseries": "**", "rm": "", "normalfont": "", "upshape": "",
             "sf": "", "sffamily": "", "rmfamily": ""}
_DROP = {"xspace", "noindent", "relax", "ignorespaces", "protect", "nobreak", "leavevmode",
         "unskip", "/", "@", "null", "strut", "indent", "hfill", "hspace", "vspace",
         "smallskip", "medskip", "bigskip", "allowbreak", "linebreak", "nolinebreak",
         "centering", "raggedright", "phantomsection", "FloatBarrier", "par"}
_SYMBOLS = {"ldots": "…", "dots": "…", "textellipsis": "…", "LaTeX": "LaTeX", "TeX": "TeX",
            " ": " ", ",": "\u2009", ";": " ", ":": " ", "quad": " ", "qquad": "  ", "%": "%",
            "&": "&", "#": "\\#", "_": "\\_", "{": "{", "}": "}", "$": "\\$", "S": "§",
            "textendash": "–", "textemdash": "—", "textasciitilde": "~", "P": "¶",
            "textquoteright": "’", "textquoteleft": "‘", "slash": "/", "ie": "i.e.",
            "eg": "e.g.", "etal": "et al.", "textless": "\\<", "textgreater": ">",
            "textbar": "|", "textbackslash": "\\\\", "copyright": "©", "dag": "†",
            "ddag": "‡", "textdagger": "†", "texttimes": "×", "textdegree": "°",
            "checkmark": "✓", "-": ""}
_SPECIALS = {"~": "\u00a0", "--": "–", "---": "—", "``": "“", "''": "”", "`": "‘",
             "!`": "¡", "?`": "¿", ",,": "„", "<<": "«", ">>": "»"}
_ACCENTS = frozenset("'`^\"~=.uvHcdbrkt")
ACRONYM_FORMS: dict[str, tuple[str, bool]] = {
    **{name: ("short", False) for name in ("ac", "acs", "acsu", "gls", "acrshort", "Ac", "Acs",
                                           "Gls", "GLS")},
    **{name: ("short", True) for name in ("acp", "acsp", "glspl", "acrshortpl", "Acp",
                                          "Glspl")},
    **{name: ("long", False) for name in ("acl", "aclu", "acrlong", "Acl", "Acrlong")},
    **{name: ("long", True) for name in ("aclp", "acrlongpl", "Aclp")},
    **{name: ("full", False) for name in ("acf", "acfi", "acrfull", "Acf", "Acrfull")},
    **{name: ("full", True) for name in ("acfp", "acrfullpl", "Acfp")}}
"""The acronym, acro and glossaries packages' commands → (form, plural). A check reads them as
TeX prints them (the short form for ``\\ac``, whose first use TeX prints in full); an import
keeps them as written."""
_NEEDS_ESCAPE = re.compile(r"([*_`<\[\]\\])")
_LIST_START = re.compile(r"\A(?:[#>+*-]|\d+[.)])(?=\s|\Z)")
_SPACES = re.compile(r"\s+")
_BEFORE_DISPLAY = re.compile(r"\n[ \t]*\n(\$\$\n|\\begin\{)")
_AFTER_DISPLAY = re.compile(r"(\n\$\$|\\end\{[A-Za-z]+\*?\})\n[ \t]*\n")
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_CJK_JOIN = re.compile(f"(?<=[{_CJK}])\n(?=[{_CJK}])")
"""A line break between two CJK characters: TeX (xeCJK, ctex) drops it, markdown would show a
space, so the lines are joined."""
_TRAILING = re.compile(r"[ \t]+\n")
_BLANK_RUN = re.compile(r"\n{3,}")
_INDENT = re.compile(r"\n[ \t]+")
_LINE_START = re.compile(r"(?m)(?<=\n)(?:[#>+-]|\d+[.)])(?=[ \t]|$)")


def _escape_line_start(m: re.Match[str]) -> str:
    """A line that would open a heading, quote or list in markdown, escaped."""
    text = m.group(0)
    return text[:-1] + "\\" + text[-1] if text[0].isdigit() else "\\" + text
_CITE_OK = re.compile(r"\A[\w:.#$%&+?<>~/-]+\Z")
MAX_EXPANSION_DEPTH = 4
_TEXT = LatexNodes2Text()


class Unconvertible(Exception):
    """The node has no faithful markdown form; the caller keeps the LaTeX as it is."""


@dataclass
class Markdown:
    """Markdown text with anchors back into the source."""

    parts: list[str] = field(default_factory=list)
    anchors: list[tuple[int, int]] = field(default_factory=list)
    """``(markdown offset, source offset)``, ascending."""
    length: int = 0

    def add(self, text: str, at: int | None) -> None:
        if not text:
            return
        if at is not None and (not self.anchors or self.anchors[-1][1] != at):
            self.anchors.append((self.length, at))
        self.parts.append(text)
        self.length += len(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Converter:
    """Converts node lists of one flattened source (``text``) with its declarations."""

    def __init__(self, text: str, declarations: Declarations, keep_hidden: bool = True) -> None:
        self.text = text
        self.decl = declarations
        self.keep_hidden = keep_hidden
        """A macro that hides its argument (``\\ignore{…}``): keep the text as LaTeX (import),
        or drop it as TeX does (check)."""
        self.footnotes: list[str] = []
        self.depth = 0

    # ------------------------------------------------------------------ entry points
    def paragraph(self, nodes: Sequence[LatexNode]) -> Markdown:
        """One paragraph (or environment body) as markdown; raises ``Unconvertible``."""
        self.footnotes = []
        out = Markdown()
        self.nodes(nodes, out)
        out = _strip(out)
        tidy = _BLANK_RUN.sub("\n\n", _TRAILING.sub("\n", out.text))
        if tidy != out.text:
            out = _retext(out, tidy)
        if "\n\n" in out.text:  # a display inside the paragraph stays in it (no blank line)
            tight = _AFTER_DISPLAY.sub(r"\1\n", _BEFORE_DISPLAY.sub(r"\n\1", out.text))
            if tight != out.text:
                out = _retext(out, tight)
        if "][" in out.text or "](" in out.text:  # [@key] then [ or ( reads as a link
            out = _retext(out, _CITE_BEFORE_BRACKET.sub(_latex_cite, out.text))
        first = next((n for n in nodes if not isinstance(n, LatexCommentNode) and not (
            isinstance(n, LatexCharsNode) and not n.chars.strip())), None)
        opens_list = isinstance(first, LatexEnvironmentNode) and first.environmentname in LISTS
        if _LIST_START.match(out.text) and not opens_list:  # text that reads as a list marker
            out = _prefix(out, "\\")
        for n, note in enumerate(self.footnotes, 1):
            out.add(f"\n\n[^{n}]: {note}", None)
        return out

    def inline(self, nodes: Sequence[LatexNode]) -> str:
        """A title or caption as one line of markdown (raises ``Unconvertible``)."""
        saved = self.footnotes
        self.footnotes = []
        out = Markdown()
        self.nodes(nodes, out)
        if self.footnotes or "\n" in out.text.strip():
            self.footnotes = saved
            raise Unconvertible("a footnote or a display in a title")
        self.footnotes = saved
        return _SPACES.sub(" ", out.text).strip()

    # ------------------------------------------------------------------ walking
    def nodes(self, nodes: Sequence[LatexNode], out: Markdown) -> None:
        k = 0
        while k < len(nodes):
            k = self.node(nodes, k, out)

    def node(self, nodes: Sequence[LatexNode], k: int, out: Markdown) -> int:
        node = nodes[k]
        if node is None:
            return k + 1
        if isinstance(node, LatexCharsNode):
            chars = node.chars
            if "#" in chars:
                raise Unconvertible("macro parameter in text")
            text = _NEEDS_ESCAPE.sub(r"\\\1", _CJK_JOIN.sub("", _INDENT.sub("\n", chars)))
            out.add(_LINE_START.sub(_escape_line_start, text), node.pos)
        elif isinstance(node, LatexCommentNode):
            out.add(" " if node.comment_post_space and "\n" in node.comment_post_space else "",
                    None)
        elif isinstance(node, LatexSpecialsNode):
            special = _SPECIALS.get(node.specials_chars)
            if special is None:
                raise Unconvertible(f"special {node.specials_chars!r}")
            out.add(special, node.pos)
        elif isinstance(node, LatexMathNode):
            self.math(node, out)
        elif isinstance(node, LatexGroupNode):
            self.group(node, out)
        elif isinstance(node, LatexEnvironmentNode):
            self.environment(node, out)
        elif isinstance(node, LatexMacroNode):
            return self.macro(nodes, k, out)
        else:
            raise Unconvertible(type(node).__name__)
        return k + 1

    def verbatim(self, node: LatexNode) -> str:
        return self.text[node.pos:node.pos + node.len]

    def math(self, node: LatexMathNode, out: Markdown) -> None:
        open_, close = node.delimiters
        inner = self.text[node.pos + len(open_):node.pos + node.len - len(close)]
        if node.displaytype == "inline":
            if not inner.strip():
                return
            if "\n\n" in inner or (inner != inner.strip() and inner.strip() == ""):
                raise Unconvertible("blank line in inline math")
            out.add("$" + inner.strip() + "$", node.pos)
        else:
            if "$$" in inner or "\n\n" in inner.strip():
                raise Unconvertible("blank line in display math")
            out.add("\n$$\n" + inner.strip("\n ") + "\n$$\n", node.pos)

    def group(self, node: LatexGroupNode, out: Markdown) -> None:
        children = [c for c in node.nodelist if c is not None]
        first = next((c for c in children if not (isinstance(c, LatexCharsNode)
                                                  and not c.chars.strip())), None)
        mark = None
        if isinstance(first, LatexMacroNode) and first.macroname in _SWITCHES:
            mark = _SWITCHES[first.macroname]
            children = children[children.index(first) + 1:]
        inner = Markdown()
        self.nodes(children, inner)
        text = inner.text
        if mark:
            stripped = text.strip()
            if stripped:
                out.add(mark + stripped + mark, node.pos)
            return
        if not inner.anchors:
            out.add(text, node.pos)
            return
        ends = [*inner.anchors[1:], (len(text), -1)]
        for (md, src), nxt in zip(inner.anchors, ends, strict=True):
            out.add(text[md:nxt[0]], src)

    def environment(self, node: LatexEnvironmentNode, out: Markdown) -> None:
        name = node.environmentname
        if name in MATH_ENVIRONMENTS:
            out.add("\n" + self.verbatim(node).strip() + "\n", node.pos)
            return
        if name in LISTS:
            self.list(node, out)
            return
        raise Unconvertible(f"environment {name}")

    def list(self, node: LatexEnvironmentNode, out: Markdown) -> None:
        marker = LISTS[node.environmentname]
        items: list[tuple[LatexMacroNode | None, list[LatexNode]]] = []
        for child in node.nodelist:
            if isinstance(child, LatexMacroNode) and child.macroname == "item":
                items.append((child, []))
            elif items:
                items[-1][1].append(child)
            elif (isinstance(child, LatexCharsNode) and not child.chars.strip()) or \
                    isinstance(child, LatexCommentNode):
                continue
            else:
                raise Unconvertible("text before the first \\item")
        if not items:
            raise Unconvertible("empty list")
        out.add("\n\n", None)
        for n, (item, body) in enumerate(items):
            inner = Markdown()
            label = item.nodeargd.argnlist[0] if item and item.nodeargd and \
                item.nodeargd.argnlist else None
            if label is not None:
                term = self.inline(label.nodelist if isinstance(label, LatexGroupNode)
                                   else [label])
                term = term.strip()
                if not isinstance(label, LatexGroupNode) and term[:1] == "[" and \
                        term[-1:] == "]":  # the brackets of \item[…] (a "[@key]" keeps its own)
                    term = term[1:-1].strip()
                inner.add("**" + term + "** ", item.pos if item else None)
            self.nodes(body, inner)
            text = _SPACES.sub(" ", inner.text).strip() if "\n" not in inner.text.strip() \
                else "\n    ".join(line for line in inner.text.strip().split("\n"))
            prefix = marker if marker == "- " else f"{n + 1}. "
            out.add(prefix + text + "\n", item.pos if item else None)
        out.add("\n", None)

    def macro(self, nodes: Sequence[LatexNode], k: int, out: Markdown) -> int:
        node = nodes[k]
        assert isinstance(node, LatexMacroNode)
        name = node.macroname
        args = node.nodeargd.argnlist if node.nodeargd else []
        present = [a for a in args if a is not None]
        if name in _DROP:
            if name in ("hspace", "vspace"):
                return k + 1 + (0 if present else 1)
            return k + 1
        if name in _SYMBOLS and not present:
            out.add(_SYMBOLS[name], node.pos)
            return k + 1
        if name in _ACCENTS or ((len(name) == 1 and not name.isalpha()) and name in _ACCENTS):
            text = _TEXT.nodelist_to_text([node])
            if not text:
                raise Unconvertible(f"accent \\{name}")
            out.add(text, node.pos)
            return k + 1
        if name in _ITALIC | _BOLD | _PLAIN | {"texttt", "underline", "ensuremath"}:
            arg = self._required(node, nodes, k)
            if arg is None:
                raise Unconvertible(f"\\{name} without its argument")
            group, used = arg
            if name == "ensuremath":
                out.add("$" + self.verbatim(group)[1:-1].strip() + "$", node.pos)
                return k + 1 + used
            if name == "underline":
                raise Unconvertible("\\underline")
            inner = self.inline(group.nodelist if isinstance(group, LatexGroupNode) else [group])
            if name == "texttt":
                if "`" in inner:
                    raise Unconvertible("backtick in \\texttt")
                out.add("`" + inner.replace("\\", "") + "`", node.pos)
            elif name in _PLAIN:
                out.add(inner, node.pos)
            elif inner.strip():
                mark = "*" if name in _ITALIC else "**"
                out.add(mark + inner.strip() + mark, node.pos)
            return k + 1 + used
        # \citep is [@key] (which the export writes as \citep again); a textual \cite (natbib's
        # author-year "Smith (2020)") stays as written
        if name == "citep" and len(args) == 4 and args[0] is None and \
                args[1] is None and args[2] is None and args[3] is not None:
            keys = [x.strip() for x in self.verbatim(args[3])[1:-1].split(",") if x.strip()]
            if keys and all(_CITE_OK.match(x) for x in keys):
                out.add("[" + "; ".join("@" + x for x in keys) + "]", node.pos)
                return k + 1
        if name in REF_COMMANDS or name in ("cite", "citep"):
            verbatim = self.verbatim(node)
            if "\n" in verbatim or not verbatim.rstrip().endswith("}"):
                raise Unconvertible(f"\\{name} across lines")
            out.add(verbatim.rstrip(), node.pos)
            return k + 1
        if name == "url":
            arg = self._required(node, nodes, k)
            if arg is None:
                raise Unconvertible("\\url")
            out.add("<" + self.verbatim(arg[0])[1:-1].strip() + ">", node.pos)
            return k + 1 + arg[1]
        if name == "href":
            if k + 2 >= len(nodes) or not isinstance(nodes[k + 1], LatexGroupNode) or \
                    not isinstance(nodes[k + 2], LatexGroupNode):
                raise Unconvertible("\\href")
            url = self.verbatim(nodes[k + 1])[1:-1].strip().replace("\\#", "#").replace(
                "\\%", "%").replace("\\_", "_")
            label = self.inline(nodes[k + 2].nodelist)
            out.add(f"[{label}]({url})", node.pos)
            return k + 3
        if name == "footnote":
            arg = self._required(node, nodes, k)
            if arg is None or (args and args[0] is not None):
                raise Unconvertible("\\footnote")
            group = arg[0]
            note = self.inline(group.nodelist if isinstance(group, LatexGroupNode) else [group])
            self.footnotes.append(note)
            out.add(f"[^{len(self.footnotes)}]", node.pos)
            return k + 1 + arg[1]
        macro = self.decl.macros.get(name)
        if macro is not None and self.depth < MAX_EXPANSION_DEPTH and name not in \
                self.decl.openers:
            return self.expand(macro, nodes, k, out)
        if name in ACRONYM_FORMS and not self.keep_hidden:
            return self.acronym(node, nodes, k, out)
        raise Unconvertible(f"\\{name}")

    def acronym(self, node: LatexMacroNode, nodes: Sequence[LatexNode], k: int,
                out: Markdown) -> int:
        """``\\ac{key}`` and its kin as the text TeX prints (the key defined by the paper)."""
        arg = self._required(node, nodes, k)
        if arg is None:
            raise Unconvertible(f"\\{node.macroname} without its argument")
        key = self.verbatim(arg[0]).strip().strip("{}").strip()
        entry = self.decl.acronyms.get(key)
        if entry is None:
            raise Unconvertible(f"\\{node.macroname}{{{key}}} of an acronym not defined")
        form, plural = ACRONYM_FORMS[node.macroname]
        short, long = (" ".join(_TEXT.latex_to_text(x).split()) for x in entry)
        text = {"short": short, "long": long, "full": f"{long} ({short})"}[form]
        if plural:
            text = f"{long}s ({short}s)" if form == "full" else text + "s"
        if node.macroname[0].isupper():
            text = text[:1].upper() + text[1:]
        out.add(text, node.pos)
        return k + 1 + arg[1]

    def _required(self, node: LatexMacroNode, nodes: Sequence[LatexNode], k: int
                  ) -> tuple[LatexNode, int] | None:
        """The macro's mandatory argument: parsed with it, or the group that follows it."""
        args = node.nodeargd.argnlist if node.nodeargd else []
        if args and args[-1] is not None:
            return args[-1], 0
        nxt = k + 1
        while nxt < len(nodes) and isinstance(nodes[nxt], LatexCharsNode) and \
                not nodes[nxt].chars.strip():
            nxt += 1
        if nxt < len(nodes) and isinstance(nodes[nxt], LatexGroupNode):
            return nodes[nxt], nxt - k
        return None

    def expand(self, macro: object, nodes: Sequence[LatexNode], k: int, out: Markdown) -> int:
        """A text macro of the paper replaced by its definition (arguments filled in)."""
        from .preamble import Macro

        assert isinstance(macro, Macro)
        node = nodes[k]
        values: list[str] = []
        used = 0
        nxt = k + 1
        needed = macro.args
        if macro.default is not None:
            needed -= 1
            values.append(macro.default)
        while len(values) < macro.args:
            if nxt < len(nodes) and isinstance(nodes[nxt], LatexGroupNode):
                values.append(self.verbatim(nodes[nxt])[1:-1])
                nxt += 1
                used = nxt - k - 1
            else:
                raise Unconvertible(f"\\{macro.name} with fewer arguments than it takes")
        body = re.sub(r"#(\d)", lambda m: values[int(m.group(1)) - 1]
                      if 0 < int(m.group(1)) <= len(values) else m.group(0), macro.body)
        walker = LatexWalker(body, tolerant_parsing=True)
        parsed, _, _ = walker.get_latex_nodes()
        sub = Converter(body, self.decl, self.keep_hidden)
        sub.depth = self.depth + 1
        inner = Markdown()
        sub.nodes(parsed, inner)
        if sub.footnotes:
            raise Unconvertible(f"\\{macro.name} holds a footnote")
        if not inner.text.strip() and any(v.strip() for v in values) and self.keep_hidden:
            raise Unconvertible(f"\\{macro.name} hides its argument (kept as written)")
        out.add(inner.text, node.pos)
        return k + 1 + used


_CITE_BEFORE_BRACKET = re.compile(r"\[((?:@[\w:.#$%&+?<>~/-]+(?:; )?)+)\](?=[\[(])")


def _latex_cite(m: re.Match[str]) -> str:
    keys = [k.strip().lstrip("@") for k in m.group(1).split(";") if k.strip()]
    return "\\citep{" + ",".join(keys) + "}"


def _retext(md: Markdown, text: str) -> Markdown:
    """``md`` with its text replaced by ``text`` (whitespace collapsed); anchors scaled."""
    old = md.text
    out = Markdown()
    # map each old anchor offset to the new text by counting non-space characters
    mapping: list[int] = []
    j = 0
    for i in range(len(old) + 1):
        mapping.append(j)
        if i < len(old):
            if old[i].isspace():
                if i == 0 or not old[i - 1].isspace():
                    j += 1
            else:
                j += 1
    out.parts = [text]
    out.length = len(text)
    out.anchors = [(min(mapping[min(a, len(old))], len(text)), src) for a, src in md.anchors]
    return out


def _strip(md: Markdown) -> Markdown:
    text = md.text
    lead = len(text) - len(text.lstrip())
    body = text.strip()
    out = Markdown([body], [(max(a - lead, 0), s) for a, s in md.anchors], len(body))
    return out


def _prefix(md: Markdown, prefix: str) -> Markdown:
    return Markdown([prefix + md.text], [(a + len(prefix) if a else 0, s) for a, s in md.anchors],
                    md.length + len(prefix))
