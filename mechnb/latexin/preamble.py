"""What a paper declares: theorem-like environments, macros, title, authors, bibliography, style.

Definitions are read with a small brace-matching scanner over the text with comments blanked
(``\\newcommand``, ``\\renewcommand``, ``\\providecommand``, ``\\DeclareMathOperator``,
``\\def``, ``\\let``, ``\\newenvironment``, ``\\newtheorem``, ``\\declaretheorem``), wherever
they are (preamble, a macros file, the body). Theorem-like environments map onto the roles of
the argument model by their printed name or, failing that, their environment name (``thm``,
``lem``, ``defi``, ``assu``…); environments a class provides (``thuthesis``) are known by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..tex.comments import mask_comments

_NAME = re.compile(r"\\([A-Za-z@]+|.)")
_SPACE = re.compile(r"\s*")
_SIGNIFICANT = re.compile(r"\\.|[{}\[\]]", re.S)
GROUP_LIMIT = 10_000
"""Characters of one braced argument the reader takes apart (a longer one is not read)."""


class Groups:
    """Where each ``{…}`` group and ``[…]`` optional argument of one text ends, found in one pass
    over the text (escaped braces and brackets skipped), so that taking apart every definition
    of a paper is linear in its length however many unfinished ``\\newcommand{`` it holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.close: dict[int, int] = {}
        """Offset of a ``{`` → offset of its ``}``."""
        self.bracket: dict[int, int] = {}
        """Offset of a ``[`` → offset of the first ``]`` after it at the same brace depth (absent
        when the group around it closes first, or the text ends)."""
        stack: list[int] = []
        waiting: dict[int, list[int]] = {}  # brace depth → "[" not yet closed at that depth
        for m in _SIGNIFICANT.finditer(text):
            token = m.group()
            if len(token) == 2:
                continue
            at = m.start()
            depth = len(stack)
            if token == "{":
                stack.append(at)
            elif token == "}":
                waiting.pop(depth, None)
                if stack:
                    self.close[stack.pop()] = at
            elif token == "[":
                waiting.setdefault(depth, []).append(at)
            else:
                for opened in waiting.pop(depth, ()):
                    self.bracket[opened] = at

    def group(self, pos: int) -> tuple[str, int] | None:
        """``(content, end)`` of a ``{…}`` group at ``pos`` (after spaces), braces balanced;
        ``None`` when there is none (or it is longer than ``GROUP_LIMIT``)."""
        at = _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]
        close = self.close.get(at)
        if close is None or close - at > GROUP_LIMIT:
            return None
        return self.text[at + 1:close], close + 1

    def optional(self, pos: int) -> tuple[str | None, int]:
        """A ``[…]`` at ``pos`` (after spaces), brackets in braces allowed: ``(content, end)``,
        else ``(None, pos)``."""
        at = _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]
        if at >= len(self.text) or self.text[at] != "[":
            return None, pos
        close = self.bracket.get(at)
        if close is None:
            return None, pos
        return self.text[at + 1:close], close + 1

    def macro_name(self, pos: int) -> tuple[str | None, int]:
        """``\\name`` or ``{\\name}`` at ``pos``."""
        at = _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]
        group = self.group(at)
        if group is not None:
            m = _NAME.fullmatch(group[0].strip())
            return (m.group(1) if m else None), group[1]
        m = _NAME.match(self.text, at)
        return (m.group(1), m.end()) if m else (None, pos)


@dataclass(frozen=True)
class Macro:
    """One macro definition as written."""

    name: str
    """Without the backslash."""
    args: int
    default: str | None
    """Default of an optional first argument (``\\newcommand{\\x}[2][d]{…}``)."""
    body: str
    start: int
    """Offset of the definition in the flattened text."""
    end: int
    command: str
    """``newcommand``, ``def``, ``DeclareMathOperator``…"""

    @property
    def text(self) -> str:
        """The definition as a ``\\newcommand`` line (``\\def`` kept as written)."""
        if self.command == "DeclareMathOperator":
            return "\\DeclareMathOperator{\\" + self.name + "}{" + self.body + "}"
        if self.command == "DeclareMathOperator*":
            return "\\DeclareMathOperator*{\\" + self.name + "}{" + self.body + "}"
        args = f"[{self.args}]" if self.args else ""
        default = f"[{self.default}]" if self.default is not None else ""
        return "\\newcommand{\\" + self.name + "}" + args + default + "{" + self.body + "}"


@dataclass(frozen=True)
class Environment:
    """``\\newenvironment{name}[n]{begin}{end}``."""

    name: str
    args: int
    begin: str
    end: str
    start: int
    stop: int


@dataclass
class Declarations:
    """Everything the paper declares."""

    theorems: dict[str, str] = field(default_factory=dict)
    """Environment name → role (``theorem``, ``lemma``… or ``other``)."""
    theorem_names: dict[str, str] = field(default_factory=dict)
    """Environment name → printed name (``Theorem``)."""
    macros: dict[str, Macro] = field(default_factory=dict)
    environments: dict[str, Environment] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)
    """Where the definitions are (left out of the body's text)."""
    unread: list[tuple[int, str]] = field(default_factory=list)
    """``(offset, command)`` of definitions the reader could not take apart (``\\def`` with
    delimited parameters…): not imported."""
    openers: dict[str, str] = field(default_factory=dict)
    """Macros that open or close an environment (``\\be`` → ``\\begin{equation}``)."""
    labellers: set[str] = field(default_factory=set)
    """Macros that set a label: their body ends in ``\\label`` (the argument that follows is
    the label) or, with one argument, in ``\\label{#1}`` (``\\alglinelabel{alg:step}``)."""
    acronyms: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Acronym key → ``(short, long)`` as written, from the acronym, acro and glossaries
    packages' definitions (``\\acro{key}[short]{long}``, ``\\newacronym{key}{short}{long}``,
    ``\\DeclareAcronym{key}{short=…, long=…}``)."""


ROLE_WORDS: tuple[tuple[str, str], ...] = (
    (r"theorem|^thm|^theo|定理", "theorem"), (r"lemma|^lem|引理", "lemma"),
    (r"proposition|^prop|命题", "proposition"), (r"corollary|^cor|推论", "corollary"),
    (r"conjecture|^conj|hypothes|猜想", "remark"),  # open by definition: nothing to close
    (r"claim|^clm|断言|论断", "claim"),
    (r"definition|^def|^dfn|定义", "definition"),
    (r"assumption|^ass|^asm|^asu|假设|假定", "assumption"),
    (r"remark|^rem|^rmk|注记|^注$", "remark"),
    (r"example|^exm|^exa|^ex$|fact|observation|^obs|note|problem|question|exercise|notation|setting"
     r"|condition|principle|property|axiom|algorithm|例|性质|公理|问题", "other"),
)
"""Printed name or environment name → role (first match wins)."""
NOT_THEOREMS = frozenset({
    "proof", "figure", "figure*", "table", "table*", "equation", "equation*", "align",
    "align*", "itemize", "enumerate", "description", "abstract", "document", "center",
    "minipage", "tabular", "array", "cases", "split", "gather", "gather*", "multline",
    "multline*", "eqnarray", "eqnarray*", "subequations", "flalign", "flalign*", "alignat",
    "alignat*", "verbatim", "lstlisting", "minted", "tikzpicture", "algorithm", "algorithmic",
    "thebibliography", "quote", "quotation", "wrapfigure", "subfigure", "restatable",
    "comment", "appendices", "appendix", "small", "footnotesize", "tcolorbox", "frame",
    "definitionbox", "displayquote"})


def role_for(env: str, printed: str | None = None) -> str | None:
    """The role a theorem-like environment maps to (``None``: not theorem-like by its name).
    The name the paper prints decides when it has one (``\\newtheorem*{theo}{Online Threat
    Model}`` is no theorem, whatever its environment is called); the environment's name only
    when the printed name is a macro or missing."""
    for text in (printed, env):
        if not text:
            continue
        low = re.sub(r"\\[A-Za-z@]+|[{}]", "", text).strip().lower()
        if not low:
            continue
        for pattern, role in ROLE_WORDS:
            if re.search(pattern, low):
                return role
        if text is printed:
            return None
    return None


_DEFINER = re.compile(
    r"\\(newcommand|renewcommand|providecommand|DeclareMathOperator|def|let|newenvironment"
    r"|renewenvironment|newtheorem|declaretheorem|spnewtheorem|newmdtheoremenv"
    r"|DeclareRobustCommand)(\*?)(?![A-Za-z@])")
_ENV_OPEN = re.compile(r"\A\s*\\(begin|end)\s*\{([A-Za-z*]+)\}\s*\Z")


_PARAMS = re.compile(r"(?:#\d)*")
_LET = re.compile(r"\s*\\([A-Za-z@]+)\s*=?\s*\\([A-Za-z@]+|.)")


def read_declarations(text: str, lookup_classes: bool = True) -> Declarations:
    """Every definition in ``text`` (the flattened paper), in time linear in its length."""
    masked = mask_comments(text)
    groups = Groups(masked)
    out = Declarations()
    for m in _DEFINER.finditer(masked):
        command, star = m.group(1), m.group(2)
        pos = m.end()
        try:
            end = _read_one(groups, text, command, star, pos, m.start(), out)
        except (IndexError, ValueError):
            end = None
        if end is not None:
            out.spans.append((m.start(), end))
        elif command in ("def", "newcommand", "renewcommand", "DeclareMathOperator",
                         "newenvironment"):
            out.unread.append((m.start(), command))
    for m in _ACRONYM.finditer(masked):
        _read_acronym(groups, text, m.group(1), m.end(), out)
    for name, macro in out.macros.items():
        opener = _ENV_OPEN.match(macro.body)
        if opener and macro.args == 0:
            out.openers[name] = macro.body.strip()
        if "\\label" in macro.body and name != "label" and macro.args < 2:
            tail = _LABEL_TAIL.search(mask_comments(macro.body))
            if tail is not None and (tail.group(1) is None) == (macro.args == 0):
                out.labellers.add(name)
    return out


_LABEL_TAIL = re.compile(r"\\label\s*(\{\s*#1\s*\})?\s*\Z")


_ACRONYM = re.compile(r"\\(acro|acrodef|newacro|newacronym|DeclareAcronym)(?![A-Za-z@])")
_KEYVAL = re.compile(r"(?:^|,)\s*(short|long)\s*=\s*(\{[^{}]*\}|[^,]*)")


def _read_acronym(groups: Groups, text: str, command: str, pos: int, out: Declarations) -> None:
    """One acronym definition (the acronym, acro or glossaries package) into ``out.acronyms``."""
    def content(group: tuple[str, int]) -> str:
        at = group[1] - 1 - len(group[0])
        return text[at:group[1] - 1].strip()

    if command == "newacronym":
        _opts, pos = groups.optional(pos)
    key = groups.group(pos)
    if key is None:
        return
    pos = key[1]
    if command == "DeclareAcronym":
        options = groups.group(pos)
        if options is None:
            return
        found = {m.group(1): m.group(2).strip().strip("{}").strip()
                 for m in _KEYVAL.finditer(content(options))}
        if "short" in found:
            out.acronyms[key[0].strip()] = (found["short"], found.get("long", found["short"]))
        return
    if command == "newacronym":
        short = groups.group(pos)
        if short is None:
            return
        pos, short_text = short[1], content(short)
    else:
        optional, pos = groups.optional(pos)
        short_text = text[pos - 1 - len(optional):pos - 1].strip() if optional is not None \
            else key[0].strip()
    long = groups.group(pos)
    if long is not None:
        out.acronyms[key[0].strip()] = (short_text, content(long))


def _read_one(groups: Groups, text: str, command: str, star: str, pos: int, start: int,
              out: Declarations) -> int | None:
    masked = groups.text
    _group, _optional, _macro_name = groups.group, groups.optional, groups.macro_name
    if command in ("newcommand", "renewcommand", "providecommand", "DeclareRobustCommand"):
        name, pos = _macro_name(pos)
        if name is None:
            return None
        nargs, pos = _optional(pos)
        default, pos = _optional(pos) if nargs is not None else (None, pos)
        body = _group(pos)
        if body is None:
            return None
        try:
            n = int(nargs.strip()) if nargs else 0
        except ValueError:
            n = 0
        if command != "providecommand" or name not in out.macros:
            out.macros[name] = Macro(name, n, default, text[body[1] - len(body[0]) - 1:body[1] - 1],
                                     start, body[1], command)
        return body[1]
    if command == "DeclareMathOperator":
        name, pos = _macro_name(pos)
        body = _group(pos)
        if name is None or body is None:
            return None
        out.macros[name] = Macro(name, 0, None, body[0], start, body[1],
                                 "DeclareMathOperator" + star)
        return body[1]
    if command == "def":
        m = _NAME.match(masked, _SPACE.match(masked, pos).end())  # type: ignore[union-attr]
        if m is None:
            return None
        k = m.end()
        params = _PARAMS.match(masked, k)
        n = len(params.group(0)) // 2 if params else 0
        k += len(params.group(0)) if params else 0
        body = _group(k)
        if body is None:
            return None
        out.macros[m.group(1)] = Macro(m.group(1), n, None, body[0], start, body[1], "def")
        return body[1]
    if command == "let":
        m = _LET.match(masked, pos)
        if m is None:
            return None
        target = out.macros.get(m.group(2))
        if target is not None:
            out.macros[m.group(1)] = Macro(m.group(1), target.args, target.default, target.body,
                                           start, m.end(), "newcommand")
        return m.end()
    if command in ("newenvironment", "renewenvironment"):
        group = _group(pos)
        if group is None:
            return None
        name, pos = group[0].strip(), group[1]
        nargs, pos = _optional(pos)
        _default, pos = _optional(pos) if nargs is not None else (None, pos)
        begin = _group(pos)
        end = _group(begin[1]) if begin else None
        if begin is None or end is None:
            return None
        try:
            n = int(nargs.strip()) if nargs else 0
        except ValueError:
            n = 0
        out.environments[name] = Environment(name, n, begin[0], end[0], start, end[1])
        return end[1]
    if command in ("newtheorem", "spnewtheorem", "newmdtheoremenv"):
        _opt, pos = _optional(pos) if command == "newmdtheoremenv" else (None, pos)
        group = _group(pos)
        if group is None:
            return None
        env, pos = group[0].strip(), group[1]
        _shared, pos = _optional(pos)
        printed = _group(pos)
        if printed is None:
            return None
        _within, after = _optional(printed[1])
        role = role_for(env, printed[0]) or "other"
        out.theorems[env] = role
        out.theorem_names[env] = printed[0].strip()
        return after
    if command == "declaretheorem":
        opts, pos = _optional(pos)
        group = _group(pos)
        if group is None:
            return None
        env = group[0].strip()
        _opts2, after = _optional(group[1])
        name_opt = re.search(r"name\s*=\s*\{?([^,}\]]+)", (opts or "") + "," + (_opts2 or ""))
        shown = name_opt.group(1) if name_opt else env
        out.theorems[env] = role_for(env, shown) or "other"
        out.theorem_names[env] = shown
        return after
    return None


_TITLE_MACROS = ("title", "icmltitle", "ctitle", "etitle", "Title", "papertitle")
_AUTHOR_MACROS = ("author", "icmlauthor", "cauthor", "eauthor", "Author")


def find_macro_arg(text: str, names: tuple[str, ...]) -> tuple[str, int] | None:
    """The (last optional-skipped) braced argument of the first ``\\name`` among ``names``."""
    masked = mask_comments(text)
    groups = Groups(masked)
    _group, _optional = groups.group, groups.optional
    pattern = re.compile(r"\\(" + "|".join(names) + r")\*?(?![A-Za-z@])")
    for m in pattern.finditer(masked):
        _opt, pos = _optional(m.end())
        group = _group(pos)
        if group is not None and group[0].strip():
            start = group[1] - len(group[0]) - 1
            return text[start:group[1] - 1], start
    return None


def find_title(text: str) -> tuple[str, int] | None:
    """The paper's title as written (``\\title``, ``\\icmltitle``, thesis ``\\ctitle``…)."""
    return find_macro_arg(text, _TITLE_MACROS)


def find_authors(text: str) -> list[str]:
    """Author names, best effort: ``\\author{A \\and B}`` (first line of each), or every
    ``\\icmlauthor{Name}{…}``."""
    masked = mask_comments(text)
    groups = Groups(masked)
    _group, _optional = groups.group, groups.optional
    names: list[str] = []
    for m in re.finditer(r"\\(icmlauthor|author|cauthor)\*?(?![A-Za-z@])", masked):
        _opt, pos = _optional(m.end())
        group = _group(pos)
        if group is None:
            continue
        for part in re.split(r"\\and\b|\\AND\b|\\And\b", group[0]):
            first = re.split(r"\\\\|\\thanks|\\footnote|\\textsuperscript|\\inst|\$|\\newline",
                             part)[0]
            name = re.sub(r"\\[A-Za-z]+\*?(\[[^\]]*\])?|[{}~]", " ",
                          _ESCAPED_SPECIAL.sub(r"\1", first))
            name = " ".join(name.split()).strip(" ,")
            if name and len(name) < 60 and not re.search(r"[@\d]", name):
                names.append(name)
        if m.group(1) == "author" and names:
            break
    return list(dict.fromkeys(names))


_ESCAPED_SPECIAL = re.compile(r"\\([&%#_{}$])")
_KEPT = {"{": "\ue000", "}": "\ue001", "$": "\ue002"}
"""Escaped characters the plain text keeps, held apart while braces and ``$`` are dropped."""


def _plain(tex: str) -> str:
    """A front-matter line as plain text (commands and braces dropped; ``\\&``, ``\\{``, ``\\_``…
    are the characters they print: the export escapes the metadata's text again)."""
    tex = _ESCAPED_SPECIAL.sub(lambda m: _KEPT.get(m.group(1), m.group(1)), tex)
    tex = re.sub(r"\\(?:texttt|url|href|emph|textit|textbf|textrm|textsf)\s*\{", "{", tex)
    tex = re.sub(r"\\[A-Za-z@]+\*?(\[[^\]]*\])?|[{}~$^]|\\[,;:!]", " ", tex)
    for char, held in _KEPT.items():
        tex = tex.replace(held, char)
    return " ".join(tex.split()).strip(" ,;")


def drop_notes(text: str) -> str:
    """``text`` without its ``\\thanks{…}`` and ``\\footnote{…}`` (braces balanced: a note may
    hold ``\\emph{…}``), so the name they follow stays a name."""
    masked = mask_comments(text)
    groups = Groups(masked)
    out, pos = [], 0
    for m in re.finditer(r"\\(?:thanks|footnote)(?![A-Za-z@])", masked):
        if m.start() < pos:
            continue
        _opt, at = groups.optional(m.end())
        group = groups.group(at)
        if group is None:
            continue
        out.append(text[pos:m.start()])
        pos = group[1]
    return "".join(out) + text[pos:]


def author_entries(text: str) -> list[dict[str, str]]:
    """The authors with the lines under their names: ``{"name", "affiliation", "email"}``
    (the last two when given). ``\\author{Name \\\\ Dept \\\\ mail \\and …}``, or ICML's
    ``\\icmlauthor{Name}{keys}`` with each key's ``\\icmlaffiliation``."""
    masked = mask_comments(text)
    groups = Groups(masked)
    affiliations: dict[str, str] = {}
    for m in re.finditer(r"\\icmlaffiliation(?![A-Za-z@])", masked):
        key = groups.group(m.end())
        value = groups.group(key[1]) if key is not None else None
        if key is not None and value is not None:
            affiliations[key[0].strip()] = _plain(value[0])
    entries: list[dict[str, str]] = []
    for m in re.finditer(r"\\(icmlauthor|author)\*?(?![A-Za-z@])", masked):
        _opt, pos = groups.optional(m.end())
        group = groups.group(pos)
        if group is None:
            continue
        if m.group(1) == "icmlauthor":
            keys = groups.group(group[1])
            entry = {"name": _plain(group[0])}
            found = [affiliations[k.strip()] for k in (keys[0] if keys else "").split(",")
                     if k.strip() in affiliations]
            if found:
                entry["affiliation"] = "; ".join(dict.fromkeys(found))
            if entry["name"]:
                entries.append(entry)
            continue
        for part in re.split(r"\\and\b|\\AND\b|\\And\b", group[0]):
            part = drop_notes(part)
            lines = [_plain(x) for x in re.split(r"\\\\(?:\[[^\]]*\])?|\\newline", part)]
            lines = [x for x in lines if x]
            listed = _name_list(lines)
            if listed:  # "Ada Example, Bo Sample,\\ Cy Other": one author each
                entries += [{"name": name} for name in listed]
                continue
            if not lines or len(lines[0]) > 60:
                continue
            entry = {"name": lines[0]}
            mails = [x for x in lines[1:] if "@" in x]
            rest = [x for x in lines[1:] if "@" not in x]
            if rest:
                entry["affiliation"] = ", ".join(rest)
            if mails:
                entry["email"] = mails[0]
            entries.append(entry)
        if entries:
            break
    return entries


_PERSON = re.compile(r"[^\W\d_][\w.'’-]*(?: [^\W\d_][\w.'’-]*){0,4}")
"""A person's name in an author list: up to five words, no digits."""


def _name_list(lines: list[str]) -> list[str]:
    """The names of an author group that is only a list of names separated by commas (over one
    or more lines, none with an affiliation or e-mail), else ``[]``; a single name is not a
    list."""
    names = [n.strip() for line in lines for n in line.split(",") if n.strip()]
    if len(names) < 2 or not all(_PERSON.fullmatch(n) for n in names):
        return []
    if not any(line.rstrip().endswith(",") or line.count(",") >= 2 for line in lines):
        return []  # "Department of Physics, Somewhere": one affiliation, not names
    return names


_KEYWORDS_MACROS = ("keywords", "icmlkeywords", "ckeywords", "keyword")


def find_keywords(text: str) -> list[str]:
    """The paper's keywords: ``\\keywords{a \\and b}``, ``\\keywords{a, b}``, ICML's
    ``\\icmlkeywords{a, b}`` (separated by ``\\and``, ``\\sep``, commas or semicolons), as plain
    text."""
    found = find_macro_arg(text, _KEYWORDS_MACROS)
    if found is None:
        return []
    parts = re.split(r"\\(?:and|AND|And|sep|quad|qquad)(?![A-Za-z@])|[,;，；、]|\\\\", found[0])
    return list(dict.fromkeys(k for k in (_plain(p) for p in parts) if k and len(k) <= 80))


# option lists are bounded: an unclosed "[" repeated would make each match scan to the end
_BIB = re.compile(r"\\(bibliography|addbibresource)(?:\[[^\]]{0,1000}\])?\s*\{([^{}]+)\}")
_PACKAGE = re.compile(r"\\usepackage\s*(?:\[([^\]]{0,2000})\])?\s*\{([^{}]+)\}")
_CLASS = re.compile(r"\\documentclass\s*(?:\[([^\]]{0,2000})\])?\s*\{([^{}]+)\}")
VENUE_PACKAGE = re.compile(r"(?i)^(neurips|nips|icml|iclr|colm|tmlr|acl|aaai|ijcai|emnlp|naacl"
                           r"|corl|aistats|uai|colt|jmlr|arxiv)[\w-]*$")


_VERBATIM = re.compile(r"\\begin\{(verbatim\*?|Verbatim|lstlisting|minted)\}.*?\\end\{\1\}",
                       re.S)
"""A verbatim environment: what it shows is text, not commands (a template's instructions that
print ``\\bibliography{anthology,custom}``)."""


def bibliography_commands(text: str) -> list[tuple[str, int]]:
    """``(name, offset)`` of the ``.bib`` files the paper uses (as written, without ``.bib``;
    the offset of the command that names each first); not those a verbatim block shows."""
    masked = mask_comments(text)
    if "\\begin{" in masked and _VERBATIM.search(masked):
        masked = _VERBATIM.sub(lambda m: " " * len(m.group(0)), masked)
    out: dict[str, int] = {}
    for m in _BIB.finditer(masked):
        for name in m.group(2).split(","):
            name = name.strip()
            if name:
                out.setdefault(name[:-4] if name.endswith(".bib") else name, m.start())
    return list(out.items())


def bibliographies(text: str) -> list[str]:
    """Names of the ``.bib`` files the paper uses (as written, without ``.bib``)."""
    return [name for name, _at in bibliography_commands(text)]


def packages(preamble: str) -> list[tuple[str, str | None]]:
    """``(package, options)`` of every ``\\usepackage`` of the preamble, in order."""
    masked = mask_comments(preamble)
    out: list[tuple[str, str | None]] = []
    for m in _PACKAGE.finditer(masked):
        for name in m.group(2).split(","):
            if name.strip():
                out.append((name.strip(), m.group(1)))
    return out


def document_class(preamble: str) -> tuple[str, str | None] | None:
    """``(class, options)`` of the ``\\documentclass`` line."""
    m = _CLASS.search(mask_comments(preamble))
    return (m.group(2).strip(), m.group(1)) if m else None
