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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from ..lazyre import lazy
from .scan import (
    DANGEROUS_ENVIRONMENTS,
    PATH_COMMANDS,
    changes_comment_character,
    command_reason,
    find_dangerous,
    find_leaks,
    keeps_comment_character,
    path_reason,
)

if TYPE_CHECKING:

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
DOCUMENT_MACROS = frozenset({
    # what the exporter itself writes around and between the notebook's text (latex.py,
    # markdown.py, outputs.py, escape.py): sectioning, figures, lists, notes, spacing
    "section", "subsection", "subsubsection", "paragraph", "subparagraph", "phantomsection",
    "caption", "includegraphics", "appendix", "bibliographystyle", "bibliography", "todo",
    "item", "noindent", "par", "vspace", "hspace", "abovecaptionskip", "thetcbcounter",
    "abstractname", "ensuremath", "hookrightarrow", "smallskip", "medskip", "bigskip",
    "nobreakspace", "textquotedblleft", "textquotedblright", "textquoteleft",
    "textquoteright", "textasciicircum", "textless", "textgreater", "textunderscore",
    "textdollar", "textbraceleft", "textbraceright", "allowbreak", "mbox", "hbox", "strut",
    "textcolor", "color", "fbox", "sout", "st", "xout", "lstinline", "footnotemark",
    "footnotetext", "and", "mechstrike", "setcounter", "enumi",
})
"""Commands the exporter writes into the document body itself (beside the allow-list of
markdown math and tables): a notebook that writes them in its own math is not refused for
them, since none reads, writes or names a file by itself — ``\\includegraphics``,
``\\input`` and ``\\bibliography`` are judged by the file they name (``judge_document``)."""
DOCUMENT_ENVIRONMENTS = frozenset({
    "abstract", "proof", "figure", "figure*", "tcolorbox", "itemize", "enumerate",
    "description", "quote", "quotation", "center", "flushleft", "flushright", "Verbatim",
    "minipage", "thebibliography", "enumerate*", "itemize*", "description*",
})
"""Environments the exporter writes (the role registry's theorem and box environments are
added from the registry)."""
FILE_COMMANDS = frozenset({"input", "include", "includegraphics", "bibliography",
                           "bibliographystyle"})
"""Commands that make TeX read a file: in the judged document each must name one of the
judged files (``files``), nothing else."""
SAFE_SCHEMES = lazy(r"(?i)^\s*(?:https?|ftp|mailto|doi):")

Context = Literal["math", "text", "table", "document"]
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


@cache
def allowed_macros(context: Context) -> frozenset[str]:
    """The control sequences allowed in ``context`` before the notebook defines any."""
    if context == "table":
        return TABLE_MACROS | mathjax().macros
    if context == "document":
        return TABLE_MACROS | mathjax().macros | DOCUMENT_MACROS
    return mathjax().macros | TEXT_MACROS


@cache
def allowed_environments(context: Context) -> frozenset[str]:
    """The environments allowed in ``context``."""
    if context == "table":
        return TABLE_ENVIRONMENTS | mathjax().environments
    if context == "document":
        from ..roles import registry

        roles = {str(r.latex["env"]) for r in registry().values()
                 if r.latex_kind == "environment"}
        boxes = {"mech" + re.sub(r"[^a-zA-Z]", "", r.name) for r in registry().values()
                 if r.latex_kind == "box"}
        return (TABLE_ENVIRONMENTS | mathjax().environments | DOCUMENT_ENVIRONMENTS
                | frozenset(roles) | frozenset(boxes))
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


_TOKEN = lazy(r"\\(?:([A-Za-z]+)|(.))|(%)|(\\)$", re.S)
_SPACE = lazy(r"(?:[ \t\r\n]|%[^\n\r]*(?:\r\n|\r|\n|$))*")
_PLAIN_NAME = lazy(r"[A-Za-z]+\*?")
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
            k = _line_end(text, k, stop)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[pos + 1:k], k + 1
        k += 1
    return None


def _line_end(text: str, pos: int, stop: int | None = None) -> int:
    """Where the line holding ``pos`` ends, past its line break: TeX ends a line (and so a
    comment) at a line feed, a carriage return, or both."""
    stop = len(text) if stop is None else stop
    m = _LINE_BREAK.search(text, pos, stop)
    return stop if m is None else m.end()


_LINE_BREAK = lazy(r"\r\n|\r|\n")


def _verbatim_group(text: str, pos: int) -> int | None:
    """End of a ``{…}`` group at ``pos`` as the url package reads ``\\url``'s argument:
    braces balanced, ``%`` and backslashes taken literally (``None``: no group)."""
    pos = _skip(text, pos)
    if pos >= len(text) or text[pos] != "{":
        return None
    depth = 0
    for k in range(pos, min(len(text), pos + _GROUP_LIMIT)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k + 1
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


_VERBATIM = lazy(r"\\begin\{Verbatim\}(?:\[breakanywhere\])?(?=\r?\n)")
"""``Verbatim`` as the exporter opens it: bare, or with the one option that changes where a
line wraps, not how its body is read."""
_VERBATIM_END = lazy(r"\\end\s*\{Verbatim\}")
_GRAPHICS_EXTENSIONS = ("", ".pdf", ".png", ".jpg", ".jpeg", ".PDF", ".PNG", ".JPG", ".JPEG")


@cache
def escape_vocabulary() -> frozenset[str]:
    """The symbol commands mechnb's text escaping writes for characters (pylatexenc's table:
    ``\\cyrchar``, ``\\textordmasculine``…), read once when a document first needs it."""
    from pylatexenc.latexencode import _uni2latexmap

    names: set[str] = set()
    for value in _uni2latexmap.uni2latex.values():
        names.update(re.findall(r"\\([A-Za-z]+)", value))
    return frozenset(n for n in names if n not in NAME_BUILDERS and command_reason(n) is None)


def _file_named(name: str, files: Mapping[str, bytes], extensions: Iterable[str]) -> str | None:
    """The judged file TeX takes for ``name`` (trying ``extensions`` as TeX does), or None."""
    name = name.strip()
    for ext in extensions:
        if name + ext in files:
            return name + ext
    return None


def _file_command(text: str, pos: int, name: str, files: Mapping[str, bytes]
                  ) -> tuple[int, str | None]:
    """``(end, why)`` for a command that reads a file in the judged document: ``why`` is None
    when every file it names is one of the judged ``files``."""
    m = _FILE_ARG.match(text, pos)
    if m is None:
        return pos, "reads a file whose name is not written in place"
    arg = m.group(1)
    if name == "bibliographystyle":  # a .bst of the judged files, or of the TeX installation
        missing = [] if _PLAIN_FILE.fullmatch(arg.strip()) else [arg]
    elif name == "bibliography":
        names = [n.strip() for n in arg.split(",")]
        missing = [n for n in names if _file_named(n, files, (".bib",)) is None]
    elif name == "includegraphics":
        missing = [arg] if _file_named(arg, files, _GRAPHICS_EXTENSIONS) is None else []
    else:
        found = _file_named(arg, files, ("", ".tex"))
        missing = [arg] if found is None or not _is_tex_file(found) else []
    if missing and name == "includegraphics" and missing[0].strip().lower().endswith(".eps"):
        return m.end(), (f"includes the EPS figure {missing[0][:60]!r}, which pdfLaTeX reads only "
                         "through a conversion that needs shell escape (never enabled); convert "
                         "it once next to the paper (epstopdf, Ghostscript) and include the PDF")
    if missing:
        return m.end(), (f"makes TeX read {missing[0][:60]!r}, which is not one of the paper's "
                         "judged files")
    return m.end(), None


_FILE_ARG = lazy(r"[ \t]*\*?[ \t]*(?:\[(?:[^\[\]{}]|\{[^\[\]{}\\]{0,100}\}){0,300}\][ \t]*){0,2}"
                 r"\{([^{}\\%^#~]{0,500})\}")
"""A file command's options (plain text) and its file name (plain: no macro, comment, ``^^``
or active character)."""


_PLAIN_FILE = lazy(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,100}")


def _is_tex_file(name: str) -> bool:
    return not name.lower().endswith((".png", ".jpg", ".jpeg", ".pdf", ".eps", ".bib"))


def judge(text: str, context: Context = "math", defined: frozenset[str] = frozenset(), *,
          limit: int | None = None, files: Mapping[str, bytes] | None = None) -> list[Hit]:
    """Every place of TeX ``text`` that is not allowed in ``context``, in order.

    ``defined`` are the notebook's own macros (``defined_names``); ``limit`` stops after that
    many hits. Linear in the text: each token is read once, as TeX reads it: a comment runs to
    a line feed or a carriage return, except inside ``\\url``/``\\href`` targets (which the url
    package reads literally); the body of a ``Verbatim`` environment opened bare or with
    ``[breakanywhere]`` (as the exporter writes them) is text.
    In the ``document`` context (a whole judged ``.tex``), ``\\input``, ``\\includegraphics``
    and ``\\bibliography`` are allowed exactly when they name one of ``files``.
    """
    if "\\" not in text and "^^" not in text:
        return []
    macros = allowed_macros(context) | defined
    environments = allowed_environments(context)
    hits: list[Hit] = []
    document = context == "document"
    files = files or {}

    def hit(start: int, end: int, verdict: Verdict, reason: str) -> None:
        hits.append(Hit(start, _snippet(text, start, end), verdict, reason))

    # the deny-list is the floor: whatever it refuses (file primitives, `^^`, image paths
    # outside the paper, `graphics=` options, \begin{input}…) is refused in every context
    floor: list[Hit] = []
    for d in find_dangerous(text, keys=True, limit=limit):
        word = re.match(r"\\+([A-Za-z]+)", d.snippet)
        if document and word and word.group(1) in FILE_COMMANDS:
            continue  # judged below by the file it names
        floor.append(Hit(d.offset, d.snippet, REFUSED, d.reason))
    if document and floor:
        floor = _keys_in_options(text, floor)
    judged = {h.offset for h in floor}
    verbatim: list[tuple[int, int]] = []
    literal_until = -1  # inside a \url/\href target, read literally by the url package
    pos = 0
    while limit is None or len(hits) < limit:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        start, pos = m.start(), m.end()
        if start in judged:
            continue  # refused by the deny-list already
        if m.group(3) is not None:  # a comment: TeX ignores the rest of the line
            if start >= literal_until:
                pos = _line_end(text, pos)
            continue
        if m.group(4) is not None:
            break  # a lone backslash at the very end
        if m.group(2) is not None:
            continue  # a control symbol (\, \{ \% \' …): LaTeX defines none that reads or runs

        name = m.group(1)
        if document and name in FILE_COMMANDS:
            pos, why = _file_command(text, pos, name, files)
            if why is not None:
                hit(start, pos, REFUSED, why)
            continue
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
                                        f"{_CONTEXT_NAMES[context]} uses")
            elif name == "begin" and env == "Verbatim" and _VERBATIM.match(text, start):
                # fancyvrb reads its body as text up to the line `\end{Verbatim}`: the first
                # such text is where TeX reads TeX again at the earliest
                stop = _VERBATIM_END.search(text, pos)
                end = len(text) if stop is None else stop.start()
                verbatim.append((pos, end))
                pos = end
            continue
        if name in DEFINITIONS:
            pos = _definition(text, start, pos, name, macros, hit)
            continue
        if name in ("href", "url"):
            group = _group(text, pos)
            literal = _verbatim_group(text, pos)
            if group is None or literal is None:
                hit(start, pos + 1, REFUSED, f"\\{name} whose target is not written in place "
                                             "(a macro could make it any file or action)")
                continue
            inner = text[_skip(text, pos) + 1:literal - 1]
            for target in (inner, _COMMENT_AND_BREAK.sub("", group[0])):
                why = path_reason(target)
                if not SAFE_SCHEMES.match(target) and why is not None:
                    hit(start, max(group[1], literal), REFUSED, why)
                    break
            # the target is read again as tokens (a url read as TeX would run them)
            pos = _skip(text, pos) + 1
            literal_until = max(literal_until, literal)
            continue
        if name not in macros and not (document and name in escape_vocabulary()):
            hit(start, pos, REVIEW, f"`\\{name}` is not among the "
                                    f"{_CONTEXT_COMMANDS[context]} commands mechnb can vouch for")
    if verbatim:  # what fancyvrb prints as text was never TeX
        starts = [a for a, _ in verbatim]
        floor = [h for h in floor if not _inside(h.offset, starts, verbatim)]
    hits += floor
    hits.sort(key=lambda h: h.offset)
    return hits if limit is None else hits[:limit]


def _inside(offset: int, starts: list[int], spans: list[tuple[int, int]]) -> bool:
    k = bisect.bisect_right(starts, offset) - 1
    return k >= 0 and spans[k][0] <= offset < spans[k][1]


_KEY_READERS = lazy(r"\\([A-Za-z]+)\*?\s*$")


def _keys_in_options(text: str, floor: list[Hit]) -> list[Hit]:
    """``floor`` without its ``file=``/``graphics=`` key hits that sit in running text: in a
    whole document a key option is only read inside ``[…]`` or the braces of a command that
    is not one of the text commands (``\\tcbset{…}``, ``\\setkeys{…}``). One linear pass."""
    keys = sorted(h.offset for h in floor if not h.snippet.startswith(("\\", "^^")))
    if not keys:
        return floor
    inert = TEXT_MACROS | DOCUMENT_MACROS
    keep: set[int] = set()
    stack: list[bool] = []  # for each open group: may it read key=value options?
    k = 0
    pos = 0
    n = len(text)
    while k < len(keys) and pos < n:
        ch = text[pos]
        if pos == keys[k]:
            if any(stack):
                keep.add(keys[k])
            k += 1
            continue
        if ch == "\\":
            pos += 2
            continue
        if ch in "[{":
            if ch == "[":
                stack.append(True)
            else:
                m = _KEY_READERS.search(text, max(0, pos - 40), pos)
                stack.append(m is not None and m.group(1) not in inert)
        elif ch in "]}" and stack:
            stack.pop()
        pos += 1
    return [h for h in floor if h.snippet.startswith(("\\", "^^")) or h.offset in keep]


_COMMENT_AND_BREAK = lazy(r"%[^\n\r]*(?:\r\n|\r|\n)?[ \t]*")
"""A TeX comment with its line break and the next line's indentation (TeX drops all three)."""
_CONTEXT_NAMES = {"math": "MathJax", "text": "MathJax", "table": "a table",
                  "document": "MathJax, tables or mechnb's own export"}
_CONTEXT_COMMANDS = {"math": "MathJax", "text": "MathJax", "table": "table",
                     "document": "MathJax, table or mechnb export"}


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
        if (aliased in NAME_TAKERS or aliased in NAME_BUILDERS or aliased in PATH_COMMANDS
                or aliased in FILE_COMMANDS or aliased not in macros):
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


# --------------------------------------------------------------------- the judged document
BUILTIN_TEMPLATES = ("article", "ctexart")
RAW_LATEX_FORMATS = frozenset({"text/latex", "latex", "tex"})
"""Raw cells whose ``format`` (or ``raw_mimetype``) is one of these go to TeX as written; the
export drops every other raw cell (HTML, reST, a YAML header)."""
_BIB_PREAMBLE = lazy(r"(?i)@\s*(preamble|string)\s*[{(]")
"""BibTeX reads an entry wherever an ``@`` starts one: ``%`` is no comment to it."""
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".pdf")
"""Judged files TeX reads as images, never as TeX."""


@dataclass(frozen=True, slots=True)
class Region:
    """A span ``[start, end)`` of the compiled ``.tex`` and where its text came from.

    ``source``: ``own`` (mechnb's data and generated declarations, not judged), ``preamble``
    (the paper's own preamble, ``metadata.mechnb.preamble``: judged as a template, reviewed
    whole), ``template``
    (a built-in template, judged against the deny-list), ``template-file`` (a template next
    to the notebook, judged and reviewed as a whole), ``definitions`` (the notebook's macros
    hoisted to the preamble), ``field`` (a placeholder's value built from the notebook — title,
    authors, abstract, body, appendix, bibliography, the file name — judged token by token)
    and ``block`` (one cell's text inside a field, with its ``cell`` and block ``kind``;
    ``raw`` for a raw LaTeX cell, which is reviewed as a whole; or, with no cell, a metadata
    field printed inside another field, such as the keywords inside the abstract). Blocks only
    say where a hit came from: the field around them is what is judged.
    """

    start: int
    end: int
    source: str
    cell: int | None = None
    kind: str = ""


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
    """SHA-256 of the kind, the content as it stands in the compiled ``.tex`` (or the file)
    and the hashes of the files it makes TeX read: what an approval records."""
    offset: int | None = None
    content: str = ""
    """The judged text itself (shown by ``mechnb trust --show``)."""


@dataclass
class Assessment:
    """The gate's verdict on a judged document."""

    refused: list[Refusal] = field(default_factory=list)
    review: list[ReviewItem] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    """Every file TeX may read besides the ``.tex`` (relative path → SHA-256)."""
    tex_digest: str = ""
    """SHA-256 of the judged ``.tex``."""


_WHOLE_REVIEW = {"raw": "a raw LaTeX cell goes to TeX unchecked",
                 "template": "a template next to the notebook is compiled as the paper's "
                             "preamble",
                 "style": "a venue style, class or BibTeX style file next to the notebook is "
                          "compiled with the paper",
                 "tex-file": "a TeX file the paper reads (\\input) is compiled with it",
                 "preamble": "the paper's preamble (Paper Settings) is compiled as TeX: "
                             "packages and definitions for the whole paper",
                 "file": "a file the paper gives TeX is compiled with it"}
PREAMBLE_LOADERS = frozenset({"usepackage", "RequirePackage", "usetikzlibrary", "usepgflibrary",
                              "usepgfplotslibrary", "tcbuselibrary"})
"""What the paper's preamble may do that a cell may not: load packages and libraries (from TeX
Live or the build folder; never by a path, never with a ``file=`` option)."""
PREAMBLE_WHERE = "notebook metadata.mechnb.preamble"
"""Where the paper's own preamble (Paper Settings) is named in findings and review items."""
_FIELD_WHERE = {"title": "notebook metadata.mechnb.title",
                "authors": "notebook metadata.mechnb.authors",
                "generated_by": "the notebook's file name",
                "bibliography": "notebook metadata.mechnb.bibliography",
                "keywords": "notebook metadata.mechnb.keywords",
                "title_en/abstract_en": "notebook metadata.mechnb.title_en / abstract_en",
                "macros": "the notebook's macro definitions"}


def digest(kind: str, content: str) -> str:
    """What approving ``content`` of ``kind`` records."""
    return hashlib.sha256(f"mechnb-trust\0{kind}\0{content}".encode()).hexdigest()


def _file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_kind(name: str) -> str:
    """How a judged file is read by TeX: ``image``, ``bib``, ``style`` or ``tex-file``."""
    lower = name.lower()
    if lower.endswith(IMAGE_SUFFIXES):
        return "image"
    if lower.endswith(".bib"):
        return "bib"
    if lower.endswith((".sty", ".cls", ".bst", ".clo", ".cfg", ".def")):
        return "style"
    return "tex-file"


_NAMED_FILE = lazy(r"\\(?:input|include|includegraphics|bibliography)(?![A-Za-z])"
                         r"[ \t]*\*?(?:\[[^\]]{0,500}\])?\{([^{}]{1,500})\}")


def _files_read(text: str, files: Mapping[str, bytes]) -> list[str]:
    """The judged files ``text`` names (so an approval of it covers their content too)."""
    found: list[str] = []
    for m in _NAMED_FILE.finditer(text):
        for name in m.group(1).split(","):
            hit = _file_named(name, files, (*_GRAPHICS_EXTENSIONS, ".tex", ".bib"))
            if hit is not None and hit not in found:
                found.append(hit)
    return found


def _with_files(text: str, files: Mapping[str, bytes]) -> str:
    return text + "".join(f"\0{name}\0{_file_digest(files[name])}"
                          for name in sorted(_files_read(text, files)))


_Where = Callable[[int | None, str], tuple[str, int | None]]


def judge_document(tex: str, regions: Iterable[Region], files: Mapping[str, bytes], *,
                   where: _Where | None = None, limit: int = 200) -> Assessment:
    """The gate's verdict on a compiled document: ``tex`` exactly as TeX gets it, ``regions``
    saying where its parts came from, and ``files``, every other file TeX may read (relative
    path → bytes, exactly what goes into the build folder).

    Every character of ``tex`` outside mechnb's ``own`` regions is judged as TeX reads it;
    every file is judged by how TeX reads it. ``where(cell, snippet)`` names the part of a
    cell a hit came from and its offset in the cell source (for messages).
    """
    regions = list(regions)
    out = Assessment(tex_digest=hashlib.sha256(tex.encode("utf-8")).hexdigest(),
                     files={name: _file_digest(data) for name, data in sorted(files.items())})
    judged = [r for r in regions if r.source != "block"]
    covered = sorted((r.start, r.end) for r in judged)
    # whatever no region accounts for is judged as document text too (nothing goes unjudged)
    cursor = 0
    for start, end in covered:
        if start > cursor:
            judged.append(Region(cursor, start, "field", None, "unaccounted"))
        cursor = max(cursor, end)
    if cursor < len(tex):
        judged.append(Region(cursor, len(tex), "field", None, "unaccounted"))
    blocks = sorted((r for r in regions if r.source == "block"), key=lambda r: r.start)
    starts = [b.start for b in blocks]
    # a macro of the paper's own template file is the paper's own too: its definition is
    # judged where it is written (the file, reviewed and approved as a whole by its hash), so
    # a cell that uses it (`$\R$` of an imported paper) is not listed for review once more
    defined = defined_names(tex[r.start:r.end] for r in judged
                            if r.source in ("field", "definitions", "preamble", "template-file"))
    off_list: dict[tuple[int | None, str], list[Hit]] = {}
    texts: dict[tuple[int | None, str], list[str]] = {}
    template_parts: dict[str, list[str]] = {}
    preamble: list[str] = []

    def block_at(offset: int) -> Region | None:
        k = bisect.bisect_right(starts, offset) - 1
        return blocks[k] if k >= 0 and blocks[k].end > offset else None

    def place(region: Region, offset: int, snippet: str
              ) -> tuple[int | None, str, int | None, Region | None]:
        block = block_at(offset) if region.source == "field" else None
        if block is not None and block.cell is not None:
            part, at = where(block.cell, snippet) if where else ("", None)
            return block.cell, part, at, block
        if block is not None:  # a metadata field printed inside the abstract
            return None, _FIELD_WHERE.get(block.kind, block.kind), None, block
        if region.source in ("template", "template-file"):
            return None, f"the template {region.kind}", None, None
        if region.source == "preamble":
            return None, PREAMBLE_WHERE, None, None
        return None, _FIELD_WHERE.get(region.kind, f"the document ({region.kind})"), None, None

    comments = _comments_stay(tex, judged, files)
    for region in sorted(judged, key=lambda r: r.start):
        text = tex[region.start:region.end]
        if region.source == "own":
            continue
        if region.source == "preamble":
            # the paper's own preamble: reviewed whole, so only refusals count; it may load
            # packages and libraries (\usepackage{tikz}), nothing else a cell may not do
            hits = [h for h in judge(text, "document", defined, limit=limit, files=files)
                    if h.verdict == REFUSED and _loader(h.snippet) not in PREAMBLE_LOADERS]
            hits += _odd_package_names(text)
        elif region.source == "template-file":  # approved as a whole, pinned by its hash
            hits = [Hit(d.offset, d.snippet, REFUSED, d.reason)
                    for d in find_leaks(text, at_letter=None, comments=comments,
                                        limit=limit)]
        elif region.source == "template":
            hits = [Hit(d.offset, d.snippet, REFUSED, d.reason)
                    for d in find_dangerous(text, keys=True, limit=limit, template=True)]
        else:
            hits = judge(text, "math" if region.source == "definitions" else "document",
                         defined, limit=limit, files=files)
        for h in hits:
            cell, part, at, block = place(region, region.start + h.offset, h.snippet)
            if h.verdict == REFUSED:
                if len(out.refused) < limit:
                    out.refused.append(Refusal(cell, at, part, h.snippet, h.reason))
            elif block is None or block.kind != "raw":  # a raw cell is reviewed whole
                key = (cell, part)
                off_list.setdefault(key, []).append(Hit(at if at is not None else -1,
                                                        h.snippet, h.verdict, h.reason))
                if key not in texts:
                    texts[key] = ([tex[b.start:b.end] for b in blocks if b.cell == cell]
                                  if cell is not None else [text])
        if region.source == "template-file":
            template_parts.setdefault(region.kind, []).append(text)
        if region.source == "preamble" and text.strip():
            preamble.append(text)
    for name, parts in template_parts.items():  # the template's own text, reviewed as one
        text = "\0".join(parts)
        out.review.append(ReviewItem(None, f"the template {name}", "template",
                                     _WHOLE_REVIEW["template"],
                                     digest("template", _with_files(text, files)),
                                     content="".join(parts)))
    if preamble:  # the paper's own preamble, reviewed whole like a template
        text = "".join(preamble)
        out.review.append(ReviewItem(None, PREAMBLE_WHERE, "preamble",
                                     _WHOLE_REVIEW["preamble"],
                                     digest("preamble", _with_files(text, files)),
                                     content=text))
    for block in blocks:
        if block.kind == "raw" and block.cell is not None:
            text = tex[block.start:block.end]
            if text.strip():
                out.review.append(ReviewItem(block.cell, "", "raw", _WHOLE_REVIEW["raw"],
                                             digest("raw", _with_files(text, files)), 0,
                                             content=text))
    for (cell, part), hits in off_list.items():
        names = list(dict.fromkeys(h.snippet for h in hits))
        shown = ", ".join(f"`{n}`" for n in names[:3]) + (
            f" and {len(names) - 3} more" if len(names) > 3 else "")
        content = "\n".join(texts[(cell, part)])
        first = hits[0].offset
        out.review.append(ReviewItem(
            cell, part, "off-list", f"{shown} {'is' if len(names) == 1 else 'are'} not among "
            "the commands of MathJax 3 (as JupyterLab shows them), the table commands or the "
            "notebook's own macros", digest("off-list", _with_files(content, files) + "\0"
                                            + part), first if first >= 0 else None,
            content=content))
    for name, data in sorted(files.items()):
        _judge_file(name, data, out, limit, comments)
    out.review.sort(key=lambda r: (r.cell is not None, r.cell or 0, r.offset or 0))
    return out


_LOAD_ARG = re.compile(r"\\(usepackage|RequirePackage|usetikzlibrary|usepgflibrary|"
                       r"usepgfplotslibrary|tcbuselibrary)\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_PLAIN_PACKAGE = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")


def _odd_package_names(text: str) -> list[Hit]:
    """Packages and libraries of the paper's preamble named by a path or odd characters."""
    hits = []
    for m in _LOAD_ARG.finditer(text):
        for name in m.group(2).split(","):
            if not _PLAIN_PACKAGE.fullmatch(name.strip()):
                hits.append(Hit(m.start(), m.group(0)[:60], REFUSED,
                                f"loads {name.strip()!r}, which is not a plain package name "
                                "(letters, digits, - _ and dots between them)"))
    return hits


def _loader(snippet: str) -> str | None:
    """The command a refusal's snippet starts with (``\\usepackage[x]{y}`` → ``usepackage``)."""
    m = re.match(r"\\([A-Za-z]+)", snippet)
    return m.group(1) if m else None


def _comments_stay(tex: str, judged: Iterable[Region], files: Mapping[str, bytes]) -> bool:
    """Whether ``%`` starts a comment wherever a whole approved file is read: no template or
    style changes it (they are read at the top level, so a change lasts), and every TeX file
    that changes it undoes the change by its own end (``scan.keeps_comment_character``).
    When not, every whole file is judged with its comments read as TeX (conservative)."""
    for region in judged:
        if region.source == "template-file" and changes_comment_character(
                tex[region.start:region.end]):
            return False
    for name, data in files.items():
        kind = file_kind(name)
        if kind in ("image", "bib"):
            continue
        text = data.decode("utf-8", "replace")
        if changes_comment_character(text) and (kind == "style"
                                                or not keeps_comment_character(text)):
            return False
    return True


def _judge_file(name: str, data: bytes, out: Assessment, limit: int,
                comments: bool = True) -> None:
    """Judge one file of the build folder by how TeX reads it.

    A style, class or ``.bst`` file and a TeX file the paper ``\\input``s are approved as a
    whole, by their hash (any change revokes the approval): TeX's ordinary programming is
    allowed there and what reads or writes files stays refused (``scan.find_leaks``; the
    import places each refusal at the file's line)."""
    kind = file_kind(name)
    if kind == "image":
        return
    text = data.decode("utf-8", "replace")
    where = {"bib": "the bibliography", "style": "the style file"}.get(kind, "the file")
    where += " " + name
    if kind == "bib":
        # BibTeX copies fields into the .bbl TeX reads: judged as TeX text
        hits = judge(text, "text", limit=limit)
        for h in hits:
            if h.verdict == REFUSED and len(out.refused) < limit:
                out.refused.append(Refusal(None, None, where, h.snippet, h.reason))
        if _bib_needs_review(text) or any(h.verdict == REVIEW for h in hits):
            out.review.append(ReviewItem(None, where, "bib", "the .bib has @preamble or "
                                         "@string TeX, or commands off the allow-list, which "
                                         "BibTeX copies into the paper",
                                         digest("bib", text), content=text))
        return
    for d in find_leaks(text, at_letter=True if kind == "style" else None, comments=comments,
                        limit=limit):
        if len(out.refused) < limit:
            out.refused.append(Refusal(None, None, where, d.snippet, d.reason))
    # a venue style is approved once for every notebook that uses it: its content alone
    out.review.append(ReviewItem(None, where, kind, _WHOLE_REVIEW[kind],
                                 digest(kind, text if kind == "style" else name + "\0" + text),
                                 content=text))


def raw_format(metadata: Mapping[str, Any]) -> str:
    """A raw cell's format (``metadata.format``, else nbformat 4.0's ``raw_mimetype``), lower
    case; ``""`` when none is set (JupyterLab's Raw NBConvert Format "-")."""
    fmt = metadata.get("format") or metadata.get("raw_mimetype")
    return fmt.strip().lower() if isinstance(fmt, str) else ""


def is_latex_raw(metadata: Mapping[str, Any]) -> bool:
    """Whether a raw cell with this metadata goes to TeX (``RAW_LATEX_FORMATS``)."""
    return raw_format(metadata) in RAW_LATEX_FORMATS


def assess(paper: Paper, style: object = None, **options: Any) -> Assessment:
    """Judge ``paper`` as it compiles: the exporter renders the complete document in memory
    (for the export ``options``: ``include_code``, ``template``, ``engine``; ``style`` a
    ``Style`` or the metadata form) and the gate judges that text and its files
    (``mechnb.exporter.judged.assess``, the one function every caller uses)."""
    from ..exporter.judged import assess as assess_export

    return assess_export(paper, style=style, **options)


def _bib_needs_review(text: str) -> bool:
    """A ``@preamble`` (TeX BibTeX copies into the .bbl), or a ``@string`` holding TeX."""
    for m in _BIB_PREAMBLE.finditer(text):
        if m.group(1).lower() == "preamble":
            return True
        body = text[m.end():m.end() + 2000].split("}", 1)[0].split(")", 1)[0]
        if "\\" in body or "^^" in body:
            return True
    return False
