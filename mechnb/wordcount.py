r"""The paper's word count, as a journal counts it: from the notebook, no TeX run.

``count_words(paper)`` counts what the exported PDF prints, part by part — the title, the
abstract, each section of the main text (with its headings, the names of its theorem-like
blocks, its figure captions), the appendix — and leaves out what a journal leaves out: the
author block, the reference list, page, section and equation numbers, code and cell outputs.

* **English words**: runs of letters (``closed-form``, ``don't`` and ``L2`` are one word each).
  Citations count as printed by natbib's author–year style (``Olsson et al.``: 3 words, the year
  is a number), ``\cref{thm:main}`` as "Theorem" (its number is a number).
* **Chinese characters**: every CJK character is counted on its own (the custom of Chinese
  journals, which count 字 rather than words); Latin words inside Chinese text are counted as
  words.
* **Math** counts as printed: ``$\beta\pi$`` prints one token, ``$\log(n-3)$`` prints "log" and
  "n". Each part also reports how many of its words are math, and the number of inline and
  display formulas, for venues that count those separately.

The count agrees with a word count of the PDF's text (``pdftotext``, reference list cut, words
with a letter) within 2 % on the example papers (``tests/foundation/test_wordcount.py``).
Pure function, stdlib only (the notebook is read with ``mechnb.notebook``, math with the
checker's scanner), so the server, ``mechnb count`` and ``mechnb check`` call it cheaply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .notebook import Cell, Paper
from .roles import get_role
from .tex.scan import scan_markdown

__all__ = ["PartCount", "WordCount", "count_text", "count_words"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*")
_LETTER = re.compile(r"[^\W\d_]")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_REF = re.compile(r"\\(?:[cC]ref|[aA]utoref)\*?\{([^{}]*)\}")
_NUMREF = re.compile(r"\\(?:eqref|ref|pageref)\*?\{[^{}]*\}")
_CITE = re.compile(r"\\(cite[a-zA-Z]*)\*?(?:\[[^\]]*\]){0,2}\{([^{}]*)\}")
_PANDOC_CITE = re.compile(r"\[(-?@[^\]]+)\]|(?<![\w@])@([A-Za-z][\w:.\-]*)")
_LABEL = re.compile(r"\\label\{[^{}]*\}")
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?")
_HEADING = re.compile(r"(?m)^[ \t]{0,3}(#{1,6})[ \t]+(.*)$")
_BIB_ENTRY = re.compile(r"@\w+\s*[{(]\s*([^,\s]+)\s*,(.*?)(?=\n@|\Z)", re.S)
_BIB_AUTHOR = re.compile(r"\bauthor\s*=\s*[{\"](.*?)[}\"]\s*,?\s*$", re.S | re.M | re.I)



@dataclass
class PartCount:
    """The count of one part of the paper: a section, the abstract, the appendix…"""

    title: str
    """The section heading as written (``Introduction``), or ``Title`` / ``Abstract`` /
    ``Appendix`` for the parts that are not sections."""
    cell: int | None
    """0-based index of the cell that opens the part (``None`` for the title from metadata)."""
    kind: str
    """``title``, ``abstract``, ``section`` (main text) or ``appendix``."""
    words: int = 0
    """Words (Latin script and other alphabets), math tokens included."""
    cjk: int = 0
    """Chinese (CJK) characters."""
    math_words: int = 0
    """Of ``words``, those printed by formulas."""
    formulas: int = 0
    """Inline formulas."""
    displays: int = 0
    """Display formulas (``$$…$$``, equation environments)."""
    cell_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "kind": self.kind, "cell": self.cell,
                "cell_id": self.cell_id, "words": self.words, "cjk": self.cjk,
                "math_words": self.math_words, "formulas": self.formulas,
                "displays": self.displays}


@dataclass
class WordCount:
    """The whole paper's count: its parts in order and the totals journals ask for."""

    lang: str
    parts: list[PartCount] = field(default_factory=list)

    def _sum(self, attr: str, kinds: tuple[str, ...]) -> int:
        return sum(getattr(p, attr) for p in self.parts if p.kind in kinds)

    @property
    def main_words(self) -> int:
        """Words of the main text (sections; not the title, abstract or appendix)."""
        return self._sum("words", ("section",))

    @property
    def main_cjk(self) -> int:
        return self._sum("cjk", ("section",))

    @property
    def abstract_words(self) -> int:
        return self._sum("words", ("abstract",))

    @property
    def abstract_cjk(self) -> int:
        return self._sum("cjk", ("abstract",))

    @property
    def total_words(self) -> int:
        """Everything printed but the author block and the reference list."""
        return self._sum("words", ("title", "abstract", "section", "appendix"))

    @property
    def total_cjk(self) -> int:
        return self._sum("cjk", ("title", "abstract", "section", "appendix"))

    def to_json(self) -> dict[str, Any]:
        """The documented JSON form (``mechnb count --format json``, ``GET /mechnb/wordcount``)."""
        return {"lang": self.lang,
                "total": {"words": self.total_words, "cjk": self.total_cjk},
                "main": {"words": self.main_words, "cjk": self.main_cjk},
                "abstract": {"words": self.abstract_words, "cjk": self.abstract_cjk},
                "math_words": self._sum("math_words", ("title", "abstract", "section",
                                                       "appendix")),
                "parts": [p.to_json() for p in self.parts]}

    def text_lines(self, name: str) -> list[str]:
        """The report ``mechnb count`` prints."""
        zh = self.lang == "zh"

        def amount(words: int, cjk: int) -> str:
            if zh:
                return f"{cjk} 字 + {words} words" if words else f"{cjk} 字"
            return f"{words} words" + (f" + {cjk} CJK characters" if cjk else "")

        lines = [f"{name}: {amount(self.main_words, self.main_cjk)} in the main text; "
                 f"abstract {amount(self.abstract_words, self.abstract_cjk)}; "
                 f"{amount(self.total_words, self.total_cjk)} in all (title, abstract, "
                 "main text, appendix; no reference list)"]
        width = max((len(p.title) for p in self.parts), default=0)
        for p in self.parts:
            where = "" if p.cell is None else f"cell {p.cell + 1}"
            math = f"  (math {p.math_words} words, {p.formulas} inline, {p.displays} display)" \
                if p.math_words or p.displays else ""
            lines.append(f"  {p.title[:60]:<{min(width, 60)}}  {amount(p.words, p.cjk):>16}  "
                         f"{where}{math}")
        return lines


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MATH_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|\s+|.", re.S)
_WORD_COMMANDS = _names(
    "log ln exp max min arg sup inf lim det dim ker sin cos tan tanh sigmoid softmax Pr deg "
    "gcd lcm mod bmod pmod")
_SEPARATING = frozenset("=+-<>,;:|()[]/!*~&")


def _math_text(tex: str) -> str:
    """What a formula prints, near enough to count its words as a PDF reader splits them:
    spaces in TeX math print nothing (``\\beta x`` is one token ``βx``), scripts join their
    base, operators, relations and punctuation separate, symbol and font commands print no
    letter, ``\\log``/``\\max`` print their name, a Greek letter prints a letter."""
    tex = re.sub(r"\\(?:label|tag|begin|end)\{[^{}]*\}", " ", tex)
    tex = re.sub(r"\\(?:text|textrm|textit|textbf|mathrm|operatorname|mbox)\*?\{([^{}]*)\}",
                 lambda m: " " + m.group(1) + " ", tex)
    tex = re.sub(r"\}\s*\{", ",", tex)  # \frac{a}{b}, \binom: numerator and denominator apart
    out: list[str] = []
    for m in _MATH_TOKEN.finditer(tex):
        tok = m.group()
        if tok.isspace():
            continue
        if tok.startswith("\\") and len(tok) > 1 and tok[1].isalpha():
            name = tok[1:].rstrip("*")
            if name.lower() in _GREEK:
                out.append("\u03b1")
            elif name in _WORD_COMMANDS:
                out.append(" " + name + " ")
            elif name in _SYMBOL_ONLY:
                out.append("")
            else:
                out.append(" ")  # relations, operators, big operators, spacing
        elif tok.startswith("\\"):
            out.append(" ")  # \\, \{, \, …
        elif tok in "{}^_'":
            out.append("")
        elif tok in _SEPARATING or not tok.isalnum():
            out.append(" ")
        else:
            out.append(tok)
    return "".join(out)


_SYMBOL_ONLY = _names(
    "frac dfrac tfrac left right big Big bigg Bigg bigl bigr Bigl Bigr mathrm mathbf mathit "
    "mathsf mathtt mathcal mathbb mathfrak mathscr boldsymbol bm displaystyle textstyle "
    "scriptstyle limits nolimits hat tilde bar vec dot ddot overline underline widehat "
    "widetilde sqrt mathop star ast prime infty partial nabla ell hbar emptyset top")
"""Math commands that print a symbol or nothing and join the token they stand in."""


_GREEK = _names(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu "
    "xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega")


def _bib_authors(paper: Paper) -> dict[str, int]:
    """Citation key → number of authors, from the paper's .bib (empty if none)."""
    bib = paper.meta.bibliography
    if not bib or paper.path is None:
        return {}
    path = paper.path.parent / (bib if bib.endswith(".bib") else bib + ".bib")
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return {}
    out = {}
    for m in _BIB_ENTRY.finditer(text):
        a = _BIB_AUTHOR.search(m.group(2))
        out[m.group(1)] = len(re.split(r"\s+and\s+", a.group(1))) if a else 1
    return out


def _cite_words(keys: list[str], authors: dict[str, int]) -> str:
    """What natbib's author–year citation prints, as words (numbers left out)."""
    out = []
    for key in keys:
        n = authors.get(key.strip().lstrip("-@"), 3)
        out.append("Author" if n == 1 else "Author and Other" if n == 2 else "Author et al")
    return " ".join(out)


def _prose_text(text: str, authors: dict[str, int], lang: str = "en") -> str:
    """Prose of a markdown cell as it prints (markup, labels and link targets gone)."""
    text = _HTML_COMMENT.sub(" ", text)
    text = _IMAGE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML_TAG.sub(" ", text)
    text = _LABEL.sub(" ", text)
    text = _CITE.sub(lambda m: " " + _cite_words(m.group(2).split(","), authors) + " ", text)
    text = _PANDOC_CITE.sub(lambda m: " " + _cite_words(
        re.findall(r"@([\w:.\-]+)", m.group(0)), authors) + " ", text)
    ref = "定理" if lang == "zh" else "Ref"  # "Theorem 1" / "定理 1", "第 2 节": one word, two 字
    text = _REF.sub(lambda m: " " + " ".join(ref for _ in m.group(1).split(",")) + " ", text)
    text = _NUMREF.sub(" ", text)
    return _COMMAND.sub(" ", text)


def count_text(text: str) -> tuple[int, int]:
    """``(words, CJK characters)`` of plain text: a word is a run of letters and digits that
    holds a letter; every CJK character counts alone."""
    cjk = len(_CJK.findall(text))
    if cjk:
        text = _CJK.sub(" ", text)
    words = sum(1 for m in _WORD.finditer(text) if _LETTER.search(m.group()))
    return words, cjk


def _add(part: PartCount, text: str, *, math: bool = False) -> None:
    words, cjk = count_text(text)
    part.words += words
    part.cjk += cjk
    if math:
        part.math_words += words


def _add_markdown(part: PartCount, source: str, authors: dict[str, int],
                  lang: str = "en") -> None:
    scan = scan_markdown(source)
    for span in scan.spans:
        piece = source[span.start:span.end]
        if span.kind == "math":
            _add(part, _math_text(piece.strip("$")), math=True)
            if span.display:
                part.displays += 1
            else:
                part.formulas += 1
        elif span.kind == "code":
            _add(part, piece.strip("`"))
        else:
            _add(part, _prose_text(piece, authors, lang))


def _title_of(paper: Paper) -> tuple[str | None, int | None]:
    if paper.meta.title:
        return paper.meta.title, None
    for c in paper.cells:
        if c.role == "title" and c.is_markdown:
            first = next((ln for ln in c.source.splitlines() if ln.strip()), "")
            return first.lstrip("#").strip(), c.index
    first_cell = paper.cells[0] if paper.cells else None
    if first_cell is not None and first_cell.is_markdown and first_cell.role is None:
        m = _HEADING.match(first_cell.source)
        if m and len(m.group(1)) == 1:
            return m.group(2), first_cell.index
    return None, None


def _block_heading(cell: Cell, lang: str) -> str:
    """The words LaTeX adds around a cell: "Theorem 1 (title)", "Interpretation", "Proof"."""
    role = get_role(cell.role) if cell.role else None
    if role is None or role.latex_kind not in ("environment", "runin", "box", "proof"):
        return ""
    if role.latex_kind == "proof" and cell.kind == "sketch" and "sketch" in role.latex:
        return str(role.latex["sketch"]["zh" if lang == "zh" else "en"])
    return role.display(lang) + (f" {cell.title}" if cell.title else "")


_IMAGE_TYPES = ("application/pdf", "image/png", "image/jpeg", "image/svg+xml")
_TABULAR = re.compile(r"\\begin\{tabular\*?\}(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})?(.*?)"
                      r"\\end\{tabular\*?\}", re.S)


def _add_outputs(part: PartCount, cell: Cell, figure: str, table: str,
                 authors: dict[str, int], lang: str) -> None:
    """A figure/experiment cell's outputs as the export prints them: its caption with the
    first image ("Figure 2: …"; the words inside a picture are not text) or with its LaTeX
    table ("Table 1: …" and the table's cells)."""
    images = tables = 0
    for o in cell.outputs:
        data = o.get("data")
        if not isinstance(data, dict):
            continue
        if any(k in data for k in _IMAGE_TYPES):
            images += 1
        elif isinstance(latex := data.get("text/latex"), (str, list)):
            text = "".join(latex) if isinstance(latex, list) else latex
            for m in _TABULAR.finditer(text):
                tables += 1
                body = re.sub(r"\\(?:toprule|midrule|bottomrule|hline|cline\{[^{}]*\})", " ",
                              m.group(1))
                body = re.sub(r"\\multi(?:column|row)\{[^{}]*\}\{[^{}]*\}", " ", body)
                _add_markdown(part, body.replace("&", " ").replace("\\\\", " "), authors, lang)
        elif isinstance(md := data.get("text/markdown"), (str, list)):
            text = "".join(md) if isinstance(md, list) else md
            tables += text.count("\n|") > 0 or text.lstrip().startswith("|")
            _add_markdown(part, text.replace("|", " "), authors, lang)
    if cell.caption and (images or tables):
        _add(part, figure if images else table)
        _add_markdown(part, cell.caption, authors, lang)


def count_words(paper: Paper) -> WordCount:
    """The word count of ``paper`` as its PDF prints it, per part (see the module's notes)."""
    lang = paper.lang
    authors = _bib_authors(paper)
    figure, table = ("图", "表") if lang == "zh" else ("Figure", "Table")
    result = WordCount(lang=lang)
    title, title_cell = _title_of(paper)
    if title:
        part = PartCount("Title", title_cell, "title")
        _add_markdown(part, title, authors, lang)
        result.parts.append(part)
    if paper.meta.title_en:
        part = PartCount("English title", None, "title")
        _add_markdown(part, paper.meta.title_en, authors, lang)
        result.parts.append(part)
    if paper.meta.abstract_en:
        part = PartCount("English abstract", None, "abstract")
        _add_markdown(part, paper.meta.abstract_en, authors, lang)
        result.parts.append(part)
    current: PartCount | None = None
    in_appendix = False
    for cell in paper.cells:
        role = get_role(cell.role) if cell.role else None
        kind = role.latex_kind if role else None
        if kind == "omit" or cell.index == title_cell or kind == "title":
            continue
        if kind == "appendix":
            in_appendix = True
        if cell.cell_type == "code":
            if kind == "evidence" and current is not None:
                _add_outputs(current, cell, figure, table, authors, lang)
            continue
        if not cell.is_markdown or not cell.source.strip():
            continue
        if kind == "abstract":
            part = PartCount("Abstract", cell.index, "abstract", cell_id=cell.id)
            body = _HEADING.sub("", cell.source, count=1) \
                if _HEADING.match(cell.source.lstrip()) else cell.source
            _add_markdown(part, body, authors, lang)
            result.parts.append(part)
            continue
        source = cell.source
        heading = _HEADING.match(source.lstrip("\n"))
        opens = heading is not None and len(heading.group(1)) == 1 and kind in (
            None, "text", "evidence", "appendix", "runin")
        if opens or current is None:
            assert heading is not None or current is None
            name = heading.group(2).strip() if opens and heading else (
                "Appendix" if in_appendix else "Opening text")
            current = PartCount(name, cell.index, "appendix" if in_appendix else "section",
                                cell_id=cell.id)
            result.parts.append(current)
        extra = _block_heading(cell, lang)
        if extra:
            _add_markdown(current, extra, authors, lang)
        if cell.caption and kind == "evidence":
            _add(current, figure)
            _add_markdown(current, cell.caption, authors, lang)
        _add_markdown(current, source, authors, lang)
    return result


def count_notebook(path: str | Path) -> WordCount:
    """``count_words`` of the notebook at ``path``."""
    from .notebook import read_paper

    return count_words(read_paper(path))
