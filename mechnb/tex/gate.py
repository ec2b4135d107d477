"""The TeX gate: what a notebook may send to TeX, read top to bottom (DESIGN §2a, "Trust").

Everything a notebook contributes to the ``.tex`` falls in one of three kinds:

* **allowed** — markdown math written with the macros and environments MathJax 3 knows as
  JupyterLab 4 ships it (``data/latex/mathjax3.json``, generated from MathJax itself, minus
  ``NOT_IN_LATEX``), the text-mode macros of ``TEXT_MACROS``, macros the notebook defines from
  allowed pieces (``DEFINITIONS``), ``text/latex`` outputs that are math, and tables written
  with ``TABLE_MACROS`` / ``TABLE_ENVIRONMENTS``;
* **needs review** (``REVIEW``) — anything else that is not refused: raw LaTeX cells, other
  ``text/latex`` outputs, a macro or environment off the lists, a ``.bib`` ``@preamble`` or
  ``@string`` beyond plain text, templates and venue style or class files next to the notebook.
  ``mechnb trust`` approves such content by its hash (``mechnb.tex.trust``);
* **refused** (``REFUSED``) — what runs commands, reads or writes files, or builds command
  names: the deny-list of ``scan.DANGEROUS_COMMANDS``, ``NAME_BUILDERS`` (``\\csname`` and
  every command that builds, takes or renames a command name, case mapping included), ``^^``,
  environment names built from macros, and ``\\let`` onto anything off the lists. Refused TeX
  never compiles without ``--trust`` and no approval covers it.

Tokens are read the way TeX reads them (with LaTeX's document catcodes): a control word is a
backslash and letters only (``\\input@x`` is ``\\input`` then ``@x``), a control symbol a
backslash and one other character, ``%`` starts a comment that runs to the end of the line,
``{``/``}`` group. Judging is one linear pass per piece of text: a definition's body is judged
in place, as the tokens that follow the definition's name.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..paper_paths import resolve_in_folder
from .scan import DANGEROUS_ENVIRONMENTS, command_reason, find_dangerous, path_reason, scan_markdown

if TYPE_CHECKING:
    from markdown_it.token import Token

    from ..notebook import Paper

Verdict = Literal["refused", "review"]
REFUSED: Verdict = "refused"
REVIEW: Verdict = "review"

# ---------------------------------------------------------------- what is refused, whatever it is
_BUILDS = "builds, takes or renames a command name (and so can spell a forbidden command)"
_CASE = "maps letter case, which can turn harmless letters into a forbidden command's name"
NAME_BUILDERS: dict[str, str] = {
    **dict.fromkeys((
        # TeX and LaTeX: names from characters, catcodes, rescanning
        "csname", "endcsname", "ifcsname", "begincsname", "lastnamedcs", "catcode",
        "scantokens", "scantextokens", "makeatletter", "makeatother", "ExplSyntaxOn",
        "ExplSyntaxOff", "ProvidesExplFile", "ProvidesExplPackage", "ProvidesExplClass",
        "UseName", "ExpandArgs", "NewCommandCopy", "RenewCommandCopy", "DeclareCommandCopy",
        "NewEnvironmentCopy", "RenewEnvironmentCopy", "DeclareEnvironmentCopy",
        "futurelet", "gdef", "edef", "xdef", "global", "afterassignment", "chardef",
        "mathchardef", "countdef", "dimendef", "skipdef", "muskipdef", "toksdef", "newcount",
        "newdimen", "newskip", "newmuskip", "newtoks", "newbox", "newif", "newlength",
        "newcounter", "newsavebox", "providecommand", "DeclareRobustCommand",
        "newenvironment", "renewenvironment", "NewDocumentCommand", "RenewDocumentCommand",
        "ProvideDocumentCommand", "DeclareDocumentCommand", "NewExpandableDocumentCommand",
        "RenewExpandableDocumentCommand", "ProvideExpandableDocumentCommand",
        "DeclareExpandableDocumentCommand", "NewDocumentEnvironment",
        "RenewDocumentEnvironment", "ProvideDocumentEnvironment",
        "DeclareDocumentEnvironment", "DeclareMathSymbol", "DeclareSymbolFont",
        "DeclareMathAlphabet", "DeclareMathDelimiter", "DeclareMathAccent",
        "DeclareMathRadical", "DeclareTextCommand", "DeclareTextSymbol",
        "DeclarePairedDelimiter", "DeclarePairedDelimiterX", "DeclarePairedDelimiterXPP",
        "newrobustcmd", "renewrobustcmd", "providerobustcmd", "AtBeginDocument",
        "AtEndDocument", "everymath", "everydisplay", "everypar", "everyeof", "everyhbox",
        "everyvbox", "everyjob", "everycr", "uccode", "lccode", "sfcode", "mathcode",
        "delcode", "endlinechar", "newlinechar", "escapechar",
        # etoolbox: control sequences by name
        "csdef", "csgdef", "csedef", "csxdef", "csundef", "csuse", "cslet", "csletcs",
        "letcs", "csshow", "csmeaning", "csexpandonce", "csappto", "cspreto", "cseappto",
        "csepreto", "csgappto", "csgpreto", "csxappto", "csxpreto", "ifcsdef", "ifcsundef",
        "ifcsmacro", "ifcsparam", "ifcsprefix", "ifcsprotected", "ifcsltxprotect",
        "ifcsvoid", "ifcsequal", "ifcsstring", "ifcsstrequal", "ifcsbool", "csdimdef",
        "csgluedef", "csnumdef", "csmudef", "cslist", "csdefcounter", "providecs"),
        _BUILDS),
    **dict.fromkeys(("lowercase", "uppercase", "MakeLowercase", "MakeUppercase",
                     "MakeTextLowercase", "MakeTextUppercase", "MakeTitlecase",
                     "NoCaseChange"), _CASE),
}
"""Refused in every context: they build command names (or change how names are read)."""

DEFINITIONS = frozenset({"newcommand", "renewcommand", "DeclareMathOperator", "def", "let"})
"""The only commands that may define a name, each with a plain new name (letters only, not a
refused or special name): ``\\newcommand``/``\\renewcommand`` with ``[n]`` arguments and a
body that is itself allowed, ``\\DeclareMathOperator`` (and ``*``), ``\\def`` without
parameters, ``\\let`` onto an allowed command that takes no name."""
NAME_TAKERS = DEFINITIONS | {"begin", "end"}
"""Allowed commands that take a name: never a ``\\let`` target, never a defined name."""

# ------------------------------------------------------------------- what is allowed, by context
NOT_IN_LATEX = frozenset({
    "data", "unicode", "mmlToken", "setOptions", "enclose", "verb", "newenvironment",
    "renewenvironment", "DeclarePairedDelimiter",
    "DeclarePairedDelimiterX", "DeclarePairedDelimiterXPP", "DeclarePairedDelimiters",
    "DeclarePairedDelimitersX", "DeclarePairedDelimitersXPP", "ce", "pu", "Newextarrow",
    "toggle", "mathtip", "texttip", "mathtoolsset", "newtagform", "renewtagform", "usetagform",
})
"""MathJax macros that are not taken on trust in LaTeX: browser-only extensions (``\\unicode``,
``\\mmlToken``, ``\\toggle``…, which LaTeX does not know) and MathJax macros that define or take
names (refused above, or handled as ``DEFINITIONS``). ``\\require``, ``\\class``, ``\\style``,
``\\cssId`` and ``\\bbox`` stay allowed: the export defines them to keep their argument
(``data/latex/mathjax.tex``)."""
TEXT_MACROS = frozenset({
    # emphasis and type styles
    "emph", "textbf", "textit", "texttt", "textsc", "textsf", "textrm", "textup", "textsl",
    "textmd", "textnormal", "underline", "mbox", "text",
    # references and citations (the names are checked where they are written: MECH030/814)
    "ref", "eqref", "cref", "Cref", "autoref", "pageref", "nameref", "vref", "Vref", "crefrange",
    "Crefrange", "label", "cite", "citep", "citet", "citealp", "citealt", "citeauthor",
    "citeyear", "citeyearpar", "Citep", "Citet", "nocite",
    # links (their targets go through scan.path_reason: web and mail links only)
    "url", "href",
    # accents and letters
    "ss", "ae", "AE", "oe", "OE", "o", "O", "l", "L", "i", "j", "aa", "AA",
    "c", "d", "b", "t", "u", "v", "H", "r", "k",
    # symbols and spacing
    "LaTeX", "TeX", "ldots", "dots", "S", "P", "dag", "ddag", "copyright", "pounds",
    "textendash", "textemdash", "textasciitilde", "textbackslash", "textbar", "textbullet",
    "textdegree", "textperthousand", "textregistered", "texttrademark", "today", "quad",
    "qquad", "enspace", "thinspace", "newline", "linebreak", "nolinebreak", "hfill",
    "footnote",
})
"""Text-mode macros allowed in markdown (and inside ``\\text{…}``)."""
TABLE_MACROS = TEXT_MACROS | frozenset({
    "toprule", "midrule", "bottomrule", "cmidrule", "addlinespace", "morecmidrules",
    "specialrule", "hline", "cline", "multicolumn", "multirow", "caption", "centering",
    "raggedright", "raggedleft", "small", "footnotesize", "scriptsize", "tiny", "normalsize",
    "large", "Large", "bfseries", "itshape", "ttfamily", "rmfamily", "sffamily", "arraystretch",
    "tabcolsep", "renewcommand", "setlength", "extracolsep", "fill", "rule", "strut",
    "arraybackslash", "makecell", "resizebox", "linewidth", "textwidth", "columnwidth",
})
"""Macros of a table in a ``text/latex`` output (pandas' ``to_latex``, booktabs)."""
TABLE_ENVIRONMENTS = frozenset({"tabular", "tabular*", "tabularx", "table", "table*",
                                "center", "threeparttable", "tablenotes", "itemize"})
"""Environments of a table in a ``text/latex`` output."""
SAFE_SCHEMES = re.compile(r"(?i)^\s*(?:https?|ftp|mailto|doi):")

Context = Literal["math", "text", "table"]
_HitSink = Callable[[int, int, "Verdict", str], None]


@dataclass(frozen=True)
class MathJax:
    """The allow-list data: MathJax 3's macros and environments, and where they come from."""

    macros: frozenset[str]
    environments: frozenset[str]
    source: str
    """The MathJax and JupyterLab versions the list was generated from."""


@cache
def mathjax() -> MathJax:
    """``data/latex/mathjax3.json``, read once."""
    data = json.loads(resources.files("mechnb").joinpath(
        "data/latex/mathjax3.json").read_text("utf-8"))
    source = ", ".join(f"{k} {v}" for k, v in data.get("source", {}).items()
                       if isinstance(v, str) and len(v) < 80)
    return MathJax(frozenset(data["macros"]) - NOT_IN_LATEX,
                   frozenset(data["environments"]), source)


def allowed_macros(context: Context) -> frozenset[str]:
    """The control sequences allowed in ``context`` before the notebook defines any."""
    if context == "table":
        return TABLE_MACROS | mathjax().macros
    return mathjax().macros | TEXT_MACROS


def allowed_environments(context: Context) -> frozenset[str]:
    """The environments allowed in ``context``."""
    if context == "table":
        return TABLE_ENVIRONMENTS | mathjax().environments
    return mathjax().environments


# ------------------------------------------------------------------------------ reading tokens
@dataclass(frozen=True, slots=True)
class Hit:
    """One place the gate does not allow: refused, or needing review."""

    offset: int
    """Offset of the token in the judged text."""
    snippet: str
    """The token as written (one line, shortened)."""
    verdict: Verdict
    reason: str


_TOKEN = re.compile(r"\\(?:([A-Za-z]+)|(.))|(%)|(\\)$", re.S)
_SPACE = re.compile(r"(?:[ \t\r\n]|%[^\n]*(?:\n|$))*")
_PLAIN_NAME = re.compile(r"[A-Za-z]+\*?")
_GROUP_LIMIT = 10_000


def _skip(text: str, pos: int) -> int:
    """Past white space and comments (TeX skips both between a command and its argument)."""
    m = _SPACE.match(text, pos)
    return m.end() if m else pos


def _group(text: str, pos: int) -> tuple[str, int] | None:
    """``(content, end)`` of a ``{…}`` group at ``pos`` (after spaces), braces balanced, escaped
    braces skipped; ``None`` when there is none (or it runs past ``_GROUP_LIMIT``)."""
    pos = _skip(text, pos)
    if pos >= len(text) or text[pos] != "{":
        return None
    depth, k = 0, pos
    stop = min(len(text), pos + _GROUP_LIMIT)
    while k < stop:
        ch = text[k]
        if ch == "\\":
            k += 2
            continue
        if ch == "%":
            nl = text.find("\n", k)
            k = stop if nl < 0 else nl + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[pos + 1:k], k + 1
        k += 1
    return None


brace_group = _group
"""Public name of ``_group`` (the LaTeX reader takes definitions apart with it too)."""


def _name_arg(text: str, pos: int) -> tuple[str | None, int]:
    """The command name a definition defines: ``\\name`` or ``{\\name}`` (``(None, pos)`` when
    it is not a plain control word)."""
    pos = _skip(text, pos)
    group = _group(text, pos)
    inner, end = (group[0].strip(), group[1]) if group else (text[pos:pos + 200], None)
    m = re.match(r"\\([A-Za-z]+)", inner)
    if m is None:
        return None, pos
    if end is None:
        return m.group(1), pos + m.end()
    return (m.group(1) if m.end() == len(inner) else None), end


def _snippet(text: str, start: int, end: int) -> str:
    shown = text[start:max(end, start + 1)].split("\n", 1)[0]
    return shown if len(shown) <= 60 else shown[:57] + "…"


def defined_names(texts: Iterable[str]) -> frozenset[str]:
    """The names a notebook defines with ``DEFINITIONS`` anywhere in its math (a definition
    counts everywhere: the export hoists it to the preamble). Whether each definition is
    allowed is judged where it is written."""
    names: set[str] = set()
    for text in texts:
        if "\\" not in text:
            continue
        for m in re.finditer(r"\\(newcommand|renewcommand|DeclareMathOperator|def|let)"
                             r"(?![A-Za-z])\*?", text):
            name, _ = _name_arg(text, m.end())
            if name is not None:
                names.add(name)
    return frozenset(names)


def _special(name: str) -> bool:
    """A name that may never be (re)defined or aliased: refused, a name taker, or a TeX
    primitive the deny-list knows."""
    return name in NAME_BUILDERS or name in NAME_TAKERS or command_reason(name) is not None


def judge(text: str, context: Context = "math", defined: frozenset[str] = frozenset(), *,
          limit: int | None = None) -> list[Hit]:
    """Every place of TeX ``text`` that is not allowed in ``context``, in order.

    ``defined`` are the notebook's own macros (``defined_names``); ``limit`` stops after that
    many hits. Linear in the text: each token is read once.
    """
    if "\\" not in text and "^^" not in text:
        return []
    macros = allowed_macros(context) | defined
    environments = allowed_environments(context)
    hits: list[Hit] = []

    def hit(start: int, end: int, verdict: Verdict, reason: str) -> None:
        hits.append(Hit(start, _snippet(text, start, end), verdict, reason))

    # the deny-list is the floor: whatever it refuses (file primitives, `^^`, image paths
    # outside the paper, `graphics=` options, \begin{input}…) is refused in every context
    floor = find_dangerous(text, keys=True, limit=limit)
    for d in floor:
        hits.append(Hit(d.offset, d.snippet, REFUSED, d.reason))
    judged = {d.offset for d in floor}
    pos = 0
    while limit is None or len(hits) < limit:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        start, pos = m.start(), m.end()
        if start in judged:
            continue  # refused by the deny-list already
        if m.group(3) is not None:  # a comment: TeX ignores the rest of the line
            nl = text.find("\n", pos)
            pos = len(text) if nl < 0 else nl + 1
            continue
        if m.group(4) is not None:
            break  # a lone backslash at the very end
        if m.group(2) is not None:
            continue  # a control symbol (\, \{ \% \' …): LaTeX defines none that reads or runs

        name = m.group(1)
        reason = NAME_BUILDERS.get(name) or command_reason(name)
        if reason is not None:
            hit(start, pos, REFUSED, reason)
            continue
        if name in ("begin", "end"):
            group = _group(text, pos)
            env = group[0].strip() if group else ""
            if group is None or not _PLAIN_NAME.fullmatch(env):
                hit(start, group[1] if group else pos, REFUSED,
                    "builds an environment name from macros (which can call any command); "
                    "write \\begin{name}")
                continue
            assert group is not None
            pos = group[1]
            base = env.rstrip("*")
            if env in DANGEROUS_ENVIRONMENTS or command_reason(base) or base in NAME_BUILDERS:
                hit(start, pos, REFUSED, f"the environment {env} runs a command that writes, "
                                         "reads or builds names")
            elif env not in environments:
                hit(start, pos, REVIEW, f"the environment {env} is not among those "
                                        f"{'a table' if context == 'table' else 'MathJax'} "
                                        "uses")
            continue
        if name in DEFINITIONS:
            pos = _definition(text, start, pos, name, macros, hit)
            continue
        if name in ("href", "url"):
            group = _group(text, pos)
            if group is not None:
                target = re.sub(r"%[^\n]*\n?[ \t]*", "", group[0])  # TeX drops comments
                if not SAFE_SCHEMES.match(target) and path_reason(target) is not None:
                    hit(start, group[1], REFUSED, path_reason(target) or "")
                pos = group[1]
            continue
        if name not in macros:
            hit(start, pos, REVIEW, f"`\\{name}` is not among the "
                                    f"{'table' if context == 'table' else 'MathJax'} commands "
                                    "mechnb can vouch for")
    hits.sort(key=lambda h: h.offset)
    return hits if limit is None else hits[:limit]


def _definition(text: str, start: int, pos: int, command: str, macros: frozenset[str],
                hit: _HitSink) -> int:
    """Judge a definition's head (its name, parameters, ``\\let`` target) and return where its
    body starts; the body is judged as the tokens that follow."""
    if text.startswith("*", pos) and command not in ("def", "let"):
        pos += 1  # \newcommand*, \DeclareMathOperator*
    name, after = _name_arg(text, pos)
    if name is None:
        hit(start, pos + 1, REFUSED, f"\\{command} of a name that is not a plain control word "
                                     "(letters only) can define any command")
        return pos
    if _special(name):
        hit(start, after, REFUSED, f"\\{command} redefines \\{name}, which mechnb keeps "
                                   "as LaTeX defines it")
        return after
    if command == "let":
        target = re.match(r"(?:[ \t]|=)*\\([A-Za-z]+|.)", text[after:after + 100])
        if target is None:
            hit(start, after, REFUSED, "\\let onto something that is not a command")
            return after
        aliased = target.group(1)
        if aliased in NAME_TAKERS or aliased in NAME_BUILDERS or aliased not in macros:
            hit(start, after + target.end(), REFUSED,
                f"\\let makes \\{name} a copy of \\{aliased}, which is off the allow-list or "
                "takes a name; the copy would escape the gate's checks")
        return after + target.end()
    if command == "def":
        brace = text.find("{", after, after + 200)
        if brace < 0 or text[after:brace].strip():
            hit(start, max(brace, after + 1), REFUSED,
                "\\def with parameters or delimiters; write \\newcommand{\\name}[n]{…}")
        return after if brace < 0 else brace
    return after  # \newcommand / \renewcommand: [n] and [default] are read as plain tokens


# ------------------------------------------------------------------ a notebook, piece by piece
PARSE_LIMIT = 20_000
"""Characters of a markdown cell parsed with markdown-it to find TeX the scanner took for code
or prose; TeX-looking code or prose of a larger cell is judged as math instead (strictly)."""
FILE_LIMIT = 2_000_000
"""Bytes of a template, style or .bib file read for the gate (a larger one is refused unread)."""
BUILTIN_TEMPLATES = ("article", "ctexart")
RAW_LATEX_FORMATS = frozenset({"text/latex", "latex", "tex"})
"""Raw cells whose ``format`` (or ``raw_mimetype``) is one of these go to TeX as written; the
export drops every other raw cell (HTML, reST, a YAML header), so the gate ignores them."""
_EXPORTED_TEX_TOKENS = frozenset({"math_inline", "math_inline_double", "math_block",
                                  "math_block_label", "amsmath", "latex_ref"})
"""markdown-it tokens whose content the export writes into the .tex as TeX."""
_MATH_OUTPUT = re.compile(r"^\s*(?:\$\$?|\\\[|\\\(|\\begin\{(?:equation|align|gather|multline)"
                          r"\*?\})")
_TABLE_OUTPUT = re.compile(r"\\begin\{(?:tabular|table)\*?\}")
_BIB_PREAMBLE = re.compile(r"(?im)^\s*@\s*(preamble|string)\s*[{(]")


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of what a notebook sends to TeX."""

    cell: int | None
    """0-based cell index; ``None`` for the notebook metadata and files."""
    offset: int | None
    """Offset of ``text`` in the cell source (``None`` for metadata, outputs and files)."""
    text: str
    where: str
    """Empty for cell source, else which part (``output 2 (text/latex)``, ``the template file
    x.tex``)."""
    kind: str
    """``math``, ``table``, ``raw``, ``latex-output``, ``template``, ``style`` or ``bib``: how
    it is judged (the last five need review as a whole)."""


def _read_small(path: Path) -> str | None:
    try:
        if path.stat().st_size > FILE_LIMIT:
            return None
        return path.read_text("utf-8", errors="replace")
    except (OSError, ValueError):
        return None


def _tex_outside_math(source: str, spans: list[tuple[int, int]]
                      ) -> Iterator[tuple[int | None, str]]:
    """TeX markdown-it finds where the scanner saw code or prose (``(offset, text)``): the
    scanner only approximates CommonMark, and what the export writes is what markdown-it reads.
    """
    from .markdown import parse

    starts = [start for start, _ in spans]
    cursor = 0
    for token in _walk(parse(source)):
        if token.type not in _EXPORTED_TEX_TOKENS or ("\\" not in token.content and (
                "^^" not in token.content)):
            continue
        at = source.find(token.content, cursor)
        if at >= 0:
            cursor = at + len(token.content)
            k = bisect.bisect_right(starts, at) - 1
            if k >= 0 and spans[k][1] >= cursor:
                continue  # inside a math span the scanner found: judged already
        yield (at if at >= 0 else None), token.content


def _walk(tokens: list[Token]) -> Iterator[Token]:
    stack = list(reversed(tokens))
    while stack:
        token = stack.pop()
        if token.children:
            stack.extend(reversed(token.children))
        yield token


def _markdown_pieces(cell: int | None, source: str, where: str) -> Iterator[Piece]:
    """The math of a piece of markdown (a cell, a caption, a title, a markdown output)."""
    scan = scan_markdown(source)
    spans = [(s.start, s.end) for s in scan.spans if s.kind == "math"]
    for start, end in spans:
        yield Piece(cell, start if not where else None, source[start:end], where, "math")
    # code or prose that would not pass as TeX (most never does: a \\cite is allowed): only
    # then is the cell parsed as the export parses it, to see whether any of it is TeX there
    suspect = [s for s in scan.spans if s.kind != "math"
               and ("\\" in source[s.start:s.end] or "^^" in source[s.start:s.end])
               and judge(source[s.start:s.end], "math", limit=1)]
    if not suspect:
        return
    if len(source) > PARSE_LIMIT:
        for s in suspect:
            yield Piece(cell, s.start if not where else None, source[s.start:s.end], where,
                        "math")
        return
    for at, text in _tex_outside_math(source, spans):
        yield Piece(cell, at if not where else None, text, where, "math")


def is_latex_raw(metadata: Mapping[str, Any]) -> bool:
    """Whether a raw cell with this metadata goes to TeX (``RAW_LATEX_FORMATS``)."""
    fmt = metadata.get("format") or metadata.get("raw_mimetype")
    return isinstance(fmt, str) and fmt.lower() in RAW_LATEX_FORMATS


def _output_text(value: object) -> str:
    return "".join(map(str, value)) if isinstance(value, list) else str(value)


def style_files(style: object, folder: Path | None) -> list[Path]:
    """The venue style, class and .bst files of ``metadata.mechnb.style`` that lie next to the
    notebook (files from the TeX installation are not the notebook's to vouch for)."""
    if folder is None or not style:
        return []
    names: list[str] = []
    if isinstance(style, str):
        text = style.strip()
        if text.startswith("{"):
            try:
                style = json.loads(text)
            except ValueError:
                return []
        else:
            name = text.split("[", 1)[0].strip()
            names.append(name if name.endswith((".cls", ".sty")) else name + ".sty")
    if isinstance(style, dict):
        for key, ext in (("class", ".cls"), ("package", ".sty"), ("bibliography_style", ".bst")):
            value = style.get(key)
            if isinstance(value, str) and value:
                names.append(value if value.endswith(ext) else value + ext)
    found = []
    for name in names:
        if "/" in name or "\\" in name or name.startswith("."):
            continue
        path = folder / name
        if path.is_file():
            found.append(path)
    return found


def pieces(paper: Paper, style: object = None) -> Iterator[Piece]:
    """Everything of ``paper`` that reaches the ``.tex``, with how it is judged.

    Markdown math (cells, captions, titles, ``text/markdown`` outputs), TeX that markdown-it
    finds outside the scanner's math, raw cells, ``text/latex`` outputs of exported code cells
    (math, tables, or other), the notebook title, the template, the venue style files next to
    the notebook (``style`` overrides ``metadata.mechnb.style``) and the .bib files it names.
    """
    meta = paper.meta
    if meta.title:
        yield from _markdown_pieces(None, meta.title, "notebook metadata.mechnb.title")
    for cell in paper.cells:
        if cell.role == "note":
            continue  # never exported
        if cell.cell_type == "markdown" and cell.source:
            yield from _markdown_pieces(cell.index, cell.source, "")
        elif cell.cell_type == "raw" and cell.source.strip() and is_latex_raw(cell.metadata):
            yield Piece(cell.index, 0, cell.source, "", "raw")
        for key in ("title", "caption"):
            value = getattr(cell, key)
            if value:
                yield from _markdown_pieces(cell.index, value, f"metadata.mechnb.{key}")
        if cell.cell_type != "code" or cell.role is None:
            continue
        for n, output in enumerate(cell.outputs):
            data = output.get("data")
            if not isinstance(data, dict):
                continue
            if "text/latex" in data:
                text = _output_text(data["text/latex"])
                where = f"output {n + 1} (text/latex)"
                if _MATH_OUTPUT.match(text):
                    yield Piece(cell.index, None, text, where, "math")
                elif _TABLE_OUTPUT.search(text):
                    yield Piece(cell.index, None, text, where, "table")
                elif text.strip():
                    yield Piece(cell.index, None, text, where, "latex-output")
            elif "text/markdown" in data:
                yield from _markdown_pieces(cell.index, _output_text(data["text/markdown"]),
                                            f"output {n + 1} (text/markdown)")
    folder = paper.path.parent if paper.path else None
    if meta.template and meta.template not in BUILTIN_TEMPLATES:
        path, _ = resolve_in_folder(folder, meta.template)
        content = _read_small(path) if path is not None else None
        if content:
            yield Piece(None, None, content, f"the template file {meta.template}", "template")
    for path in style_files(style if style is not None else meta.style, folder):
        content = _read_small(path)
        if content:
            yield Piece(None, None, content, f"the style file {path.name}", "style")
    for name in (meta.bibliography or "").split(","):
        name = name.strip()
        if not name:
            continue
        if not name.endswith(".bib"):
            name += ".bib"
        path, _ = resolve_in_folder(folder, name)
        content = _read_small(path) if path is not None else None
        if content:
            yield Piece(None, None, content, f"the bibliography file {name}", "bib")


# ------------------------------------------------------------------------------- the verdict
@dataclass(frozen=True, slots=True)
class Refusal:
    """TeX that never compiles without ``--trust``."""

    cell: int | None
    offset: int | None
    where: str
    snippet: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """Content off the allow-list that compiles once approved (``mechnb trust``)."""

    cell: int | None
    where: str
    kind: str
    reason: str
    """What it is and why it needs review, for a person."""
    digest: str
    """SHA-256 of the kind and the content: what an approval records."""
    offset: int | None = None


@dataclass
class Assessment:
    """The gate's verdict on a notebook."""

    refused: list[Refusal] = field(default_factory=list)
    review: list[ReviewItem] = field(default_factory=list)


_WHOLE_REVIEW = {"raw": "a raw LaTeX cell goes to TeX unchecked",
                 "latex-output": "a text/latex output that is neither math nor a table goes to "
                                 "TeX unchecked",
                 "template": "a template next to the notebook is compiled as the paper's "
                             "preamble",
                 "style": "a venue style or class file next to the notebook is compiled with "
                          "the paper"}


def digest(kind: str, content: str) -> str:
    """What approving ``content`` of ``kind`` records."""
    return hashlib.sha256(f"mechnb-trust\0{kind}\0{content}".encode()).hexdigest()


def assess(paper: Paper, style: object = None, *, limit: int = 200) -> Assessment:
    """Judge everything ``paper`` sends to TeX (at most ``limit`` refusals are listed)."""
    found = list(pieces(paper, style))
    defined = defined_names(p.text for p in found if p.kind == "math")
    out = Assessment()
    off_list: dict[tuple[int | None, str], list[Hit]] = {}
    for piece in found:
        if piece.kind in ("math", "table"):
            hits = judge(piece.text, "table" if piece.kind == "table" else "math", defined,
                         limit=limit)
        else:
            hits = [Hit(h.offset, h.snippet, REFUSED, h.reason) for h in find_dangerous(
                piece.text, keys=True, limit=limit, template=piece.kind in ("template", "style"))]
        for h in hits:
            at = None if piece.offset is None else piece.offset + h.offset
            if h.verdict == REFUSED:
                if len(out.refused) < limit:
                    out.refused.append(Refusal(piece.cell, at, piece.where, h.snippet, h.reason))
            else:
                off_list.setdefault((piece.cell, piece.where), []).append(
                    Hit(at if at is not None else -1, h.snippet, h.verdict, h.reason))
        if piece.kind in _WHOLE_REVIEW:
            out.review.append(ReviewItem(piece.cell, piece.where, piece.kind,
                                         _WHOLE_REVIEW[piece.kind],
                                         digest(piece.kind, piece.text), piece.offset))
        elif piece.kind == "bib" and _bib_needs_review(piece.text):
            out.review.append(ReviewItem(None, piece.where, "bib", "the .bib has @preamble "
                                         "or @string TeX beyond plain text, which BibTeX copies "
                                         "into the paper", digest("bib", piece.text)))
    for (cell, where), hits in off_list.items():
        names = list(dict.fromkeys(h.snippet for h in hits))
        shown = ", ".join(f"`{n}`" for n in names[:3]) + (
            f" and {len(names) - 3} more" if len(names) > 3 else "")
        content = (paper.cells[cell].source if cell is not None and not where
                   else "\0".join(h.snippet for h in hits) + "\0" + where)
        first = hits[0].offset
        out.review.append(ReviewItem(
            cell, where, "off-list", f"{shown} {'is' if len(names) == 1 else 'are'} not among "
            "the commands of MathJax 3 (as JupyterLab shows them), the table commands or the "
            "notebook's own macros", digest("off-list", content), first if first >= 0 else None))
    out.review.sort(key=lambda r: (r.cell is not None, r.cell or 0, r.offset or 0))
    return out


def _bib_needs_review(text: str) -> bool:
    """A ``@preamble`` (TeX BibTeX copies into the .bbl), or a ``@string`` holding TeX."""
    for m in _BIB_PREAMBLE.finditer(text):
        if m.group(1).lower() == "preamble":
            return True
        body = text[m.end():m.end() + 2000].split("}", 1)[0].split(")", 1)[0]
        if "\\" in body or "^^" in body:
            return True
    return False
