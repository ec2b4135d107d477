"""HTML in markdown cells → LaTeX, as JupyterLab shows it: the common tags converted, the text of
every other tag kept.

JupyterLab renders a markdown cell's raw HTML (a ``<div>`` byline, a ``<p dir="rtl">`` paragraph,
an ``<h1>`` title, a ``<table>``) as HTML. The converter follows the tags a paper's prose uses —
``p div span center h1–h6 b strong i em u s del code kbd pre br hr a img ul ol li table tr td th
sup sub blockquote`` and the ``align``/``dir``/``text-align`` of a block — and keeps the text of
any other tag (its formatting is lost, one finding per cell names the tags). What JupyterLab does
not show (``<script>``, ``<style>``, comments) is left out, as there. Text is escaped
(``escape_latex``): nothing of the HTML reaches TeX as a command.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser

from ..lazyre import lazy
from ..tex.escape import escape_latex, escape_url

INLINE_TAGS: dict[str, tuple[str, str]] = {
    "b": ("\\textbf{", "}"), "strong": ("\\textbf{", "}"),
    "i": ("\\emph{", "}"), "em": ("\\emph{", "}"), "cite": ("\\emph{", "}"),
    "var": ("\\emph{", "}"), "dfn": ("\\emph{", "}"),
    "code": ("\\texttt{", "}"), "tt": ("\\texttt{", "}"), "kbd": ("\\texttt{", "}"),
    "samp": ("\\texttt{", "}"),
    "u": ("\\underline{", "}"), "ins": ("\\underline{", "}"),
    "s": ("\\mechstrike{", "}"), "del": ("\\mechstrike{", "}"), "strike": ("\\mechstrike{", "}"),
    "sup": ("\\ensuremath{^{\\text{", "}}}"), "sub": ("\\ensuremath{_{\\text{", "}}}"),
    "span": ("{", "}"), "font": ("{", "}"), "small": ("{", "}"), "big": ("{", "}"),
    "mark": ("{", "}"), "abbr": ("{", "}"), "label": ("{", "}"), "q": ("``", "''"),
    "nobr": ("{", "}"), "bdi": ("{", "}"), "bdo": ("{", "}"), "time": ("{", "}"),
}
"""Inline tags: LaTeX around their content (balanced: a closer is written for every opener)."""

BLOCK_TAGS = frozenset({
    "p", "div", "center", "section", "article", "header", "footer", "main", "nav", "aside",
    "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "address", "blockquote",
    "body", "html", "caption"})
"""Tags that make a paragraph of their content."""

SILENT_TAGS = frozenset({"script", "style", "head", "title", "meta", "link", "noscript",
                         "template"})
"""Tags whose content JupyterLab does not show: left out, without a finding."""

VOID_TAGS = frozenset({"br", "hr", "img", "wbr", "meta", "link", "input", "source", "col",
                       "area", "base", "embed", "param", "track"})

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SPACE_RE = lazy(r"[ \t\r\n\f]+")
_TAG_RE = lazy(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)([^>]*?)(/?)\s*>", re.S)
_WEB_LINK_RE = lazy(r"(?i)^(?:https?|ftp|mailto):")


def _alignment(tag: str, attrs: dict[str, str]) -> str | None:
    """``center``/``flushright``/``flushleft`` for a block's alignment or direction, else None."""
    style = attrs.get("style", "").replace(" ", "").lower()
    align = attrs.get("align", "").lower()
    if tag == "center" or align == "center" or "text-align:center" in style:
        return "center"
    if (align == "right" or "text-align:right" in style or attrs.get("dir", "").lower() == "rtl"
            or "direction:rtl" in style):
        return "flushright"
    return None


class _Converter(HTMLParser):
    def __init__(self, heading: Callable[[int, str], str],
                 image: Callable[[str], str | None]) -> None:
        super().__init__(convert_charrefs=True)
        self.heading = heading
        self.image = image
        self.out: list[str] = []
        self.stack: list[tuple[str, str]] = []
        """Open tags and the LaTeX that closes each."""
        self.unknown: set[str] = set()
        self.silent = 0
        self.pre: list[str] | None = None
        self.buffers: list[list[str]] = []
        """Captures: a heading's or a table cell's text, written when the tag closes."""
        self.tables: list[list[_Row]] = []
        self.lists: list[int] = []
        """Items seen in each open list (a list without items writes no environment)."""
        self.printed = False
        """Whether any visible text was met."""
        self.head = 0
        """Open ``<thead>`` tags: rows inside are header rows."""
        self.spans: list[tuple[int, int]] = []
        """``(colspan, rowspan)`` of each open table cell."""

    # ---- output

    def write(self, text: str) -> None:
        (self.buffers[-1] if self.buffers else self.out).append(text)

    def par(self) -> None:
        if self.buffers:
            self.write(" ")
        else:
            self.out.append("\n\n")

    # ---- parser callbacks

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k.lower(): v or "" for k, v in attrs_list}
        if self.silent or self.pre is not None:
            if tag in SILENT_TAGS:
                self.silent += 1
            return
        if tag in SILENT_TAGS:
            self.silent += 1
        elif tag == "pre":
            self.pre = []
        elif tag in INLINE_TAGS:
            opener, closer = INLINE_TAGS[tag]
            self.write(opener)
            self.stack.append((tag, closer))
        elif tag == "a":
            href = attrs.get("href", "")
            if _WEB_LINK_RE.match(href):
                self.write("\\href{" + escape_url(href) + "}{")
            else:
                self.write("{")
            self.stack.append((tag, "}"))
        elif tag in BLOCK_TAGS:
            self.par()
            align = None if self.buffers else _alignment(tag, attrs)
            if tag == "blockquote" and not self.buffers:
                align = "quote"
            if align:
                self.write("\\begin{" + align + "}\n")
            self.stack.append((tag, ("\n\\end{" + align + "}") if align else ""))
        elif tag in _HEADINGS:
            self.par()
            self.buffers.append([])
            self.stack.append((tag, ""))
        elif tag in ("ul", "ol") and not self.buffers:
            self.par()
            self.lists.append(0)
            self.out.append("\\begin{" + ("itemize" if tag == "ul" else "enumerate") + "}\n")
            self.stack.append((tag, "\n\\end{" + ("itemize" if tag == "ul" else "enumerate")
                               + "}"))
        elif tag == "li" and self.lists and not self.buffers:
            self.lists[-1] += 1
            self.out.append("\n\\item ")
            self.stack.append((tag, ""))
        elif tag == "table" and not self.tables:
            self.par()
            self.tables.append([])
            self.stack.append((tag, ""))
        elif tag == "thead" and self.tables and not self.buffers:
            self.head += 1
            self.stack.append((tag, ""))
        elif tag == "tr" and self.tables and not self.buffers:
            self.tables[-1].append(_Row(head=self.head > 0))
            self.stack.append((tag, ""))
        elif tag in ("td", "th") and self.tables and not self.buffers:
            if not self.tables[-1]:
                self.tables[-1].append(_Row(head=self.head > 0))
            self.buffers.append([])
            self.spans.append((_span(attrs.get("colspan")), _span(attrs.get("rowspan"))))
            self.stack.append((tag, ""))
        elif tag == "br":
            self.write(" " if self.buffers else "\\newline{}\n" if self._in_line() else "")
        elif tag == "hr":
            if not self.buffers:
                self.out.append("\n\n\\par\\noindent\\rule{\\linewidth}{0.4pt}\\par\n\n")
        elif tag == "img":
            path = self.image(attrs.get("src", ""))
            if path is not None:
                self.printed = True
                self.write("\\includegraphics[width=0.8\\linewidth,height=0.3\\textheight,"
                           "keepaspectratio]{" + path + "}")
        elif tag in ("tbody", "tfoot", "colgroup", "thead", "col", "ul", "ol", "li", "table",
                     "tr", "td", "th", "wbr"):
            pass  # structure inside a table cell or a heading: its text is kept
        else:
            self.unknown.add(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in SILENT_TAGS and self.silent:
            self.silent -= 1
            return
        if self.silent:
            return
        if tag == "pre" and self.pre is not None:
            from .context import verbatim

            text, self.pre = "".join(self.pre), None
            if self.buffers:
                self.write("\\texttt{" + escape_latex(" ".join(text.split())) + "}")
            else:
                self.out.append("\n\n" + verbatim(text) + "\n\n")
            return
        if self.pre is not None or tag in VOID_TAGS:
            return
        if not any(t == tag for t, _ in self.stack):
            return  # a closer without its opener: ignored, as browsers do
        while self.stack:
            open_tag, closer = self.stack.pop()
            self._close(open_tag, closer)
            if open_tag == tag:
                break

    def _close(self, tag: str, closer: str) -> None:
        if tag in _HEADINGS:
            text = "".join(self.buffers.pop()).strip()
            if text:
                self.out.append(self.heading(int(tag[1]), text) + "\n\n")
        elif tag in ("td", "th"):
            text = " ".join(("".join(self.buffers.pop()) + closer).split())
            colspan, rowspan = self.spans.pop()
            self.tables[-1][-1].cells.append(_Cell(text, tag == "th", colspan, rowspan))
        elif tag == "thead":
            self.head = max(0, self.head - 1)
        elif tag in ("ul", "ol"):
            items = self.lists.pop()
            if items:
                self.out.append(closer)
            else:  # no item: no environment (LaTeX stops at an empty list)
                for k in range(len(self.out) - 1, -1, -1):
                    if self.out[k].startswith("\\begin{itemize}") or \
                            self.out[k].startswith("\\begin{enumerate}"):
                        del self.out[k]
                        break
            self.out.append("\n\n")
        elif tag == "table":
            self.out.append(_tabular(self.tables.pop()))
        elif tag in BLOCK_TAGS:
            self.write(closer)
            self.par()
        elif tag not in ("tr", "li"):
            self.write(closer)

    def handle_data(self, data: str) -> None:
        if self.silent:
            return
        self.printed = self.printed or bool(data.strip())
        if self.pre is not None:
            self.pre.append(data)
            return
        text = _SPACE_RE.sub(" ", data)
        if not text.strip() and not self._in_line():
            return
        if self.tables and not self.buffers:
            return  # text between cells (whitespace, stray words) is not part of the table
        self.write(escape_latex(text))

    def handle_comment(self, data: str) -> None:
        pass

    def _in_line(self) -> bool:
        """Whether text was written since the last paragraph break."""
        for piece in reversed(self.buffers[-1] if self.buffers else self.out):
            if piece.strip():
                return not piece.endswith(("\n\n", "}\n", "\\item "))
            if "\n\n" in piece:
                return False
        return False

    def result(self) -> str:
        while self.stack:
            tag, closer = self.stack.pop()
            self._close(tag, closer)
        while self.buffers:
            self.out.append("".join(self.buffers.pop()))
        text = "".join(self.out)
        text = re.sub(r"[ \t]*\n[ \t]*\n\s*", "\n\n", text)
        text = re.sub(r"(\\begin\{(?:center|flushright|quote)\}\n)\s*(\n\\end\{"
                      r"(?:center|flushright|quote)\})", "", text)
        return text.strip()


@dataclass
class _Cell:
    text: str
    """The cell's LaTeX."""
    header: bool
    colspan: int = 1
    rowspan: int = 1


@dataclass
class _Row:
    head: bool
    """Inside ``<thead>``."""
    cells: list[_Cell] = field(default_factory=list)


def _span(value: str | None) -> int:
    """A ``colspan``/``rowspan`` as browsers read it: a number from 1 to 1000, else 1."""
    try:
        n = int((value or "1").strip())
    except ValueError:
        return 1
    return min(max(n, 1), 1000)


_NUMBER_RE = lazy(r"\A(?:[-+−]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\\?%?|nan|NaN|"
                  r"NaT|None|<NA>|-?inf|True|False|\\ldots\{\}|\.\.\.|…)\Z")
_COMMAND_RE = lazy(r"\\[A-Za-z]+\*?|[{}\\]")

LINE_CHARACTERS = 80
"""About how many characters of table text fit the templates' line at the normal size."""
SIZES = ((1.0, ""), (1.1, "\\small"), (1.22, "\\footnotesize"), (1.4, "\\scriptsize"),
         (1.75, "\\tiny"))
"""(how much wider than a line a table may be, the font size that makes it fit)."""
ROWS_PER_TABLE = 40
"""Body rows per ``tabular``: a longer table is set as several, each under the header rows,
so that pages can break between them (a ``tabular`` never breaks)."""


def _visible(latex: str) -> int:
    """About how many characters ``latex`` prints."""
    return len(_COMMAND_RE.sub("", latex).replace("~", " "))


_PROSE_RE = lazy(r"\S\s+\S")


def centered_table(lines: list[str], size: str | None) -> str:
    """The tabular ``lines`` centred at the font size ``column_layout`` chose (``None``: scaled
    to the line at ``\\tiny``, ``""``: the body size)."""
    table = "\n".join(lines)
    if size is None:
        table = "\\resizebox{\\linewidth}{!}{\\tiny\n" + table + "}"
    elif size:
        table = "{" + size + "\n" + table + "}"
    return "\\begin{center}\n" + table + "\n\\end{center}"


def column_layout(aligns: list[str], columns: list[list[str]]
                  ) -> tuple[str, str | None, frozenset[int]]:
    """``(column spec, font size command, wrapped columns)`` for a table whose column ``k``
    holds the LaTeX cells ``columns[k]``, laid out as a browser would: at its natural width
    when it fits the line; else columns of prose (words with spaces) wrap as paragraphs
    (``p{…}``) in the width the other columns leave, at the first size (``SIZES``) where each
    gets room for its longest word; else a smaller size for the whole table, and ``None``
    (scale it to the line) past ``\\tiny``. A wrapped column's cells are set ragged right
    (``wrap_cell``), as a browser sets them.
    """
    chars = [max([_visible(c) for c in col] or [1]) for col in columns]
    natural = sum(chars) + 2 * len(chars)
    if natural <= LINE_CHARACTERS:
        return "".join(aligns), "", frozenset()
    prose = [k for k, col in enumerate(columns)
             if chars[k] > 16 and any(_PROSE_RE.search(c) for c in col)]
    fixed = sum(chars[k] + 2 for k in range(len(chars)) if k not in prose)
    wanted = sum(chars[k] + 2 for k in prose)
    # a column is never narrower than its longest word (nor than a few words)
    least = {k: max(12, 2 + max(_visible(w) for c in columns[k] for w in
                                 _COMMAND_RE.sub(" ", c).split() or [""])) for k in prose}
    for factor, size in SIZES:
        line = LINE_CHARACTERS * factor
        if natural <= line:
            return "".join(aligns), size, frozenset()
        budget = line - fixed
        if prose and budget >= sum(least.values()):
            spec = list(aligns)
            shares = {k: max(least[k], budget * (chars[k] + 2) / wanted) for k in prose}
            over = sum(shares.values()) - budget
            extra = sum(shares[k] - least[k] for k in prose)
            for k in prose:  # what the longest words take stays; the rest shares the room
                share = shares[k] - (over * (shares[k] - least[k]) / extra if over > 0 < extra
                                     else 0)
                share = min(share, chars[k] + 2)
                spec[k] = "p{" + f"{max(0.05, (share - 2) / line):.2f}" + "\\linewidth}"
            return "".join(spec), size, frozenset(prose)
    return "".join(aligns), None, frozenset()


def wrap_cell(text: str, last: bool) -> str:
    """A cell of a wrapped (``p{…}``) column, ragged right as a browser sets it — except in
    the last column, where ``\\raggedright`` would take the row's ``\\\\`` for its own (and a
    ``\\par`` to end it inside a group adds a blank line under the row): that one is justified."""
    return "\\raggedright " + text if text.strip() and not last else text


def _grid(rows: list[_Row]) -> list[tuple[bool, list[_Cell | None]]]:
    """Rows with spans laid out as browsers do: a cell spanning rows leaves ``None`` in the
    rows below it; a row spanning columns is followed by ``None`` in the columns it covers."""
    grid: list[tuple[bool, list[_Cell | None]]] = []
    below: dict[int, int] = {}  # column → rows still covered from above
    for row in rows:
        line: list[_Cell | None] = []
        col = 0
        cells = list(row.cells)
        while cells or any(c >= col and n > 0 for c, n in below.items()):
            if below.get(col, 0) > 0:
                below[col] -= 1
                line.append(None)
                col += 1
                continue
            if not cells:
                col += 1
                line.append(None)
                continue
            cell = cells.pop(0)
            line.append(cell)
            for k in range(cell.colspan):
                if cell.rowspan > 1:
                    below[col + k] = cell.rowspan - 1
                if k:
                    line.append(None)
            col += cell.colspan
        grid.append((row.head, line))
    return grid


def _tabular(rows: list[_Row]) -> str:
    """A table as JupyterLab shows it: header rows (``<thead>``, or leading rows of ``<th>``
    only) above a rule, ``<th>`` bold, spans kept, numbers right-aligned; a font size that
    fits a wide table to the line (scaled down further if even ``\\tiny`` does not), and a
    long one cut into tables of ``ROWS_PER_TABLE`` rows under the same header."""
    grid = [(head, line) for head, line in _grid([r for r in rows if r.cells]) if line]
    if not grid:
        return ""
    width = max(len(line) for _, line in grid)
    heads = [n for n, (head, _) in enumerate(grid) if head]
    if not heads:  # leading rows of <th> only, before the first row with data
        for n, (_, line) in enumerate(grid[:-1]):
            if all(c is None or c.header for c in line):
                heads.append(n)
            else:
                break
    header = [line for n, (_, line) in enumerate(grid) if n in heads]
    body = [line for n, (_, line) in enumerate(grid) if n not in heads]
    align = []
    columns = []
    for col in range(width):
        column = [c for line in body if col < len(line) and (c := line[col]) is not None]
        texts = [c.text for c in column if c.colspan == 1 and c.text and not c.header]
        align.append("r" if texts and all(_NUMBER_RE.match(t) for t in texts) else "l")
        columns.append([c.text for _, line in grid if col < len(line)
                        and (c := line[col]) is not None and c.colspan == 1])
    spec, size, wrapped = column_layout(align, columns)

    def row_tex(line: list[_Cell | None]) -> str:
        out = []
        for col in range(width):
            cell = line[col] if col < len(line) else None
            if cell is None:
                if col >= len(line) or not any(
                        (c := line[k]) is not None and k + c.colspan > col
                        for k in range(col)):
                    out.append("")
                continue
            text = "\\textbf{" + cell.text + "}" if cell.header and cell.text else cell.text
            if col in wrapped and cell.colspan == 1:
                text = wrap_cell(text, col == width - 1)
            if cell.colspan > 1:
                span = min(cell.colspan, width - col)
                text = "\\multicolumn{" + str(span) + "}{c}{" + text + "}"
            out.append(text)
        return " & ".join(out) + " \\\\"

    parts = []
    chunks = [body[k:k + ROWS_PER_TABLE] for k in range(0, len(body), ROWS_PER_TABLE)] or [[]]
    for chunk in chunks:
        lines = ["\\begin{tabular}{" + spec + "}", "\\toprule"]
        lines += [row_tex(line) for line in header]
        if header and chunk:
            lines.append("\\midrule")
        lines += [row_tex(line) for line in chunk]
        lines += ["\\bottomrule", "\\end{tabular}"]
        parts.append(centered_table(lines, size))
    return "\n\n" + "\n\n".join(parts) + "\n\n"


def html_to_latex(html: str, heading: Callable[[int, str], str],
                  image: Callable[[str], str | None]) -> tuple[str, set[str]]:
    """(LaTeX of an HTML block, the tags whose formatting was not converted).

    ``heading(level, latex)`` writes an ``<h1>``–``<h6>``; ``image(src)`` stores an ``<img>``
    and returns its path in the build folder, or ``None`` (with its own finding)."""
    converter = _convert(html, heading, image)
    return converter.result(), converter.unknown


def _convert(html: str, heading: Callable[[int, str], str],
             image: Callable[[str], str | None]) -> _Converter:
    converter = _Converter(heading, image)
    converter.feed(html)
    converter.close()
    return converter


def inline_tag(html: str) -> tuple[str, str, dict[str, str]] | None:
    """``(name, "open"|"close"|"void", attributes)`` of one inline HTML tag, or ``None``."""
    m = _TAG_RE.fullmatch(html.strip())
    if m is None:
        return None
    kind = "close" if m.group(1) else "void" if m.group(4) else "open"
    attrs = dict((k.lower(), v or w) for k, v, w in re.findall(
        r"([A-Za-z-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", m.group(3)))
    return m.group(2).lower(), kind, attrs


_DATA_IMAGE_RE = lazy(r"(?is)\Adata:image/(png|jpeg|jpg);base64,(.*)\Z")


def html_output_to_latex(html: str, store: Callable[[str, bytes], str]) -> tuple[str, set[str]]:
    """A ``text/html`` output as JupyterLab shows it (a pandas table, a styled ``<div>``):
    ``(LaTeX, tags whose formatting was not converted)``. Headings are bold lines (an output
    does not open a section); an ``<img>`` with a PNG/JPEG ``data:`` URL is stored with
    ``store(extension, bytes)``; other images are left out (named among the tags). The LaTeX is
    empty when nothing visible is left — a script that draws an interactive chart."""
    import base64
    import binascii

    lost: set[str] = set()

    def image(src: str) -> str | None:
        m = _DATA_IMAGE_RE.match(src.strip())
        if m is not None:
            try:
                blob = base64.b64decode("".join(m.group(2).split()), validate=True)
            except (binascii.Error, ValueError):
                blob = b""
            if blob:
                return store(".png" if m.group(1).lower() == "png" else ".jpg", blob)
        lost.add("img")
        return None

    converter = _convert(
        html, lambda level, text: "\\par\\noindent\\textbf{" + text + "}\\par", image)
    latex = converter.result()
    return (latex if converter.printed else ""), converter.unknown | lost
