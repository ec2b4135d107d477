"""Markdown (CommonMark + TeX math) → LaTeX, with markdown-it-py and a renderer of our own.

The parser is the shared one of ``mechnb.tex.markdown`` (markdown-it-py with TeX math): LaTeX
reference commands (``\\ref``, ``\\eqref``, ``\\cref``, ``\\cite*``, ``\\label``) pass
through untouched, and pandoc-style ``[@key]`` citations become ``\\citep``. The renderer
dispatches on ``token.type`` through ``BLOCK_RULES``/``INLINE_RULES``; math content is copied
byte for byte, raw HTML never reaches the output.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

from markdown_it.token import Token

from ..lazyre import lazy
from ..notebook import CJK_RE
from ..paper_paths import UnsafeFileError, read_regular, resolve_in_folder
from ..tex.escape import escape_latex, escape_url, is_safe_label, is_safe_name
from ..tex.markdown import CITE_COMMANDS, parse, parser
from ..tex.mathcompat import rewrite_math
from .context import RenderContext, verbatim

HeadingMode = Literal["sections", "bold"]

SECTION_COMMANDS = ("section", "subsection", "subsubsection", "paragraph", "subparagraph",
                    "subparagraph")
"""``#`` … ``######`` (DESIGN.md §2)."""

GRAPHICS_EXTENSIONS = {".png": ".png", ".jpg": ".jpg", ".jpeg": ".jpg", ".pdf": ".pdf"}
ATTACHMENT_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "application/pdf": ".pdf"}
DISPLAY_ENVS = frozenset({
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "flalign", "flalign*", "alignat", "alignat*", "eqnarray", "eqnarray*"})
_BEGIN_ENV_RE = lazy(r"^\s*\\begin\{([a-zA-Z]+\*?)\}")
_SAFE_NAME_RE = lazy(r"[^A-Za-z0-9_-]+")
_WEB_LINK_RE = lazy(r"(?i)^(?:https?|ftp|mailto|doi):")


def _bare_address(children: Sequence[Token], k: int) -> str | None:
    """The address of a link at ``children[k]`` whose text is that address (``<https://…>``,
    whose text markdown-it shows with ``%20`` decoded), else None: written as ``\\url`` it
    breaks across lines as the url package breaks it, where ``\\href``'s text would run off
    the page."""
    if k + 2 >= len(children) or children[k].type != "link_open" or \
            children[k + 1].type != "text" or children[k + 2].type != "link_close":
        return None
    href = str(children[k].attrs.get("href", ""))
    shown = children[k].markup == "autolink" or children[k + 1].content == href
    if not shown or not re.match(r"(?i)(?:https?|ftp)://", href):
        return None
    return href


# --------------------------------------------------------------------------- renderer


def display_math(content: str, label: str | None = None) -> str:
    """A display equation; ``content`` is copied unchanged (only delimiters are chosen).

    A bare top-level environment (``\\begin{align}…``) is emitted as is; content with a
    ``\\label`` or ``\\tag`` goes into ``equation``; anything else into ``\\[ … \\]``.
    """
    m = _BEGIN_ENV_RE.match(content)
    if m and m.group(1) in DISPLAY_ENVS and content.rstrip().endswith(
            "\\end{" + m.group(1) + "}") and label is None:
        return content.strip("\n")
    if label is not None:
        return "\\begin{equation}" + content + "\\label{" + label + "}\\end{equation}"
    if "\\label" in content or "\\tag" in content:
        return "\\begin{equation}" + content + "\\end{equation}"
    return "\\[" + content + "\\]"


_LABEL_RE = lazy(r"\\label\{([^{}]*)\}")
_DISPLAY_ONLY_RE = lazy(r"\\begin\{(?:split|align|gather|multline|flalign|alignat|eqnarray"
                        r"|equation)\*?\}")
"""Environments LaTeX allows in display math only (MathJax sets them inside ``$…$`` too)."""
_MACRO_MATH_RE = lazy(
    r"\s*\\(?:(?:re)?newcommand|providecommand|DeclareMathOperator\*?|def)(?![a-zA-Z])")


def _compatible(math: str, display: bool) -> str:
    """``math`` with the MathJax-compatibility rewrites made (``mechnb.tex.mathcompat``; the
    checker reports each at its cell: MECH036, MECH038, MECH039, MECH080)."""
    if "\\" not in math and "$" not in math and math.isascii():  # (letters of other scripts
        return math  # go into \text{…}: cjk-in-math)
    return mathjax_redefinitions(rewrite_math(math, display=display)[0])


_DEFINITION_HEAD_RE = lazy(r"\s*\\(?:(?:re)?newcommand\*?|providecommand\*?|"
                           r"DeclareMathOperator\*?|def)(?![a-zA-Z])\s*")
_DEFINED_NAME_RE = lazy(r"\{\s*\\[A-Za-z]+\s*\}|\\[A-Za-z]+|\\.")
_OPTION_RE = lazy(r"\s*\[[^\]]*\]")
_PARAMETERS_RE = lazy(r"[^{]*")


def _group_end(text: str, start: int) -> int:
    """The index after the ``{…}`` group opening at ``start`` (-1 if it never closes)."""
    depth = 0
    k = start
    while k < len(text):
        ch = text[k]
        if ch == "\\":
            k += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return -1


def leading_definitions(math: str) -> tuple[str, str]:
    """(the definitions ``math`` starts with, the rest)."""
    pos = 0
    while True:
        head = _DEFINITION_HEAD_RE.match(math, pos)
        if head is None:
            return math[:pos], math[pos:]
        name = _DEFINED_NAME_RE.match(math, head.end())
        if name is None:
            return math[:pos], math[pos:]
        k = name.end()
        if "def" in head.group(0) and "Declare" not in head.group(0):
            k = _PARAMETERS_RE.match(math, k).end()  # type: ignore[union-attr]
        else:
            while (option := _OPTION_RE.match(math, k)) is not None:
                k = option.end()
        while k < len(math) and math[k].isspace():
            k += 1
        if k >= len(math) or math[k] != "{":
            return math[:pos], math[pos:]
        end = _group_end(math, k)
        if end < 0:
            return math[:pos], math[pos:]
        pos = end


@cache
def _latex_defined() -> frozenset[str]:
    """Control words LaTeX already defines (``data/latex/defined-commands.txt``; the checker's
    MECH039 reads the same list)."""
    from importlib import resources

    text = resources.files("mechnb").joinpath("data/latex/defined-commands.txt").read_text(
        "utf-8")
    return frozenset(word for line in text.splitlines() if not line.startswith("#")
                     for word in line.split())


_NEWCOMMAND_RE = lazy(r"\\newcommand\*?\s*(\{\s*)?\\([A-Za-z]+)(?(1)\s*\})")


def mathjax_redefinitions(math: str) -> str:
    """``\\newcommand`` of a name LaTeX already has (``\\v``, ``\\vec``, ``\\vector``…) as
    ``\\renewcommand``: MathJax lets a definition replace the old meaning, LaTeX would stop
    with "Command … already defined" (the list: ``data/latex/defined-commands.txt``)."""
    if "newcommand" not in math:
        return math
    known = _latex_defined()
    return _NEWCOMMAND_RE.sub(
        lambda m: "\\renewcommand{\\" + m.group(2) + "}" if m.group(2) in known else m.group(0),
        math)


class LatexRenderer:
    """Renders markdown-it tokens to LaTeX; one instance per cell."""

    def __init__(self, ctx: RenderContext, headings: HeadingMode = "sections",
                 heading_offset: int = 0) -> None:
        self.ctx = ctx
        self.headings = headings
        self.heading_offset = heading_offset
        self._html_unconverted: set[str] = set()
        self._html_open: list[tuple[str, str]] = []
        """Inline HTML tags open in the current paragraph, with the LaTeX closing each."""
        self.footnotes: dict[int, str] = {}
        """Rendered markdown footnotes by id (``[^label]: …``), written as ``\\footnote``."""
        self._inside = 0
        """How many block quotes and list items the block being rendered is in."""

    # ---- block level

    def render(self, tokens: Sequence[Token]) -> str:
        """LaTeX for a whole token stream."""
        tokens = self._take_footnotes(tokens)
        chunks: list[tuple[str, bool]] = []  # (latex, is_display)
        i = 0
        while i < len(tokens):
            rule = BLOCK_RULES.get(tokens[i].type)
            if rule is None:
                i += 1
                continue
            latex, i, display = rule(self, tokens, i)
            if latex:
                chunks.append((latex, display))
        return _join(chunks)

    def _take_footnotes(self, tokens: Sequence[Token]) -> Sequence[Token]:
        """Render the footnote definitions markdown-it collects at the end of the stream (into
        ``self.footnotes``, for the references) and return the stream without them."""
        if not any(t.type == "footnote_block_open" for t in tokens):
            return tokens
        kept: list[Token] = []
        inside: list[Token] | None = None
        current = -1
        for t in tokens:
            if t.type == "footnote_open":
                inside, current = [], int(t.meta.get("id", -1))
            elif t.type == "footnote_close" and inside is not None:
                self.footnotes[current] = self.render(inside).strip()
                inside = None
            elif inside is not None:
                inside.append(t)
            elif t.type not in ("footnote_block_open", "footnote_block_close"):
                kept.append(t)
        return kept

    def footnote_ref(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        note = self.footnotes.get(int(t.meta.get("id", -1)))
        if note is None:
            return escape_latex(f"[^{t.meta.get('label', '')}]")
        return "\\footnote{" + note + "}"

    def _until_close(self, tokens: Sequence[Token], i: int, close: str) -> tuple[str, int]:
        """Render tokens after ``tokens[i]`` up to the matching ``close``; returns (latex, next)."""
        depth = 0
        open_type = tokens[i].type
        j = i + 1
        while j < len(tokens):
            t = tokens[j].type
            if t == open_type:
                depth += 1
            elif t == close:
                if depth == 0:
                    break
                depth -= 1
            j += 1
        return self.render(tokens[i + 1:j]), j + 1

    def heading(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        level = int(tokens[i].tag[1:]) + self.heading_offset
        text = self.inline(tokens[i + 1].children or [])
        if self.headings == "bold" or self._inside:
            # a heading in a block quote or a list item is set in bold where it stands: LaTeX's
            # sectioning commands are not made for the inside of a list (`quote` is one), and
            # one right after a section stopped TeX ("perhaps a missing \\item")
            return "\\par\\textbf{" + text + "}\\par", i + 3, False
        command = SECTION_COMMANDS[min(level, len(SECTION_COMMANDS)) - 1]
        return "\\" + command + "{" + text + "}", i + 3, False

    def paragraph(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        children = tokens[i + 1].children or []
        # An image alone in its paragraph becomes a figure with its alt text as caption.
        if len(children) == 1 and children[0].type == "image":
            return self.figure_image(children[0]), i + 3, False
        # A paragraph that is only display math is a display, not a paragraph.
        if len(children) == 1 and children[0].type == "math_inline_double":
            return display_math(children[0].content), i + 3, True
        return self.inline(children), i + 3, False

    def bullet_list(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        body, j = self._until_close(tokens, i, "bullet_list_close")
        return "\\begin{itemize}\n" + body + "\n\\end{itemize}", j, False

    def ordered_list(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        body, j = self._until_close(tokens, i, "ordered_list_close")
        start = tokens[i].attrs.get("start")
        first = ""
        if isinstance(start, (int, str)) and str(start).isdigit() and int(start) != 1:
            first = "\\setcounter{enumi}{" + str(int(start) - 1) + "}\n"
        return "\\begin{enumerate}\n" + first + body + "\n\\end{enumerate}", j, False

    def list_item(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        body, j = self._inner(tokens, i, "list_item_close")
        return "\\item " + body if body else "\\item{}", j, False

    def blockquote(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        body, j = self._inner(tokens, i, "blockquote_close")
        return "\\begin{quote}\n" + body + "\n\\end{quote}", j, False

    def _inner(self, tokens: Sequence[Token], i: int, close: str) -> tuple[str, int]:
        """``_until_close`` for the body of a block quote or a list item."""
        self._inside += 1
        try:
            return self._until_close(tokens, i, close)
        finally:
            self._inside -= 1

    def code_block(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        return verbatim(tokens[i].content), i + 1, False

    def math_block(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        token = tokens[i]
        math = self._hoist_macros(token.content)
        if not math.strip():
            return "", i + 1, False
        label = token.info if token.type == "math_block_label" else None
        self._note_labels(math)
        if label:
            self.ctx.labels.add(label)
        return display_math(_compatible(math, True), label), i + 1, True

    def amsmath(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        """An environment outside ``$`` (MathJax typesets it where it stands): display math —
        as it is for a display environment (``align``), inside ``\\[ … \\]`` for the others
        (``bmatrix``, ``cases``, ``array`` …), which LaTeX allows in math only."""
        self._note_labels(tokens[i].content)
        return display_math(_compatible(tokens[i].content, True).strip("\n")), i + 1, True

    def html_block(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        """Raw HTML as JupyterLab shows it: the common tags converted, other tags' text kept
        (``exporter/html.py``), one finding naming the tags whose formatting is lost."""
        from .html import html_to_latex

        latex, unknown = html_to_latex(tokens[i].content, self._html_heading, self._html_image)
        self._unconverted_html(unknown)
        return latex, i + 1, False

    def _html_heading(self, level: int, text: str) -> str:
        if self.headings == "bold":
            return "\\par\\textbf{" + text + "}\\par"
        level += self.heading_offset
        return "\\" + SECTION_COMMANDS[min(level, len(SECTION_COMMANDS)) - 1] + "{" + text + "}"

    def _html_image(self, src: str) -> str | None:
        image = Token("image", "img", 0)
        image.attrs = {"src": src}
        return self.image_file(image)

    def _unconverted_html(self, tags: set[str]) -> None:
        """One finding per cell naming every tag whose formatting is lost."""
        if not tags - self._html_unconverted:
            return
        findings = self.ctx.findings
        for n in range(len(findings) - 1, -1, -1):  # the cell's finding so far: replaced
            if findings[n].name == "raw-html-dropped" and findings[n].cell == self.ctx.cell:
                del findings[n]
                break
        self._html_unconverted |= tags
        shown = ", ".join(f"<{t}>" for t in sorted(self._html_unconverted)[:8])
        self.ctx.add_finding("raw-html-dropped", f"HTML {shown}: the text is kept, the "
                             "formatting of these tags is not exported; write it as markdown")

    def hr(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        return "\\par\\noindent\\rule{\\linewidth}{0.4pt}\\par", i + 1, False

    def table(self, tokens: Sequence[Token], i: int) -> tuple[str, int, bool]:
        rows: list[list[str]] = []
        aligns: list[str] = []
        header_rows = 0
        j = i + 1
        while tokens[j].type != "table_close":
            t = tokens[j]
            if t.type == "tr_open":
                rows.append([])
            elif t.type in ("th_open", "td_open"):
                style = str(t.attrs.get("style", ""))
                if t.type == "th_open":
                    aligns.append({"text-align:center": "c", "text-align:right": "r"}.get(
                        style, "l"))
                rows[-1].append(_minus(tokens[j + 1].content.strip())
                                or self.inline(tokens[j + 1].children or []))
            elif t.type == "thead_close":
                header_rows = len(rows)
            j += 1
        from .html import centered_table, column_layout, wrap_cell

        width = max([len(aligns)] + [len(r) for r in rows])
        aligns += ["l"] * (width - len(aligns))
        rows = [row + [""] * (width - len(row)) for row in rows]
        # as wide as a browser lets it be: prose columns wrap, a wide table gets smaller
        spec, size, wrapped = column_layout(aligns, [[row[k] for row in rows]
                                                     for k in range(width)])
        lines = ["\\begin{tabular}{" + spec + "}", "\\toprule"]
        for n, row in enumerate(rows):
            lines.append(" & ".join(wrap_cell(c, k == width - 1) if k in wrapped else c
                                    for k, c in enumerate(row)) + " \\\\")
            if n + 1 == header_rows:
                lines.append("\\midrule")
        lines += ["\\bottomrule", "\\end{tabular}"]
        return centered_table(lines, size), j + 1, False

    # ---- inline level

    def inline(self, children: Sequence[Token]) -> str:
        """LaTeX for the children of an ``inline`` token."""
        outer, self._html_open = self._html_open, []
        try:
            latex = self._inline(children)
            return latex + "".join(closer for _, closer in reversed(self._html_open))
        finally:
            self._html_open = outer

    def _inline(self, children: Sequence[Token]) -> str:
        out: list[str] = []
        after_display = False
        skip = -1
        for k, child in enumerate(children):
            if k <= skip:
                continue
            url = _bare_address(children, k)
            if url is not None:  # <https://…> prints its address as \url, which breaks lines
                out.append("\\url{" + escape_url(url) + "}")
                skip = k + 2
                continue
            if child.type == "math_inline_double":
                # display math inside a paragraph: no blank line around it (same paragraph)
                if out:
                    out[-1] = out[-1].rstrip(" \n")
                out.append("\n" + self.display_in_text(child) + "\n")
                after_display = True
                continue
            if after_display and child.type == "softbreak":
                after_display = False
                continue
            after_display = False
            rule = INLINE_RULES.get(child.type)
            if rule is not None:
                latex = rule(self, child, children, k)
                if latex.startswith("\\newline") and not _OPENERS_RE.sub("", "".join(out)):
                    continue  # a line break needs a line: nothing printed yet (an image left
                    # out, a tag without text) — TeX would stop at "no line here to end"
                out.append(latex)
        return tight_cjk_references("".join(out).strip("\n"))

    def text(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        # `Theorem~\ref{thm:x}`: a tilde right before a reference is LaTeX's tie, kept as typed.
        if (t.content.endswith("~") and k + 1 < len(siblings)
                and siblings[k + 1].type == "latex_ref"):
            return escape_latex(t.content[:-1]) + "~"
        if (t.content.startswith(" ") and k > 0 and siblings[k - 1].type == "code_inline"
                and CJK_RE.search(siblings[k - 1].content)):
            # after code ending in CJK, xeCJK would drop the typed space (读到 `哈利` 时)
            return "\\ " + escape_latex(t.content.lstrip(" "))
        return escape_latex(t.content)

    def code_inline(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        code = escape_latex(t.content)
        if CJK_RE.search(t.content):  # xeCJK drops plain spaces between CJK characters
            code = code.replace(" ", "\\ ")
        return "\\texttt{" + code + "}"

    def html_inline(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        """An inline tag: the common ones converted (balanced by ``inline``), others dropped
        with their text kept (the text is its own token)."""
        from .html import INLINE_TAGS, inline_tag

        if t.content.lstrip().startswith("<!--"):
            return ""
        tag = inline_tag(t.content)
        if tag is None:
            self._unconverted_html({t.content.strip()[:20]})
            return ""
        name, kind, attrs = tag
        if name == "br":  # a line break needs a line: none before the paragraph's first text
            return "\\newline{}" if any(
                s.type not in ("html_inline", "softbreak", "hardbreak")
                and (s.type != "text" or s.content.strip()) for s in siblings[:k]) else ""
        if name in ("a", *INLINE_TAGS) and kind == "open":
            href = attrs.get("href", "")
            opener, closer = ("\\href{" + escape_url(href) + "}{", "}") \
                if name == "a" and _WEB_LINK_RE.match(href) else \
                ("{", "}") if name == "a" else INLINE_TAGS[name]
            self._html_open.append((name, closer))
            return opener
        if kind == "close":
            if not any(n == name for n, _ in self._html_open):
                return ""
            out = ""
            while self._html_open:
                open_name, closer = self._html_open.pop()
                out += closer
                if open_name == name:
                    break
            return out
        if name == "img":
            path = self._html_image(attrs.get("src", ""))
            return "" if path is None else ("\\includegraphics[width=0.8\\linewidth,height=0.3"
                                            "\\textheight,keepaspectratio]{" + path + "}")
        if name not in ("p", "div", "span", "center", "wbr"):
            self._unconverted_html({name})
        return ""

    def link_open(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        href = str(t.attrs.get("href", ""))
        if not href or href.startswith("#") or not _WEB_LINK_RE.match(href):
            # in-notebook anchors, relative links and file:/run: links keep only their text
            # (a PDF link to a local file or program is not something a paper needs)
            return "{"
        return "\\href{" + escape_url(href) + "}{"

    def image(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        path = self.image_file(t)
        if path is None:
            # an image that is left out of a link leaves its alt text as the link's text (as a
            # browser shows it when the image does not load): a badge such as "Open in Colab"
            # would otherwise leave an empty, invisible link
            return self.inline(t.children or []) if _inside_link(siblings, k) else ""
        return "\\includegraphics[width=\\linewidth,height=0.3\\textheight,keepaspectratio]{" \
            + path + "}"

    def figure_image(self, t: Token) -> str:
        path = self.image_file(t)
        if path is None:
            return ""
        caption = self.inline(t.children or [])
        label = ""
        if self.ctx.figure_caption is not None or self.ctx.figure_label:
            caption = self.ctx.figure_caption or caption
            label = "\\label{" + self.ctx.figure_label + "}" if self.ctx.figure_label else ""
            if self.ctx.figure_label:
                self.ctx.labels.add(self.ctx.figure_label)
            self.ctx.figure_caption = self.ctx.figure_label = None
        lines = ["\\begin{figure}[htbp]", "\\centering",
                 "\\includegraphics[width=0.8\\linewidth,height=0.45\\textheight,"
                 "keepaspectratio]{" + path + "}"]
        if caption.strip() or label:
            lines.append("\\caption{" + caption + "}" + label)
        lines.append("\\end{figure}")
        return "\n".join(lines)

    def image_file(self, t: Token) -> str | None:
        """Copy a markdown image into the resources; returns its path, or None (with a finding)."""
        src = str(t.attrs.get("src", ""))
        name = unquote(src.rsplit("/", 1)[-1])
        self.ctx.read_files = True  # the file or attachment may appear or change: not cached
        if src.startswith("attachment:"):
            name = src[len("attachment:"):]
            bundle = self.ctx.attachments.get(name)
            if isinstance(bundle, Mapping):
                for mime, att_ext in ATTACHMENT_TYPES.items():
                    data = bundle.get(mime)
                    if isinstance(data, str):
                        try:
                            blob = base64.b64decode(data)
                        except (binascii.Error, ValueError):
                            self.ctx.add_finding("unsupported-image", f"attachment {name!r} is "
                                                 "not valid base64; re-insert the image")
                            return None
                        return self.ctx.add_resource(
                            _file_name(self.ctx.cell, name, att_ext), blob)
                self.ctx.add_finding("unsupported-image", f"attachment {name!r} is not a PNG, "
                                     "JPEG or PDF image; it is left out of the draft")
                return None
            self.ctx.add_finding("image-not-found", f"attachment {name!r} is missing from the "
                                 "cell; re-insert the image")
            return None
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", src):
            self.ctx.add_finding("remote-image", f"image {src!r} is not a local file; download "
                                 "it next to the notebook and link it by relative path")
            return None
        ext = GRAPHICS_EXTENSIONS.get(Path(name).suffix.lower())
        if ext is None:
            self.ctx.add_finding("unsupported-image", f"image {src!r} is not PNG, JPEG or PDF; "
                                 "convert it (e.g. SVG → PDF) to include it")
            return None
        path, why = resolve_in_folder(self.ctx.base_dir, unquote(src))  # markdown-it %-encodes
        if path is None:
            slug = "invalid-path" if "valid path" in (why or "") else "resource-outside-paper"
            self.ctx.add_finding(slug, f"image {src[:80]!r} {why}; it is left out — copy it "
                                 "next to the notebook")
            return None
        try:
            data = read_regular(path)
        except UnsafeFileError as exc:
            self.ctx.add_finding("image-not-found", f"image {src!r}: {exc}; it is left out")
            return None
        except OSError:
            self.ctx.add_finding("image-not-found", f"image {src!r} was not found at {path}")
            return None
        return self.ctx.add_resource(_file_name(self.ctx.cell, name, ext), data)

    def math_inline(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        math = self._hoist_macros(t.content)
        if not math.strip():
            return ""
        self._note_labels(math)
        if _DISPLAY_ONLY_RE.search(math):
            # MathJax sets `$…\begin{split}…$` (or align, gather …) in the line; LaTeX allows
            # these environments in display math only: the formula becomes a display
            return "\n" + display_math(_compatible(math, True).strip("\n")) + "\n"
        return "$" + _compatible(math, False) + "$"

    def display_in_text(self, t: Token) -> str:
        math = self._hoist_macros(t.content)
        if not math.strip():
            return ""
        self._note_labels(math)
        return display_math(_compatible(math, True))

    def _hoist_macros(self, math: str) -> str:
        """The definitions ``math`` starts with (the Jupyter habit of ``$\\newcommand{\\R}{…}$``)
        go to the preamble: inside ``$…$`` TeX would forget them at once, MathJax keeps them
        for every later formula. Returns the rest of the formula (``$$\\newcommand{\\d}{…}
        \\int f \\d x$$`` keeps ``\\int f \\d x``), empty when it only defined macros."""
        if not _MACRO_MATH_RE.match(math):
            return math
        definitions, rest = leading_definitions(math)
        if not definitions.strip():
            return math
        self.ctx.macros.append(mathjax_redefinitions(definitions.strip()))
        return rest

    def latex_ref(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        command = t.meta["command"]
        names = [n.strip() for n in t.meta["keys"].split(",")]
        safe = is_safe_name if command in CITE_COMMANDS else is_safe_label
        bad = [n for n in names if n and not safe(n)]
        if bad:
            slug = "invalid-citation-key" if command in CITE_COMMANDS else "invalid-label"
            self.ctx.add_finding(slug, f"\\{command}{{{t.meta['keys'][:60]}}} names "
                                 f"{bad[0][:40]!r}, which LaTeX cannot use as a key "
                                 "(spaces, # % \\ { } $ & ~ ^); it is printed as text — fix "
                                 "the name")
            return escape_latex(t.content)
        if command in CITE_COMMANDS:
            self.ctx.citations.update(k.strip() for k in t.meta["keys"].split(",") if k.strip())
        elif command == "label":
            self.ctx.labels.add(t.meta["keys"])
        return t.content

    def citation(self, t: Token, siblings: Sequence[Token], k: int) -> str:
        items: list[tuple[str, bool, str, str]] = t.meta["items"]
        keys = [key for _, _, key, _ in items]
        bad = [key for key in keys if not is_safe_name(key)]
        if bad:
            self.ctx.add_finding("invalid-citation-key", f"citation key {bad[0][:40]!r} contains "
                                 "characters LaTeX cannot use in \\cite (# % $ & ~ ^ …); it is "
                                 "printed as text — fix the key")
            return escape_latex("[" + "; ".join(f"@{key}" for key in keys) + "]")
        self.ctx.citations.update(keys)
        if len(items) == 1 and items[0][1]:
            return "\\citeyearpar{" + keys[0] + "}"
        prefix, _, _, locator = items[0]
        notes = ""
        if len(items) == 1 and (prefix or locator):
            notes = "[" + escape_latex(prefix) + "][" + escape_latex(locator) + "]"
        return "\\citep" + notes + "{" + ",".join(keys) + "}"

    def _note_labels(self, math: str) -> None:
        if "\\label" in math:
            self.ctx.labels.update(_LABEL_RE.findall(math))

    def _drop_html(self, html: str) -> None:
        snippet = " ".join(html.split())[:40]
        self.ctx.add_finding("raw-html-dropped", f"raw HTML {snippet!r} is not exported to "
                             "LaTeX; write it as markdown")


_OPENERS_RE = lazy(r"\\[A-Za-z]+\{|[{}\s]")
"""What opens a group or a command's argument, and spaces: text of these only prints nothing."""

BlockRule = Callable[[LatexRenderer, Sequence[Token], int], tuple[str, int, bool]]
InlineRule = Callable[[LatexRenderer, Token, Sequence[Token], int], str]


def _fixed(latex: str) -> InlineRule:
    return lambda r, t, s, k: latex


BLOCK_RULES: dict[str, BlockRule] = {
    "heading_open": LatexRenderer.heading,
    "paragraph_open": LatexRenderer.paragraph,
    "bullet_list_open": LatexRenderer.bullet_list,
    "ordered_list_open": LatexRenderer.ordered_list,
    "list_item_open": LatexRenderer.list_item,
    "blockquote_open": LatexRenderer.blockquote,
    "code_block": LatexRenderer.code_block,
    "fence": LatexRenderer.code_block,
    "math_block": LatexRenderer.math_block,
    "math_block_label": LatexRenderer.math_block,
    "amsmath": LatexRenderer.amsmath,
    "html_block": LatexRenderer.html_block,
    "hr": LatexRenderer.hr,
    "table_open": LatexRenderer.table,
}
"""Block token type → rule; tokens without a rule (closers) are skipped."""

INLINE_RULES: dict[str, InlineRule] = {
    "text": LatexRenderer.text,
    "softbreak": _fixed("\n"),
    "hardbreak": _fixed("\\newline\n"),
    "code_inline": LatexRenderer.code_inline,
    "em_open": _fixed("\\emph{"),
    "em_close": _fixed("}"),
    "strong_open": _fixed("\\textbf{"),
    "strong_close": _fixed("}"),
    "s_open": _fixed("\\mechstrike{"),
    "s_close": _fixed("}"),
    "link_open": LatexRenderer.link_open,
    "link_close": _fixed("}"),
    "image": LatexRenderer.image,
    "html_inline": LatexRenderer.html_inline,
    "math_inline": LatexRenderer.math_inline,
    "latex_ref": LatexRenderer.latex_ref,
    "citation": LatexRenderer.citation,
    "footnote_ref": LatexRenderer.footnote_ref,
}
"""Inline token type → rule."""


def _inside_link(siblings: Sequence[Token], k: int) -> bool:
    """Whether inline token ``k`` of ``siblings`` lies between a link's open and close."""
    depth = 0
    for token in siblings[:k]:
        depth += (token.type == "link_open") - (token.type == "link_close")
    return depth > 0


def _join(chunks: Sequence[tuple[str, bool]]) -> str:
    """Blank lines between blocks, single newlines around display math (same paragraph)."""
    out: list[str] = []
    prev_display = True
    for n, (latex, display) in enumerate(chunks):
        if n:
            out.append("\n" if display or prev_display else "\n\n")
        out.append(latex)
        prev_display = display
    return "".join(out)


_NEGATIVE_NUMBER_RE = lazy(r"-\s?(\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)(\s?%)?")


def _minus(cell: str) -> str | None:
    """A table cell that is a negative number, with a real minus sign (``$-$52.59``, not the
    hyphen ``-52.59`` prints as); ``None`` for any other cell."""
    m = _NEGATIVE_NUMBER_RE.fullmatch(cell)
    if m is None:
        return None
    return "$-$" + m.group(1) + ("\\%" if m.group(2) else "")


_CJK_CLASS = "[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
_REFERENCE = r"\\[cC]ref\*?"
"""The references whose Chinese form brings its own gap (第 2 节, 定理 1: ``zh-typesetting.tex``);
``\\eqref``, ``\\ref`` and citations print bare numbers or Latin text and keep a typed space."""
_SPACE_BEFORE_REF_RE = lazy(f"({_CJK_CLASS})[ \\t]+(?={_REFERENCE}(?:\\[[^\\]]*\\])?\\{{)")
_SPACE_AFTER_REF_RE = lazy(
    f"({_REFERENCE}(?:\\[[^\\]]*\\])?\\{{[^{{}}]*\\}})[ \\t]+(?={_CJK_CLASS})")


def tight_cjk_references(latex: str) -> str:
    """No space typed between Chinese text and a ``\\cref`` (``在 \\cref{sec:a} 的设定下``): the
    Chinese/Western gap around the number is the templates' to set (``zh-typesetting.tex``), and
    a typed space beside it prints as a second, wider gap."""
    if latex.isascii() or "\\" not in latex:
        return latex
    return _SPACE_AFTER_REF_RE.sub(r"\1", _SPACE_BEFORE_REF_RE.sub(r"\1", latex))


def _file_name(cell: int | None, name: str, ext: str) -> str:
    stem = _SAFE_NAME_RE.sub("-", Path(name).stem).strip("-") or "image"
    return f"cell{cell if cell is not None else 'x'}-{stem}{ext}"


def render_markdown(source: str, ctx: RenderContext, headings: HeadingMode = "sections",
                    heading_offset: int = 0) -> str:
    """LaTeX for a markdown cell source."""
    return LatexRenderer(ctx, headings, heading_offset).render(parse(source))


def render_inline(source: str, ctx: RenderContext) -> str:
    """LaTeX for one line of markdown (captions, titles) without paragraph breaks."""
    return LatexRenderer(ctx).inline(parser().parseInline(source)[0].children or [])


def render_titled(source: str, ctx: RenderContext) -> tuple[str | None, str]:
    """(LaTeX of a leading heading, LaTeX of the rest with bold headings) for a cell whose
    environment supplies the structure (theorem-like, box, proof, run-in, abstract)."""
    tokens = parse(source)
    renderer = LatexRenderer(ctx, headings="bold")
    title = None
    if tokens and tokens[0].type == "heading_open":
        title = renderer.inline(tokens[1].children or [])
        tokens = tokens[3:]
    return title, renderer.render(tokens)
