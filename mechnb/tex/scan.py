"""Split markdown cell text into prose, math and code, and check that its TeX is balanced.

This is a small purpose-built scanner (no markdown parser on the check path, DESIGN.md §6). It
knows the math syntaxes of DESIGN.md §2 — ``$…$``, ``$$…$$``, ``\\[…\\]``, ``\\(…\\)`` and bare
amsmath environments — skips fenced and inline code, and inside math tracks braces,
``\\begin``/``\\end`` and ``\\left``/``\\right``. Every problem keeps the offsets of both ends.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from ..lazyre import lazy

SpanKind = Literal["prose", "math", "code"]

MATH_ENVIRONMENTS = frozenset(
    name + star
    for name in ("equation", "align", "gather", "multline", "flalign", "alignat", "eqnarray",
                 "math", "displaymath", "dmath", "subequations")
    for star in ("", "*")
)
"""Environments that open display math when written bare in markdown (amsmath style)."""

# The next thing that changes the scanner's mode, in prose.
_PROSE_TOKEN = lazy(
    r"(?P<fence>^[ \t]{0,3}(?:```|~~~))"
    r"|(?P<tick>`+)"
    r"|(?P<escape>\\[\\$`\[\]()])"
    r"|(?P<dollars>\$\$?)"
    r"|\\begin\{(?P<begin>[^{}\n]*)\}"
    r"|\\end\{(?P<end>[^{}\n]*)\}",
    re.MULTILINE,
)
_ESCAPED_BRACKET = {"\\[": "\\]", "\\(": "\\)"}
# Tokens that matter inside math.
_MATH_TOKEN = lazy(
    r"\\[\\{}%$&#_ ]"
    r"|\\begin\{(?P<begin>[^{}\n]*)\}"
    r"|\\end\{(?P<end>[^{}\n]*)\}"
    r"|\\(?P<lr>left|right)(?![A-Za-z])"
    r"|\\[A-Za-z@]+"
    r"|(?P<brace>[{}])"
    r"|(?P<comment>%[^\n]*)"
)
_BLANK_LINE = lazy(r"\n[ \t]*\n")
_INLINE_CLOSER = lazy(r"(?<![\\$\s])\$(?!\$)")


class Span(NamedTuple):
    """A stretch of the text: ``prose``, ``math`` or ``code``, as offsets ``[start, end)``
    (a named tuple: a huge cell has hundreds of thousands, and a tuple is cheap to make)."""

    kind: SpanKind
    start: int
    end: int
    display: bool = False
    """For math: display math (``$$``, ``\\[``, an environment) rather than inline ``$``."""


@dataclass(frozen=True, slots=True)
class TexProblem:
    """An unbalanced delimiter: what, where it opens and where the scanner gave up on it."""

    message: str
    """What is unbalanced and what to do, with ``{start}`` / ``{end}`` already filled in."""
    start: int
    """Offset of the offending delimiter."""
    end: int | None = None
    """Offset of the other end (the mismatched closer, or where the enclosing region ends)."""


@dataclass
class ScannedText:
    """The result of scanning one text: spans in order, TeX problems, and a line index."""

    source: str
    spans: list[Span] = field(default_factory=list)
    problems: list[TexProblem] = field(default_factory=list)

    _line_starts: list[int] | None = field(default=None, init=False, repr=False)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset`` (a bisection: thousands of findings in a huge
        cell stay linear)."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.source)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def where(self, offset: int) -> str:
        """``line L, column C`` of ``offset`` (for messages)."""
        line, col = self.position(offset)
        return f"line {line}:{col}"

    def segments(self, kind: SpanKind) -> list[Span]:
        """The spans of one kind."""
        return [s for s in self.spans if s.kind == kind]

    def text_of(self, kind: SpanKind) -> list[tuple[int, str]]:
        """``(offset, text)`` for every span of ``kind``."""
        return [(s.start, self.source[s.start:s.end]) for s in self.spans if s.kind == kind]


class _Scanner:
    def __init__(self, source: str) -> None:
        self.src = source
        self.out = ScannedText(source)
        self.env_stack: list[tuple[str, int]] = []  # prose-level environments (itemize…)
        self.blank_lines: list[int] | None = None

    def problem(self, message: str, start: int, end: int | None = None) -> None:
        where = self.out.where
        filled = message.replace("{start}", where(start))
        if end is not None:
            filled = filled.replace("{end}", where(end))
        self.out.problems.append(TexProblem(filled, start, end))

    def add(self, kind: SpanKind, start: int, end: int, display: bool = False) -> None:
        if end > start:
            self.out.spans.append(Span(kind, start, end, display))

    def run(self) -> ScannedText:
        src = self.src
        pos = 0
        prose_from = 0
        n = len(src)
        while pos < n:
            m = _PROSE_TOKEN.search(src, pos)
            if m is None:
                break
            kind = m.lastgroup
            if kind == "escape":
                token = m.group()
                if token in _ESCAPED_BRACKET:
                    close = src.find(_ESCAPED_BRACKET[token], m.end())
                    if close >= 0:
                        self.add("prose", prose_from, m.start())
                        self.math(m.end(), close, display=token == "\\[")
                        pos = prose_from = close + 2
                        continue
                pos = m.end()
                continue
            if kind == "fence":
                fence = m.group().strip()[:3]
                line_end = src.find("\n", m.end())
                if line_end < 0:
                    line_end = n
                closer = re.compile(r"^[ \t]{0,3}" + re.escape(fence) + r"+[ \t]*$", re.MULTILINE)
                fence_close = closer.search(src, line_end)
                end = fence_close.end() if fence_close else n
                self.add("prose", prose_from, m.start())
                self.add("code", m.start(), end)
                pos = prose_from = end
                continue
            if kind == "tick":
                ticks = m.group()
                close = src.find(ticks, m.end())
                while close >= 0 and close + len(ticks) < n and src[close + len(ticks)] == "`":
                    close = src.find(ticks, close + len(ticks) + 1)
                if close < 0:
                    pos = m.end()  # a lone backtick run is literal text
                    continue
                self.add("prose", prose_from, m.start())
                self.add("code", m.start(), close + len(ticks))
                pos = prose_from = close + len(ticks)
                continue
            if kind == "dollars":
                handled = self.dollars(m)
                if handled is None:
                    pos = m.end()
                    continue
                self.add("prose", prose_from, m.start())
                pos = prose_from = handled
                continue
            if kind == "begin":
                name = m.group("begin").strip()
                if name in MATH_ENVIRONMENTS:
                    end_tag = "\\end{" + name + "}"
                    close = src.find(end_tag, m.end())
                    self.add("prose", prose_from, m.start())
                    if close < 0:
                        self.problem(f"`\\begin{{{name}}}` at {{start}} is never closed (the cell "
                                     f"ends at {{end}}); add `{end_tag}`", m.start(), n)
                        self.math(m.end(), n, display=True, region=(m.start(), n))
                        pos = prose_from = n
                    else:
                        self.math(m.end(), close, display=True,
                                  region=(m.start(), close))
                        pos = prose_from = close + len(end_tag)
                    continue
                self.env_stack.append((name, m.start()))
                pos = m.end()
                continue
            # kind == "end" at prose level
            name = m.group("end").strip()
            self.close_env(name, m.start())
            pos = m.end()
        self.add("prose", prose_from, n)
        for name, start in self.env_stack:
            self.problem(f"`\\begin{{{name}}}` at {{start}} is never closed (the cell ends at "
                         f"{{end}}); add `\\end{{{name}}}`", start, n)
        # the region spans were added in order except math/code inside regions; keep them sorted
        self.out.spans.sort(key=lambda s: s.start)
        self.out.problems.sort(key=lambda p: p.start)
        return self.out

    def close_env(self, name: str, at: int) -> None:
        if not self.env_stack:
            self.problem(f"`\\end{{{name}}}` at {{start}} has no matching `\\begin{{{name}}}`",
                         at)
            return
        open_name, open_at = self.env_stack[-1]
        if open_name == name:
            self.env_stack.pop()
            return
        if any(n == name for n, _ in self.env_stack):
            # close the inner unclosed environments, reporting each
            while self.env_stack and self.env_stack[-1][0] != name:
                inner, inner_at = self.env_stack.pop()
                self.problem(f"`\\begin{{{inner}}}` at {{start}} is closed by "
                             f"`\\end{{{name}}}` at {{end}}; add `\\end{{{inner}}}` first",
                             inner_at, at)
            self.env_stack.pop()
            return
        self.problem(f"`\\begin{{{open_name}}}` at {{start}} is closed by `\\end{{{name}}}` at "
                     f"{{end}}; make the names match", open_at, at)
        self.env_stack.pop()

    def dollars(self, m: re.Match[str]) -> int | None:
        """Handle ``$`` or ``$$`` at ``m``; the offset after the math, or None if literal."""
        src = self.src
        n = len(src)
        if m.group() == "$$":
            close = src.find("$$", m.end())
            while close > 0 and src[close - 1] == "\\":
                close = src.find("$$", close + 2)
            if close < 0:
                self.problem("`$$` at {start} is never closed (the cell ends at {end}); add the "
                             "closing `$$`", m.start(), n)
                self.math(m.end(), n, display=True, region=(m.start(), n))
                return n
            self.math(m.end(), close, display=True, region=(m.start(), close))
            return close + 2
        after = src[m.end():m.end() + 1]
        if not after or after.isspace():
            return None  # "a $ b": a literal dollar sign
        if self.blank_lines is None:  # paragraph ends, found once per text (huge cells stay linear)
            self.blank_lines = [b.start() for b in _BLANK_LINE.finditer(src)]
        k = bisect.bisect_left(self.blank_lines, m.end())
        limit = self.blank_lines[k] if k < len(self.blank_lines) else n
        close_m = _INLINE_CLOSER.search(src, m.end(), limit)
        if close_m is None:
            if after.isdigit():
                return None  # "costs $5": currency
            self.problem("`$` at {start} opens inline math that is never closed in its "
                         "paragraph (which ends at {end}); add the closing `$` or write `\\$` "
                         "for a dollar sign", m.start(), limit)
            self.math(m.end(), limit, display=False, region=(m.start(), limit))
            return limit
        self.math(m.end(), close_m.start(), display=False, region=(m.start(), close_m.start()))
        return close_m.end()

    def math(self, start: int, end: int, *, display: bool,
             region: tuple[int, int] | None = None) -> None:
        """Record math ``[start, end)`` and check its braces, environments and ``\\left``."""
        self.add("math", start, end, display)
        stack: list[tuple[str, str, int]] = []  # (kind, name, offset)
        region_end = region[1] if region else end
        for t in _MATH_TOKEN.finditer(self.src, start, end):
            group = t.lastgroup
            if group == "brace":
                if t.group() == "{":
                    stack.append(("brace", "{", t.start()))
                elif stack and stack[-1][0] == "brace":
                    stack.pop()
                else:
                    self.unexpected_closer(stack, "`}`", t.start())
            elif group == "begin":
                stack.append(("env", t.group("begin").strip(), t.start()))
            elif group == "end":
                name = t.group("end").strip()
                if stack and stack[-1][0] == "env" and stack[-1][1] == name:
                    stack.pop()
                else:
                    self.unexpected_closer(stack, f"`\\end{{{name}}}`", t.start())
            elif group == "lr":
                if t.group("lr") == "left":
                    stack.append(("left", "\\left", t.start()))
                elif stack and stack[-1][0] == "left":
                    stack.pop()
                else:
                    self.unexpected_closer(stack, "`\\right`", t.start())
        for kind, name, at in stack:
            what = "`{`" if kind == "brace" else (
                f"`\\begin{{{name}}}`" if kind == "env" else "`\\left`")
            need = "`}`" if kind == "brace" else (
                f"`\\end{{{name}}}`" if kind == "env" else "`\\right`")
            self.problem(f"{what} at {{start}} is not closed before the math ends at {{end}}; "
                         f"add {need}", at, region_end)

    def unexpected_closer(self, stack: list[tuple[str, str, int]], what: str, at: int) -> None:
        if stack:
            kind, name, open_at = stack.pop()
            opener = "`{`" if kind == "brace" else (
                f"`\\begin{{{name}}}`" if kind == "env" else "`\\left`")
            self.problem(f"{opener} at {{start}} is closed by {what} at {{end}}; balance them",
                         open_at, at)
        else:
            self.problem(f"{what} at {{start}} closes nothing; remove it or add its opening "
                         f"partner", at)


def scan_markdown(source: str) -> ScannedText:
    """Scan markdown cell text into prose / math / code spans and TeX balance problems."""
    return _Scanner(source).run()


# ---------------------------------------------------------- the dangerous-TeX gate (MECH022)
#
# A deny-list over TeX *tokens*: control words are read the way TeX reads them (letters only, so
# ``\input@x`` is ``\input`` and ``\\input`` is a line break followed by text), ``^^`` escapes and
# key=value options that name files. Every pattern is linear: no nested or unbounded repetition
# that can backtrack over the text (a 500 KB cell of ``\input[`` scans in milliseconds).

_READS = "reads a file into the paper"
_WRITES = "writes files or runs shell commands"
_SPELLS = "can build or rename any command (and so spell a forbidden one)"
_LOADS = "loads code or files that a notebook's text has no business loading"
DANGEROUS_COMMANDS: dict[str, str] = {
    **dict.fromkeys(("write", "immediate", "openout", "closeout", "newwrite", "ShellEscape",
                     "ShellEscapeSetup", "DeclareGraphicsRule"), _WRITES),
    **dict.fromkeys(("directlua", "luaexec", "luadirect", "latelua", "lateluafunction",
                     "luacode", "luacodestar", "luafunction", "luafunctioncall", "luabytecode",
                     "luabytecodecall", "luadef", "pdfextension"),
                    "runs Lua code"),
    **dict.fromkeys(("openin", "read", "readline", "newread", "input", "include", "includeonly",
                     "InputIfFileExists", "IfFileExists", "verbatiminput", "VerbatimInput",
                     "lstinputlisting", "inputminted", "import", "subimport", "inputfrom",
                     "subinputfrom", "includefrom", "subincludefrom", "includestandalone",
                     "includepdf", "tcbinputlisting", "graphicspath", "pgfimage",
                     "pgfdeclareimage", "XeTeXpdfpagecount", "pdfximage", "pdfobj",
                     "pdfmdfivesum", "bibliography", "bibliographystyle", "nobibliography",
                     "addbibresource", "font", "fontspec", "setmainfont", "setsansfont",
                     "setmonofont", "setmathfont", "newfontfamily", "newfontface",
                     "setCJKmainfont", "setCJKsansfont", "setCJKmonofont", "setCJKfamilyfont",
                     "newCJKfontfamily", "filedump", "filemoddate", "filesize", "mdfivesum",
                     "saveimageresource"), _READS),
    **dict.fromkeys(("special", "pdfliteral", "pdfannot", "pdfstartlink", "pdfcatalog",
                     "pdfnames"),
                    "passes raw instructions to the PDF driver (which can read files)"),
    **dict.fromkeys(("catcode", "csname", "scantokens", "makeatletter", "ExplSyntaxOn",
                     "begincsname", "lastnamedcs", "scantextokens", "UseName", "ExpandArgs",
                     "NewEnvironmentCopy", "RenewEnvironmentCopy", "DeclareEnvironmentCopy"),
                    _SPELLS),
    **dict.fromkeys(("usepackage", "RequirePackage", "RequirePackageWithOptions",
                     "documentclass", "LoadClass", "LoadClassWithOptions", "tcbuselibrary",
                     "usetikzlibrary", "usepgflibrary", "usepgfplotslibrary"), _LOADS),
}
"""Control words that must not come from a notebook, with why (listed in
``docs/guide/security.md``)."""
DANGEROUS_ENVIRONMENTS = frozenset({"filecontents", "filecontents*", "VerbatimOut",
                                    "verbatimwrite", "luacode", "luacode*", "writefile"})
"""Environments that write files or run code (``\\begin{input}`` calls ``\\input``, so every
command of ``DANGEROUS_COMMANDS`` is forbidden as an environment name too)."""
_IMAGE_COMMANDS = frozenset({"includegraphics", "includesvg", "tcbincludegraphics"})
PATH_COMMANDS = _IMAGE_COMMANDS | {"href", "url"}
TEMPLATE_ALLOWED = frozenset(
    name for name, reason in DANGEROUS_COMMANDS.items()
    if reason == _LOADS or name.startswith(("set", "new")) or name in (
        "fontspec", "bibliography", "bibliographystyle", "nobibliography", "addbibresource",
        "makeatletter", "ExplSyntaxOn", "graphicspath"))
"""What a template (a preamble) may use: loading packages and fonts, ``@`` names, the
bibliography; ``\\input`` there is judged by its path like ``\\includegraphics``."""
TEMPLATE_PATH_COMMANDS = frozenset({"input", "include", "InputIfFileExists"})
"""Commands whose argument is a path: fine when relative and inside the paper."""

# Only candidate control words are matched (the scan stays in C for harmless text). A run of
# backslashes is matched from its first one only (the lookbehind), so a 500 KB run is read once
# (backtracking into it fails at once: a name starts with a letter); an even run before letters
# is line breaks followed by text, an odd one ends in a command.
_GATE_TOKEN = lazy(
    r"(?<!\\)(?P<run>\\+)(?=[A-Za-z])(?P<word>"
    + "|".join(sorted({*DANGEROUS_COMMANDS, *PATH_COMMANDS, "begin", "end"}, key=len,
                      reverse=True))
    + r"|XeTeX[A-Za-z]*|pdf[A-Za-z]*)(?![A-Za-z])"
    r"|(?P<caret>\^\^)"
    r"|(?P<key>(?i:\b(?:graphics|image|file|path)(?:[\s}]|%[^\n]{0,200}\n){0,100}=))")
_ENV_NAME = lazy(r"[ \t]*\{([^{}\n]{0,80})\}")
_BUILT_ENV_NAME = lazy(r"[\\~#]")
"""In an environment name: a command, an active character or a parameter (expanded by TeX)."""
# \includegraphics*[opt][opt]{path}: each part bounded, so a run of "\includegraphics[" stays
# linear (the option text cannot contain "[", so it stops at the next command's bracket).
_PATH_ARG = lazy(r"[ \t]*\*?[ \t]*(?:\[(?:[^\[\]{}]|\{[^\[\]{}\\]{0,100}\}){0,300}\]"
                       r"[ \t]*){0,2}\{([^{}]{0,500})\}")
"""A graphics command's options (plain text; a brace group of plain text such as
``trim={1pt 2pt 3pt 4pt}``) and its path."""
_DRIVE = lazy(r"[A-Za-z]:[\\/]")
_TEX_COMMENT = lazy(r"%[^\n]*\n?[ \t]*")
"""A TeX comment with its line break and the next line's indentation (TeX skips all three)."""


@dataclass(frozen=True, slots=True)
class DangerousTex:
    """One place where TeX could reach outside the paper."""

    offset: int
    """Offset of the command in the scanned text."""
    snippet: str
    """The command as written (one line, shortened)."""
    reason: str
    """Why it is refused."""


def command_reason(name: str) -> str | None:
    """Why the control word ``\\name`` is refused, or None if it is harmless."""
    reason = DANGEROUS_COMMANDS.get(name)
    if reason is not None:
        return reason
    lower = name.lower()
    if (lower.startswith("xetex") or lower.startswith("pdf")) and "file" in lower:
        return _READS  # \XeTeXpdffile, \XeTeXpicfile, \pdffiledump, \pdffilemoddate, …
    return None


def path_reason(path: str) -> str | None:
    """Why a path argument is refused (absolute, parent, piped, macro-built), or None."""
    path = path.strip().strip('"').strip()
    if "\\" in path or "#" in path or "^^" in path or "%" in path:
        return "uses a path built from macros; write a plain relative path"
    if path.startswith("|"):
        return "pipes a shell command into TeX"
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        return f"reads the absolute path {path!r}, outside the paper"
    if ".." in re.split(r"[\\/]", path):
        return f"reads {path!r}, outside the paper's folder"
    if re.match(r"(?i)(?:file|run|launch)\s*:", path):
        return f"links to a local file or program ({path[:40]!r})"
    return None


def find_dangerous(text: str, *, keys: bool = True, limit: int | None = None,
                   template: bool = False) -> list[DangerousTex]:
    """Every place in TeX ``text`` that could read or write outside the paper or run code.

    ``keys`` also flags ``file=`` / ``graphics=`` / ``image=`` / ``path=`` options (tcolorbox,
    fontspec), which is only meaningful in TeX (math, raw cells, LaTeX outputs), not in prose.
    ``limit`` stops after that many places. ``template`` judges a template file: preamble
    commands (``TEMPLATE_ALLOWED``) pass and ``\\input`` of a plain relative path too.
    """
    if "\\" not in text and "^^" not in text and not (keys and "=" in text):
        return []
    found: list[DangerousTex] = []
    for m in _GATE_TOKEN.finditer(text):
        reason: str | None = None
        end = m.end()
        name = m.group("word")
        if name is not None and len(m.group("run")) % 2 == 0:
            continue  # "\\\\input": a line break, then the word "input"
        if name is not None:
            if name in ("begin", "end"):
                env = _ENV_NAME.match(text, end)
                if env is None or _BUILT_ENV_NAME.search(env.group(1)):
                    # \begin{\detokenize{special}}, \begin{spe\iftrue cial\fi}, \begin{#1}:
                    # TeX makes the name a command (\csname), so it must be written plainly
                    reason = ("builds an environment name from macros (which can call any "
                              "command); write \\begin{name}")
                else:
                    env_name = env.group(1).strip()
                    if env_name in DANGEROUS_ENVIRONMENTS:
                        reason = _WRITES
                    elif command_reason(env_name.rstrip("*")) is not None:
                        reason = (f"runs \\{env_name.rstrip('*')} as an environment: "
                                  f"{command_reason(env_name.rstrip('*'))}")
                    end = env.end()
            elif template and name in TEMPLATE_ALLOWED:
                reason = None
            elif template and name in TEMPLATE_PATH_COMMANDS:
                arg = _PATH_ARG.match(text, end)
                reason = _READS if arg is None else path_reason(arg.group(1))
                if arg is not None:
                    end = arg.end()
            elif name in PATH_COMMANDS:
                arg = _PATH_ARG.match(text, end)
                if arg is None:
                    if name in _IMAGE_COMMANDS:
                        reason = "has a path that mechnb cannot read; write {relative/path.png}"
                elif name in ("href", "url"):
                    # TeX drops a comment and the line break after it: \href{%⏎run:…}
                    reason = path_reason(_TEX_COMMENT.sub("", arg.group(1)))
                    if reason is not None and not reason.startswith("links"):
                        reason = None  # a web link with odd characters reads no file
                    end = arg.end()
                else:
                    reason = path_reason(arg.group(1))
                    end = arg.end()
            else:
                reason = command_reason(name)
        elif m.group("caret") is not None:
            reason = "spells characters by code (`^^5c` is a backslash), which can hide commands"
        elif m.group("key") is not None and keys:
            reason = "names a file in a key=value option (images and listings are read from it)"
        if reason is not None:
            shown_end = end if end - m.start() > len(m.group()) else m.start() + 40
            snippet = text[m.start():shown_end].split("\n", 1)[0]
            cut = snippet.find("\\", 1)  # up to the next command
            snippet = (snippet[:cut] if cut > 0 else snippet).rstrip()
            if len(snippet) > 60:
                snippet = snippet[:57] + "…"
            found.append(DangerousTex(m.start(), snippet, reason))
            if limit is not None and len(found) >= limit:
                break
    return found


# ------------------------------------------- files approved as a whole (styles, classes, …)
#
# A venue style, class or BibTeX style the paper ships, the paper's own preamble (its
# template) and the TeX files it \inputs are reviewed as a whole and approved by their hash:
# any change revokes the approval. Inside them TeX's ordinary programming is allowed —
# \csname, \catcode, \font, \def with parameters, \expandafter, ^^J — as venue styles use it;
# what reads or writes files, runs programs or talks to the PDF driver stays refused, each
# place read as TeX reads it (comments skipped while % is a comment character; in a style or
# class file @ is a letter, so \@@input is TeX's \input primitive and \end@float is not \end).

_SPELLED = "spells the name of a command that"
_INTERNAL_READERS: dict[str, str] = {
    "@@input": "input", "@input": "input", "@iinput": "input", "@input@": "input",
    "@obsoletefile": "input", "@@end": "", "input@path": "input@path",
    "Ginput@path": "input@path", "@addtofilelist": "", "@filef@und": "",
}
"""LaTeX's internal names (with @ as a letter) that read files: judged as the command they
stand for (an empty value: harmless bookkeeping)."""
_AT_WORD = lazy(r"(?<!\\)(?P<run>\\+)(?P<word>[A-Za-z@]*@[A-Za-z@]*)")
_CATCODE_CHAR = lazy(r"`(?:\\)?(?:\^\^(?:[0-9a-f]{2}|[\x00-\x7f])|[\s\S])"
                     r"|\d+|\"[0-9A-Fa-f]+|'[0-7]+")
_CATCODE_VALUE = lazy(r"[ \t]*=?[ \t]*(?:(?P<num>\d+)|\\(?P<name>[A-Za-z@]+)"
                      r"(?P<the>[ \t]*\\catcode)?)")
_CATCODE_NAMES = {"active": 13, "other": 12, "letter": 11, "@ne": 1, "tw@": 2, "thr@@": 3,
                  "z@": 0, "sixt@@n": 16}
_CATCODE = lazy(r"(?<!\\)(?:\\\\)*\\catcode(?![A-Za-z@])[ \t]*")
_MAKEOTHER = lazy(r"(?<!\\)(?:\\\\)*\\(?:@makeother|makeother)(?![A-Za-z@])[ \t]*\\(.)")
_BULK_CATCODES = lazy(r"(?<!\\)(?:\\\\)*\\(?:dospecials|@sanitize|scantokens|scantextokens)"
                      r"(?![A-Za-z@])")
_VERBATIM_READERS = lazy(r"(?<!\\)(?:\\\\)*\\(?:verb|Verb|lstinline|mintinline|url|path|href"
                         r"|begin[ \t]*\{(?:verbatim|Verbatim|lstlisting|minted|comment)\*?\})"
                         r"(?![A-Za-z@])")
"""Where ``%`` stops being a comment for a stretch of text (a verbatim argument or body)."""
_CSNAME = lazy(r"(?<!\\)(?:\\\\)*\\(?:csname|begincsname)(?![A-Za-z@])")
_COPIES_CATCODE = lazy(r"\\(?:let|futurelet)[ \t]*\\(?:[A-Za-z@]+|.)[ \t]*=?[ \t]*\\catcode"
                       r"(?![A-Za-z@])")
_CSNAME_LITERAL = lazy(r"[ \t]*([A-Za-z@]+)[ \t]*\\endcsname(?![A-Za-z@])")
_FONT_DEF = lazy(r"[ \t]*\\(?:[A-Za-z@]+|.)[ \t]*=?[ \t]*")
_FONT_PLAIN = lazy(r"(?:[A-Za-z0-9_-]+|\"[^\"\[\]/\\~\n]{1,100}\")(?![^\s\\%}])")
_WRITE_STREAM = lazy(r"[ \t]*(?:18|\\@?eighteen)(?![0-9])")
_SPECIAL_SAFE = lazy(r"[ \t]*\{[ \t]*(?:papersize[ \t]*=[ \t]*[0-9.a-z, \\@]{1,80})[ \t]*\}")
_WHOLE_PATH_COMMANDS = frozenset({"IfFileExists", "pgfimage", "includegraphics"})


def _catcode_char(spec: str) -> str | None:
    """The character a ``\\catcode`` assignment names (None: computed, so unknown)."""
    if spec.startswith("`"):
        if spec == "`#":
            return None  # `#1: a macro's parameter, unknown here
        body = spec[1:].lstrip("\\")
        if body.startswith("^^") and len(body) > 2:
            code = body[2:]
            return chr(int(code, 16)) if len(code) == 2 else chr(ord(code) ^ 64)
        return body[:1] or None
    if spec.startswith('"'):
        return chr(int(spec[1:], 16) % 0x110000)
    if spec.startswith("'"):
        return chr(int(spec[1:], 8) % 0x110000)
    return chr(int(spec) % 0x110000)


_SAVED_CATCODE = lazy(r"\\(?:[exg]?def|chardef|let)[ \t]*\\([A-Za-z@]+)[ \t]*=?[ \t]*\{?[ \t]*"
                      r"(?:\\the[ \t]*)?\\catcode[ \t]*(`\\?.)")
"""``\\edef\\x{\\the\\catcode`\\@}`` or ``\\chardef\\x=\\catcode`\\@``: a macro keeping a
character's category, so that ``\\catcode`\\@=\\x`` later restores it."""


_CATCODE_READ = lazy(r"(?:\\(?:the|number|ifnum|showthe|romannumeral)|(?:\\chardef[ \t]*"
                     r"\\[A-Za-z@]+|\\count[0-9@]*|\\@tempcnt[ab])[ \t]*=?)[ \t]*$")
"""What before ``\\catcode`` makes it a read of a category, not an assignment."""


def _reads_catcode(text: str, start: int) -> bool:
    """Whether the ``\\catcode`` at ``start`` is read (``\\the\\catcode`\\@``), not set."""
    return _CATCODE_READ.search(text[max(0, start - 60):start]) is not None


def _saved_catcodes(text: str) -> dict[str, str]:
    """The macros ``text`` keeps a character's own category in (name → character)."""
    saved: dict[str, str] = {}
    for m in _SAVED_CATCODE.finditer(text):
        char = _catcode_char(m.group(2))
        if char is not None:
            saved[m.group(1)] = char
    return saved


def _catcode_change(text: str, end: int, saved: dict[str, str] | None = None
                    ) -> tuple[str | None, int | str | None, int]:
    """``(character, category, end)`` of the ``\\catcode`` assignment whose operands start at
    ``end``: a character of None is computed (``#1``, a counter); a category of None is
    computed, ``"same"`` restores the character's own (``\\the\\catcode``, or a macro of
    ``saved`` that kept it)."""
    spec = _CATCODE_CHAR.match(text, end)
    if spec is None:
        return None, None, end
    char = _catcode_char(spec.group())
    value = _CATCODE_VALUE.match(text, spec.end())
    if value is None:
        return char, None, spec.end()
    if value.group("num") is not None:
        return char, int(value.group("num")), value.end()
    name = value.group("name")
    if name == "the" and value.group("the"):
        return char, "same", value.end()
    if saved and char is not None and saved.get(name) == char:
        return char, "same", value.end()
    return char, _CATCODE_NAMES.get(name), value.end()


def _catcode_reason(char: str | None, category: int | str | None) -> str | None:
    """Why a ``\\catcode`` assignment would let TeX read what the gate does not see."""
    if char is None:
        return ("changes the category of a character written as a parameter or counter, so "
                "the gate cannot know which; write the character (\\catcode`\\@=11)")
    if category == "same":
        return None
    if category is None:
        return (f"gives {char!r} a category the gate cannot read (computed); write the number "
                "or \\active / \\other / \\letter")
    shown = repr(char)
    if category == 0 and char != "\\":
        return (f"makes {shown} an escape character, which would let it spell any command the "
                "gate looks for")
    if category == 7 and char != "^":
        return (f"makes {shown} a superscript character, whose doubled form spells characters "
                "by code (`^^5c` is a backslash)")
    if char.isascii() and char.isalpha() and category != 11:
        return (f"takes the letter {shown} out of command names, so a command the gate reads "
                "as one word would end early (\\inputx would be \\input)")
    return None


def _comment_change(text: str) -> int | None:
    """Where TeX ``text`` first may change how ``%`` is read for what follows (a
    ``\\catcode`` of ``%`` or of a character it cannot name, ``\\@makeother\\%``,
    ``\\dospecials``…), or None."""
    first: int | None = None
    bulk = _BULK_CATCODES.search(text)
    if bulk is not None:
        first = bulk.start()
    for m in _MAKEOTHER.finditer(text):
        if m.group(1) == "%":
            first = m.start() if first is None else min(first, m.start())
            break
    saved = _saved_catcodes(text)
    for m in _CATCODE.finditer(text):
        if first is not None and m.start() >= first:
            break
        if _reads_catcode(text, m.end() - len(m.group().lstrip("\\")) - 1):
            continue
        char, category, _ = _catcode_change(text, m.end(), saved)
        if char is None or (char == "%" and category not in (14, "same")):
            first = m.start()
            break
    return first


def changes_comment_character(text: str) -> bool:
    """Whether TeX ``text`` may change how ``%`` is read for what follows it: then comments
    are judged as TeX from there on (``find_leaks``), and in other files too unless this one
    undoes it by its end (``keeps_comment_character``)."""
    return _comment_change(text) is not None


_SCOPE_ESCAPES = lazy(r"\\(?:global|gdef|xdef|aftergroup|egroup|globaldefs|csname|endcsname"
                      r"|endinput|begingroup|endgroup|let|futurelet)(?![A-Za-z@])"
                      r"|\\(begin|end)[ \t]*\{([^{}]{0,80})\}")


def keeps_comment_character(text: str) -> bool:
    """Whether a file that changes how ``%`` is read (``changes_comment_character``) undoes
    it by its own end, as matplotlib's ``.pgf`` figures do: the whole file (after its leading
    comments) is one ``\\begingroup`` … ``\\endgroup`` with no way out of that group in
    between (``\\global``, ``\\gdef``, ``\\aftergroup``, another ``\\endgroup``, a
    ``\\csname``, an ``\\end`` without its ``\\begin``)."""
    body = _mask_comments(text).strip()
    opener = re.match(r"\\begingroup(?![A-Za-z@])", body)
    closer = re.search(r"\\endgroup(?![A-Za-z@])[%\s]*$", body)
    if opener is None or closer is None or closer.start() < opener.end():
        return False
    stack: list[str] = []
    for m in _SCOPE_ESCAPES.finditer(body, opener.end(), closer.start()):
        if m.group(1) is None:
            return False
        name = m.group(2).strip()
        if m.group(1) == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def _mask_comments(text: str) -> str:
    """``text`` with its comments blanked (offsets kept), read as TeX reads it: ``%`` after
    an even run of backslashes starts a comment to the end of the line — until the first place
    that may make ``%`` something else (a catcode change, a verbatim reader): from there on,
    nothing is skipped."""
    change = _comment_change(text)
    stop = len(text) if change is None else change
    for pattern in (_VERBATIM_READERS, _COPIES_CATCODE):
        m = pattern.search(text, 0, stop)
        if m is not None:
            stop = m.start()
    for m in _CSNAME.finditer(text, 0, stop):
        if _CSNAME_LITERAL.match(text, m.end()) is None:
            stop = m.start()  # a name built at run time might be \catcode
            break
    out: list[str] = []
    pos = 0
    k = 0
    while True:
        k = text.find("%", k, stop)
        if k < 0:
            break
        run = 0
        while k - run - 1 >= 0 and text[k - run - 1] == "\\":
            run += 1
        if run % 2:
            k += 1
            continue  # \% is a percent sign
        line_end = k
        while line_end < len(text) and text[line_end] not in "\r\n":
            line_end += 1
        if line_end > stop:  # the comment reaches past the stop: it ends there
            line_end = len(text) if stop >= len(text) else line_end
        out.append(text[pos:k])
        out.append(" " * (line_end - k))
        pos = k = line_end
        if k >= stop:
            break
    out.append(text[pos:])
    return "".join(out)


def find_leaks(text: str, *, at_letter: bool | None = True, comments: bool = True,
               limit: int | None = None) -> list[DangerousTex]:
    """The places of a file approved as a whole (a style, class or ``.bst`` the paper ships,
    its own preamble, a TeX file it ``\\input``s) that read or write files, run programs or
    reach the PDF driver: what stays refused even there (see the section comment above).

    ``at_letter``: True when ``@`` is a letter (style and class files), None when it may be
    either (a preamble, an input file: both readings are judged). ``comments``: skip comments
    as TeX does (False when some judged file may change how ``%`` is read).
    """
    judged = _mask_comments(text) if comments else text
    found: list[DangerousTex] = []
    saved: dict[str, str] | None = None

    def refuse(start: int, end: int, reason: str) -> None:
        snippet = judged[start:max(end, start + 1)].split("\n", 1)[0].rstrip()
        if len(snippet) > 60:
            snippet = snippet[:57] + "…"
        found.append(DangerousTex(start, snippet, reason))

    for d in find_dangerous(judged, keys=True, template=True):
        at = d.offset
        word = re.match(r"\\+([A-Za-z]+)", judged[at:at + 60])
        name = word.group(1) if word else None
        after = at + (word.end() if word else 2)
        if name is not None and at_letter is True and judged[after:after + 1] == "@":
            continue  # \end@float, \input@path: another word, judged below
        if name in ("csname", "begincsname", "UseName"):
            literal = _CSNAME_LITERAL.match(judged, after)
            spelled = literal.group(1) if literal else None
            if spelled is not None and name == "UseName":
                spelled = None
            if spelled is None and name == "UseName":
                group = re.match(r"[ \t]*\{[ \t]*([A-Za-z@]+)[ \t]*\}", judged[after:after + 200])
                spelled = group.group(1) if group else None
            why = None if spelled is None else (
                command_reason(spelled) or command_reason(spelled.replace("@", "")))
            if why is not None or spelled in ("catcode", "csname", "scantokens"):
                refuse(at, after + (literal.end() - after if literal else 0),
                       f"{_SPELLED} {why or 'changes how names are read'}")
            continue
        if name == "lastnamedcs":
            continue
        if name == "catcode":
            if _reads_catcode(judged, at):
                continue
            if saved is None:
                saved = _saved_catcodes(judged)
            char, category, end = _catcode_change(judged, _skip_spaces(judged, after), saved)
            why = _catcode_reason(char, category)
            if why is not None:
                refuse(at, end, why)
            continue
        if name == "font":
            target = _FONT_DEF.match(judged, after)
            if target is None or not target.group().strip().startswith("\\"):
                continue  # \fontdimen2\font=…, \hyphenchar\font: the current font
            if _FONT_PLAIN.match(judged, target.end()) is None:
                refuse(at, target.end() + 20, "loads a font by a path or a name built from "
                       "macros; write a TeX font name (\\font\\x=cmr10)")
            continue
        if name in ("immediate", "write"):
            if name == "write" and _WRITE_STREAM.match(judged, after):
                refuse(at, after + 4, "writes to stream 18, the shell")
            continue
        if name == "special":
            if _SPECIAL_SAFE.match(judged, after) is None:
                refuse(at, after + 40, d.reason)
            continue
        if name in _WHOLE_PATH_COMMANDS:
            arg = _PATH_ARG.match(judged, after)
            why = _READS if arg is None else path_reason(arg.group(1))
            if why is not None:
                refuse(at, arg.end() if arg else after, why)
            continue
        if name is None and judged.startswith("^^", at):
            code = re.match(r"\^\^(?:([0-9a-f]{2})|([\x00-\x7f]))", judged[at:at + 4])
            if code is not None:
                value = int(code.group(1), 16) if code.group(1) else ord(code.group(2)) ^ 64
                if value < 32 or value == 127:
                    continue  # ^^J, ^^M, ^^I: control characters
        found.append(DangerousTex(at, d.snippet, d.reason))
    for m in _COPIES_CATCODE.finditer(judged):
        refuse(m.start(), m.end(), "copies \\catcode under another name, which the gate "
               "would not follow; write \\catcode itself")
    if at_letter is not False:
        for m in _AT_WORD.finditer(judged):
            if len(m.group("run")) % 2 == 0:
                continue
            at_word: str = m.group("word")
            stands = _INTERNAL_READERS.get(at_word, at_word.replace("@", ""))
            end = m.end()
            if stands == "input@path":
                group = re.match(r"[ \t]*\{((?:\{[^{}]{0,300}\}[ \t]*){1,20})\}",
                                 judged[end:end + 7000])
                paths = re.findall(r"\{([^{}]*)\}", group.group(1)) if group else []
                why = next((path_reason(p) for p in paths if path_reason(p)), None)
                if why is not None:
                    refuse(m.start(), end, f"puts a folder on TeX's input path: {why}")
                continue
            if not stands or stands in TEMPLATE_ALLOWED:
                continue
            if stands in TEMPLATE_PATH_COMMANDS:
                arg = _PATH_ARG.match(judged, end)
                why = (f"reads a file whose name is not written in place (\\{at_word})"
                       if arg is None else path_reason(arg.group(1)))
            else:
                why = command_reason(stands)
                if stands in ("csname", "catcode", "font", "write", "immediate", "special"):
                    why = None  # an internal name built on a programming primitive
            if why is not None:
                refuse(m.start(), end, why)
    found.sort(key=lambda d: d.offset)
    return found if limit is None else found[:limit]


def _skip_spaces(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos
