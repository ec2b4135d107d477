"""Rules that read what a cell says: vacuous cells (MECH070), prior work with no citation
(MECH075).

MECH070 reads six roles (``gap``, ``interpretation``, ``implication``, ``limitations``,
``lens``, ``result``) with three signals, computed from the cell's prose once math, code,
citations, references, headings and markup are set aside:

- *stock sentences*: patterns of sentences that fit any paper (``data/checks/
  stock_phrases.json``, English and Chinese), removed from the prose before anything else;
- *length*: fewer than ``SHORT_WORDS`` words, a CJK character counting half a word (so about
  15 characters of Chinese);
- *link*: what ties the cell to its subject. An interpretation shares a content word (stop and
  generic words removed, plurals and -ing/-ed folded), a CJK character bigram, a math symbol or a
  label with the statement it follows (and the cells between them); a gap, limitation,
  implication or lens names something (a citation, a reference, math, inline code, a number, a
  content word beyond the generic ones: "work", "research", "problem", 工作, 研究…); a result
  names a figure, a table or a number.

A cell fires when its prose is only stock sentences (nothing specific left once they are
removed), or when it is short and has no link. A long cell is never "vacuous" for lack of a
link. Cells that still hold template slots are MECH025's business and are skipped.

Nothing here imports more than the standard library. The stock patterns are compiled on first
use and run only on cells whose every content word some pattern spells; cells over
``CELL_LIMIT`` characters are not read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..findings import Finding
from ..lazyre import lazy
from .document import REF_PATTERN, STATEMENT_BOUNDARY, Document
from .prose import CITE, HEADING, LABEL, PANDOC_CITE, URL, blank, blank_all, wording_pattern
from .text import cell_slots

if TYPE_CHECKING:
    from ..notebook import Cell
    from .rule import Rule

VACUOUS_ROLES = ("gap", "interpretation", "implication", "limitations", "lens", "result")
"""The roles MECH070 reads."""
STATEMENT_ROLES = frozenset({"theorem", "lemma", "proposition", "corollary", "claim",
                             "definition", "formula", "assumption"})
"""Roles an interpretation can be the interpretation of."""
SHORT_WORDS = 8
"""A cell is short below this many words of prose (a CJK character counts half a word)."""
CELL_LIMIT = 20_000
"""Cells longer than this are neither short nor made only of stock sentences: not read."""
SUGGEST_FUNCTIONS = {"gap": "introduction/gap", "interpretation": "theorem/interpretation",
                     "implication": "impact", "limitations": "limitations",
                     "lens": "introduction/lens", "result": "results"}
"""The phrase-library function suggested for each role (``mechnb phrases --function F``)."""
ADVICE = {
    "gap": "name the specific missing piece: which explanation, bound, model or measurement is "
           "missing",
    "interpretation": "say in words what the statement means, in terms of its own quantities "
                      "and symbols",
    "implication": "say what follows for a named model, method or practice",
    "limitations": "name the assumption, setting or model the results do not cover",
    "lens": "name the perspective and what it lets you see (training dynamics, the logit "
            "margin, circuit analysis…)",
    "result": "name the figure or table (\\cref{fig:…}) and the numbers it shows",
}
NAMES_NOTHING = {
    "gap": "object, assumption, setting, model or citation",
    "limitations": "object, assumption, setting, model or citation",
    "implication": "concrete object, model, method or setting",
    "lens": "concrete perspective, object, model or method",
    "interpretation": "concrete object, symbol or setting",
    "result": "figure, table or number",
}

_NOT_A_SYMBOL = lazy(
    r"frac|dfrac|tfrac|left|right|big|Big|bigg|Bigg|mathrm|mathbf|mathcal|mathbb|mathsf|"
    r"mathit|mathfrak|boldsymbol|bm|text|textrm|textbf|textit|operatorname|cdot|cdots|"
    r"ldots|dots|vdots|ddots|quad|qquad|begin|end|label|tag|nonumber|notag|leq|geq|le|ge|"
    r"lt|gt|neq|ne|approx|sim|simeq|equiv|propto|to|mapsto|in|notin|subset|subseteq|cup|"
    r"cap|sum|prod|int|oint|infty|log|ln|exp|max|min|sup|inf|lim|liminf|limsup|arg|argmax|"
    r"argmin|sqrt|hat|tilde|bar|vec|dot|ddot|overline|underline|widehat|widetilde|mid|"
    r"forall|exists|top|intercal|times|pm|mp|div|circ|ast|star|cdotp|colon|coloneqq|"
    r"triangleq|defeq|lbrace|rbrace|langle|rangle|lvert|rvert|lVert|rVert|vert|Vert|"
    r"displaystyle|textstyle|scriptstyle|limits|nolimits|underbrace|overbrace|stackrel|"
    r"overset|underset|substack|not|neg|land|lor|implies|iff|Rightarrow|rightarrow|"
    r"leftarrow|Leftarrow|leftrightarrow|Leftrightarrow|ll|gg|lesssim|gtrsim|sin|cos|tan|"
    r"det|dim|ker|Pr|E|P|mathop|hspace|vspace|enspace")
"""TeX commands that structure math rather than name a quantity (``\\frac``, ``\\leq``…);
any other command (``\\Delta``, a notebook macro ``\\mA``) is a symbol."""

_TEX_COMMAND = lazy(r"\\[A-Za-z@]+\*?|\\.")
_MARKUP = lazy(r"[*_{}~`|>#\[\]]")
_EN_WORD = lazy(r"[A-Za-z][A-Za-z0-9]*(?:['’-][A-Za-z0-9]+)*")
_NUMBER = lazy(r"\d+(?:[.,]\d+)*\s?%?")
_CJK_RUN = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_CJK = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_DIGIT = lazy(r"\d")
_MATH_SYMBOL = lazy(r"\\([A-Za-z]+)|(?<![A-Za-z\\])([A-Za-z])(?![A-Za-z])")
_MATH_WORD = lazy(r"\\(?:text|mathrm|operatorname|textrm|textit|mathit|mathsf)\{([A-Za-z]{2,"
                        r"})\}")
_FIGURE_WORD = lazy(r"(?i)\b(?:fig(?:ure)?s?|tab(?:le)?s?)\b\.?|%|"
                          r"图\s*\d|表\s*\d|如图|图中|见图|上图|下图|表中|见表|如表|表格")
_FIGURE_LABEL = lazy(r"(?i)^(?:fig|tab|table|figure|exp|res)\b")
_POINTS_TO_SECTION = lazy(r"\\[cC]?ref\{(?:sec|app|section|appendix)[:.-]")
"""A prior cell that points to the related-work section (\\cref{sec:related}) cites there."""
_BY_HAND = lazy(r"\b[A-Z][A-Za-z'-]+(?: et al\.?| and [A-Z][A-Za-z'-]+)?,? \(?(?:19|20)"
                      r"\d\d[a-z]?\b\)?|\b[A-Z][A-Za-z'-]+ et al\.|\[\d+(?:[,–-] ?\d+)*\]")
"""A citation typed by hand: "Olsson et al. (2022)", "(Elhage, 2021)", "[12]"."""
_NO_PRIOR = lazy(r"(?i)\b(?:no|little|few) (?:prior|previous|earlier|existing|published) "
                       r"(?:work|study|studies|research|paper)|\bto (?:the best of )?our "
                       r"knowledge\b|据我们所知|尚无|尚未有|还没有(?:工作|研究)")


@dataclass(frozen=True)
class StockPhrase:
    """One stock sentence of ``data/checks/stock_phrases.json``."""

    id: str
    lang: str
    source: str
    """The pattern as written in the data file."""
    roles: frozenset[str] | None
    example: str

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern (compiled on first use: most cells never need it)."""
        return _compile(self.source, self.lang)


@dataclass(frozen=True)
class Lexicon:
    """The stock sentences and the generic words (``data/checks/stock_phrases.json``)."""

    phrases: tuple[StockPhrase, ...]
    generic_en: frozenset[str]
    """Stems of English words that name nothing specific."""
    stop_en: frozenset[str]
    """English stop words (lower case)."""
    generic_zh: re.Pattern[str]
    """Chinese generic words and function characters, longest first (removed before bigrams)."""
    pattern_words: frozenset[str] = frozenset()
    """Stems of the Latin words the stock patterns spell (a prefilter)."""
    pattern_bigrams: frozenset[str] = frozenset()
    """CJK bigrams the stock patterns spell (a prefilter)."""

    def for_role(self, role: str) -> list[StockPhrase]:
        """The stock sentences that apply to cells of ``role``."""
        return [p for p in self.phrases if p.roles is None or role in p.roles]


def _compile(pattern: str, lang: str) -> re.Pattern[str]:
    return wording_pattern(pattern.replace(" ", r"\s*"), lang)


@cache
def lexicon() -> Lexicon:
    """The stock-sentence lexicon, read once from the package data."""
    data: dict[str, Any] = json.loads(resources.files("mechnb").joinpath(
        "data/checks/stock_phrases.json").read_text("utf-8"))
    phrases = tuple(
        StockPhrase(p["id"], p["lang"], p["pattern"],
                    frozenset(p["roles"]) if p.get("roles") else None, p["example"])
        for p in data["phrases"])
    generic = data["generic_words"]
    zh = sorted(generic["zh"], key=len, reverse=True)
    spelled = " ".join(p["pattern"] for p in data["phrases"])
    words = re.findall(r"[A-Za-z]+", spelled)
    runs = re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]+", spelled)
    return Lexicon(phrases, frozenset(_stem(w) for w in generic["en"]),
                   frozenset(data["stop_words"]["en"]), re.compile("|".join(map(re.escape, zh))),
                   frozenset(_stem(w) for w in words) | {w.lower() for w in words},
                   frozenset(r[k:k + 2] for r in runs for k in range(len(r) - 1)))


def _stem(word: str) -> str:
    """A crude stem: lower case, plural / -ing / -ed / final -e folded (heads → head,
    copying → copy, computed → comput)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and (w.endswith("ed") or (w.endswith("es") and w[-3] in "sxzh")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


@dataclass
class Content:
    """What a piece of prose names: English stems and CJK bigrams beyond the generic words."""

    stems: set[str] = field(default_factory=set)
    bigrams: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.stems or self.bigrams)


def content_of(text: str) -> Content:
    """Content stems and CJK bigrams of ``text`` (stop and generic words removed; a hyphenated
    word counts by its parts too)."""
    lex = lexicon()
    out = Content()
    for m in _EN_WORD.finditer(text):
        word = m.group()
        for part in {word, *re.split(r"['’-]", word)}:
            if not part or part.lower() in lex.stop_en:
                continue
            stem = _stem(part)
            if stem not in lex.generic_en and part.lower() not in lex.generic_en and (
                    len(stem) > 1):
                out.stems.add(stem)
    if _CJK.search(text):
        reduced = lex.generic_zh.sub(" ", text)
        for run in _CJK_RUN.findall(reduced):
            out.bigrams.update(run[k:k + 2] for k in range(len(run) - 1))
    return out


@dataclass
class Reading:
    """One markdown cell as MECH070 reads it."""

    prose: str
    """The source with everything but prose words blanked out (same length: offsets hold)."""
    words: int
    """Latin words and numbers of the prose."""
    cjk: int
    """CJK characters of the prose."""
    cited: bool
    refs: set[str]
    labels: set[str]
    math: bool
    symbols: set[str]
    code: bool
    digits: bool

    @property
    def size(self) -> float:
        """Length in words (a CJK character counts half)."""
        return self.words + self.cjk / 2

    def size_text(self) -> str:
        """The length as a message says it."""
        if self.cjk > self.words:
            return f"{self.cjk} characters"
        return f"{self.words} word{'s' if self.words != 1 else ''}"

    @property
    def marked(self) -> bool:
        """Names something by form alone: a citation, a reference, math, code or a number."""
        return self.cited or bool(self.refs) or self.math or self.code or self.digits


def read_cell(doc: Document, idx: int) -> Reading:
    """Split one exported markdown cell into what MECH070 needs."""
    scan = doc.scans[idx]
    src = scan.source
    chars = [" " if ch != "\n" else "\n" for ch in src]
    math = False
    code = False
    symbols: set[str] = set()
    labels: set[str] = set()
    digits = False
    for span in scan.spans:
        piece = src[span.start:span.end]
        if span.kind == "prose":
            chars[span.start:span.end] = piece
        elif span.kind == "math":
            math = True
            digits = digits or bool(_DIGIT.search(piece))
            labels.update(m.group(1).strip() for m in LABEL.finditer(piece))
            for m in _MATH_SYMBOL.finditer(piece):
                if m.group(1) is None:
                    symbols.add(m.group(2))
                elif not _NOT_A_SYMBOL.fullmatch(m.group(1)):
                    symbols.add("\\" + m.group(1))
            symbols.update(m.group(1).lower() for m in _MATH_WORD.finditer(piece))
        else:
            code = True
    prose = "".join(chars)
    prose = blank_all(HEADING, prose)
    cited = False
    if "\\" in prose or "@" in prose:
        cited = bool(CITE.search(prose) or PANDOC_CITE.search(prose))
        prose = blank_all(CITE, prose)
        prose = blank_all(PANDOC_CITE, prose)
    refs: set[str] = set()
    if "\\" in prose:
        for m in REF_PATTERN.finditer(prose):
            refs.update(n.strip() for n in m.group(2).split(",") if n.strip())
        prose = blank_all(REF_PATTERN, prose)
        labels.update(m.group(1).strip() for m in LABEL.finditer(prose))
        prose = blank_all(LABEL, prose)
        prose = blank_all(_TEX_COMMAND, prose)
    prose = blank_all(URL, prose)
    prose = blank_all(_MARKUP, prose)
    numbers = _NUMBER.findall(prose)
    digits = digits or bool(numbers)
    words = len(_EN_WORD.findall(prose)) + len(numbers)
    return Reading(prose, words, len(_CJK.findall(prose)), cited, refs, labels, math, symbols,
                   code, digits)


def _statement_before(doc: Document, cell: Cell) -> Cell | None:
    """The theorem-like / definition / formula cell an interpretation follows (``None`` when a
    block boundary of another kind, or nothing, comes first)."""
    for c in reversed(doc.cells[:cell.index]):
        if c.role in STATEMENT_BOUNDARY:
            return c if c.role in STATEMENT_ROLES and doc.stated(c) else None
    return None


def _shares(doc: Document, cell: Cell, reading: Reading, statement: Cell) -> bool:
    """True if the interpretation shares a content word, bigram, symbol or label with its
    statement (or a cell between them)."""
    mine = content_of(reading.prose)
    words: set[str] = set()
    bigrams: set[str] = set()
    symbols: set[str] = set()
    labels: set[str] = {statement.label} if statement.label else set()
    for c in doc.cells[statement.index:cell.index]:
        if not c.is_markdown or c.index not in doc.scans or not doc.exported(c):
            continue
        if len(c.source) > CELL_LIMIT:
            return True  # a huge statement shares something; not worth reading
        theirs = read_cell(doc, c.index)
        found = content_of(theirs.prose + " " + (c.title or ""))
        words |= found.stems
        bigrams |= found.bigrams
        symbols |= theirs.symbols
        labels |= theirs.labels | theirs.refs
        if c.label:
            labels.add(c.label)
    return bool(mine.stems & words or mine.bigrams & bigrams or reading.symbols & symbols
                or reading.refs & labels)


def _names_result(doc: Document, reading: Reading) -> bool:
    """A result names a figure, a table or a number."""
    if reading.digits or _FIGURE_WORD.search(reading.prose):
        return True
    for name in reading.refs:
        target = doc.cell_labels.get(name)
        if _FIGURE_LABEL.match(name) or (target is not None and (
                target.role in ("experiment", "figure", "result") or target.outputs)):
            return True
    return False


def _describe(statement: Cell) -> str:
    role = statement.role or "statement"
    name = f"{role.capitalize()} {statement.label}" if statement.label else f"the {role}"
    return f"{name} in cell {statement.index + 1}"


def _suggestion(role: str, lang: str) -> str:
    from .moves import _suggest  # one place words the phrase suggestion

    return _suggest(role, lang, SUGGEST_FUNCTIONS.get(role))


def _advice(role: str, doc: Document) -> str:
    return f"{ADVICE[role]}{_suggestion(role, doc.paper.lang)}"


def _only_stock(role: str, prose: str, content: Content) -> tuple[int, str] | None:
    """``(offset, text)`` of the first stock sentence when the prose is only stock sentences
    (nothing specific left once they are removed), else ``None``. A content word that no stock
    pattern spells cannot be removed by one, so such prose is not matched at all (most cells:
    the patterns are the costly part of the rule)."""
    lex = lexicon()
    if not content.stems <= lex.pattern_words or not content.bigrams <= lex.pattern_bigrams:
        return None
    left = prose
    first: tuple[int, str] | None = None
    for phrase in lex.for_role(role):
        for m in phrase.pattern.finditer(prose):
            if m.end() - m.start() < 2:
                continue
            if first is None or m.start() < first[0]:
                first = (m.start(), m.group())
            left = blank(left, m.start(), m.end())
    if first is None or content_of(left):
        return None
    return first


def _quote(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;:")
    return text if len(text) <= 80 else text[:77] + "…"


def vacuous_reason(doc: Document, cell: Cell) -> tuple[str, int | None] | None:
    """Why a cell of a MECH070 role says nothing specific, and where: ``(message, offset)``;
    ``None`` when it says something (or is not read: template slots, huge, empty)."""
    role = cell.role
    if role not in VACUOUS_ROLES or cell.index not in doc.scans or not doc.exported(cell):
        return None
    if len(cell.source) > CELL_LIMIT or cell_slots(doc, cell.index):
        return None
    reading = read_cell(doc, cell.index)
    if not reading.prose.strip() and not reading.marked:
        return None
    content = content_of(reading.prose)
    stock = None if reading.marked else _only_stock(role, reading.prose, content)
    if stock is not None:
        return (f"the {role} cell says only stock sentences that fit any paper "
                f"(“{_quote(stock[1])}”); {_advice(role, doc)}", stock[0])
    if reading.size >= SHORT_WORDS:
        return None
    start = len(reading.prose) - len(reading.prose.lstrip())
    at = start if start < len(reading.prose) else None
    if role == "interpretation":
        statement = _statement_before(doc, cell)
        if statement is not None:
            if reading.cited or reading.refs or reading.digits or reading.code or _shares(
                    doc, cell, reading, statement):
                return None
            return (f"the interpretation is short ({reading.size_text()}) and shares no word "
                    f"or symbol with {_describe(statement)}; {_advice(role, doc)}", at)
    if role == "result":
        if _names_result(doc, reading):
            return None
    elif reading.marked or content:
        return None
    return (f"the {role} cell is short ({reading.size_text()}) and names no "
            f"{NAMES_NOTHING[role]}; {_advice(role, doc)}", at)


def check_vacuous(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A gap / interpretation / implication / limitations / lens / result cell that says nothing
    specific: only stock sentences, or short and tied to nothing."""
    for cell in doc.cells:
        if cell.role in VACUOUS_ROLES and cell.is_markdown:
            found = vacuous_reason(doc, cell)
            if found is not None:
                yield rule.at(doc, found[0], cell.index, found[1])


def _cites(doc: Document) -> set[int]:
    return {site.cell for site in doc.citations}


def check_nothing_cited(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Context / prior cells and no citation at all, or a prior cell with no citation.

    When the paper cites nothing, one finding is made, at the first (filled) context or prior
    cell, naming the prior cells; otherwise each prior cell without a citation gets its own.
    Cells that still hold template slots, prior cells that say no prior work exists ("to our
    knowledge", 据我们所知) and prior cells that point to a section (``\\cref{sec:related}``)
    are skipped. A citation typed by hand ("Olsson et al. (2022)") is quoted in the message.
    """
    narrative = [c for c in doc.cells
                 if c.role in ("context", "prior") and c.is_markdown and doc.exported(c)
                 and c.source.strip() and c.index in doc.scans
                 and not cell_slots(doc, c.index)]
    if not narrative:
        return
    cited = _cites(doc)
    priors = [c for c in narrative if c.role == "prior" and c.index not in cited
              and not _NO_PRIOR.search(c.source) and not _POINTS_TO_SECTION.search(c.source)]
    if not cited:
        first = narrative[0]
        others = [c for c in priors if c is not first]
        named = ""
        if len(others) == 1:
            named = f" (nor does the prior cell {others[0].index + 1})"
        elif others:
            named = f" (nor do the prior cells {', '.join(str(c.index + 1) for c in others)})"
        typed = _typed_by_hand(first.source)
        how = f"only by hand ({typed}, which never reaches the bibliography)" if typed else \
            "without a citation"
        yield rule.at(doc, f"the paper cites nothing: this {first.role} cell sets the work "
                           f"against the literature {how}{named}; cite the work you build on "
                           f"(\\citep{{key}} with an entry in the .bib, or [@key])", first.index)
        return
    for c in priors:
        typed = _typed_by_hand(c.source)
        what = (f"cites only by hand ({typed}), which never reaches the bibliography" if typed
                else "cites nothing")
        yield rule.at(doc, f"this prior cell {what}: say whose work established what, with "
                           f"\\citep{{key}} or [@key]{_suggestion('prior', doc.paper.lang)}",
                      c.index)


def _typed_by_hand(source: str) -> str | None:
    """The first citation typed by hand in ``source``, quoted (“Olsson et al. (2022)”)."""
    found = _BY_HAND.search(source)
    if found is None:
        return None
    quote = found.group().strip()
    if quote.endswith(")") and "(" not in quote:
        quote = quote[:-1]
    return f"“{quote}”"
