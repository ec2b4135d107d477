"""TeX engines: which one compiles a paper, and what pdfLaTeX cannot typeset.

The generated ``.tex`` is the same for every engine (``iftex`` in the templates picks fontspec or
inputenc/fontenc); the engine only decides how it is compiled (``--pdf``, the Overleaf
``latexmkrc``) and whether the pdfLaTeX pre-check runs. arXiv always compiles with pdfLaTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import ExportError
from ..findings import Finding, Severity
from ..notebook import CJK_RE, HANGUL_RE, SCRIPT_FONTS, TEX_ENGINES, Paper
from ..tex.escape import pdftex_characters
from .codes import EXPORT_FINDINGS, export_finding
from .context import VERBATIM_BEGIN
from .latex import CJK_SUPPORT_RE, RenderedTex


@dataclass(frozen=True)
class Engine:
    """One TeX engine and how latexmk is told to use it."""

    name: str
    """``pdflatex``, ``xelatex`` or ``lualatex`` (the executable)."""
    latexmk_flag: str
    """latexmk's command-line switch for it."""
    pdf_mode: int
    """latexmk's ``$pdf_mode`` for it (what an Overleaf ``latexmkrc`` sets)."""


ENGINES: dict[str, Engine] = {
    "pdflatex": Engine("pdflatex", "-pdf", 1),
    "xelatex": Engine("xelatex", "-xelatex", 5),
    "lualatex": Engine("lualatex", "-lualatex", 4),
}
"""Engine name → how to run it; the names are ``mechnb.notebook.TEX_ENGINES``."""

assert tuple(ENGINES) == TEX_ENGINES


class EngineError(ExportError):
    """An engine name that is not one of ``ENGINES``."""


def choose_engine(paper: Paper, requested: str | None = None) -> Engine:
    """``requested`` (``--engine``), else ``metadata.mechnb.engine``, else by language."""
    name = requested or paper.engine
    if name not in ENGINES:
        raise EngineError(f"unknown TeX engine {name!r}; choose one of {', '.join(ENGINES)}")
    return ENGINES[name]


FALLBACK_ENGINE = "xelatex"
"""What an English paper compiles with when nobody chose an engine and pdfLaTeX cannot
typeset some of its characters."""


def fallback_engine(paper: Paper, requested: str | None, chosen: Engine,
                    unsupported: list[Finding]) -> tuple[Engine, Finding | None]:
    """The engine to compile with, given the pdfLaTeX pre-check's findings ``unsupported``.

    Only the *default* engine gives way: with neither ``--engine`` nor
    ``metadata.mechnb.engine``, a paper pdfLaTeX would stop at compiles with XeLaTeX (a draft
    that opens beats a failed compile) and an info finding says so; the MECH825 errors stay,
    because arXiv and most venues compile with pdfLaTeX. An engine someone chose is obeyed.
    """
    if chosen.name != "pdflatex" or not unsupported or requested or paper.meta.engine:
        return chosen, None
    cells = sorted({f.cell + 1 for f in unsupported if f.cell is not None})  # 1-based
    where = (f"cell {cells[0]}" if len(cells) == 1 else
             f"cells {', '.join(map(str, cells[:5]))}{' …' if len(cells) > 5 else ''}"
             if cells else "the paper")
    note = export_finding(
        "engine-fallback",
        f"the paper compiles with XeLaTeX (--pdf, the Overleaf latexmkrc), not pdfLaTeX, the "
        f"default for English papers: {where} {'has' if len(cells) <= 1 else 'have'} "
        "characters only XeLaTeX's fonts have (MECH825). arXiv compiles with pdfLaTeX: replace "
        "them before submitting, or choose the engine with --engine or metadata.mechnb.engine")
    return ENGINES[FALLBACK_ENGINE], note


_CYRILLIC_RE = re.compile("[\u0400-\u04ff]")


def outline_fallback(paper: Paper, requested: str | None, chosen: Engine,
                     rendered: RenderedTex) -> tuple[Engine, Finding | None]:
    """The engine to compile with when pdfLaTeX could set the paper's Cyrillic only as bitmaps
    (the T2A encoding is installed, cm-super's Type 1 faces are not): with no engine chosen,
    XeLaTeX (outline fonts, the font plan), and an info finding saying that the ``.tex`` still
    sets the Cyrillic through T2A for arXiv's pdfLaTeX. An engine someone chose is obeyed
    (pdfLaTeX then draws the letters as bitmaps Metafont renders; their text stays
    searchable)."""
    from ..tex.fontplan import cyrillic_type1, pdftex_cyrillic

    if chosen.name != "pdflatex" or requested or paper.meta.engine:
        return chosen, None
    body = rendered.text.find("\\begin{document}")
    found = _CYRILLIC_RE.search(rendered.text, max(body, 0))
    if found is None or not pdftex_cyrillic() or cyrillic_type1():
        return chosen, None
    cell = rendered.cell_at(rendered.text.count("\n", 0, found.start()) + 1)
    where = f"cell {cell + 1} and others" if cell is not None else "the paper"
    note = export_finding(
        "engine-fallback",
        f"the PDF here is built with XeLaTeX: the paper has Cyrillic text ({where}), which "
        "pdfLaTeX sets through T2A — arXiv does, with cm-super's outline fonts — but this TeX "
        "Live has only the LH bitmap fonts (Debian: cm-super, 53 MB, adds the outline ones). "
        "The .tex is unchanged and compiles with arXiv's pdfLaTeX; --engine pdflatex builds "
        "it here with bitmap Cyrillic")
    return ENGINES[FALLBACK_ENGINE], note


_CANNOT_RE = re.compile(r"^pdfLaTeX cannot typeset (.*?)(?:, and arXiv.*| either( \(.*\))?)$",
                        re.S)
PDFLATEX_CHARACTER_CODES = frozenset({"MECH040", "MECH825"})
"""The checker's and the exporter's findings of characters pdfLaTeX cannot typeset."""


def after_fallback(findings: list[Finding]) -> list[Finding]:
    """``findings`` as they read once the paper compiled with XeLaTeX instead (the engine
    fallback): a character pdfLaTeX cannot typeset no longer stops this PDF, it stops the paper
    on arXiv — a warning that says so (``--bundle arxiv`` keeps its own errors)."""
    out = []
    for f in findings:
        m = _CANNOT_RE.match(f.message) if f.code in PDFLATEX_CHARACTER_CODES else None
        if m is None:
            out.append(f)
            continue
        what, rest = m.group(1), m.group(2) or ""
        more = " either" in f.message[m.end(1):m.end(1) + 8]
        message = (f"arXiv's pdfLaTeX would {'also ' if more else ''}stop at {what}{rest} (this "
                   "PDF is built with XeLaTeX): replace it or write it as a LaTeX command before "
                   "submitting to arXiv")
        out.append(replace(f, severity=Severity.WARNING, message=message))
    return out


# --------------------------------------------------------------------------- LuaLaTeX and Chinese

_CTEX_RE = re.compile(r"^[ \t]*\\(?:documentclass|usepackage|RequirePackage)(?:\[[^\]\n]*\])?"
                      r"\{(?:ctexart|ctexrep|ctexbook|ctex)\}", re.M)
LUATEXJA_MISSING = "lualatex-without-luatexja"
"""The finding that stops a LuaLaTeX compile of a ctex paper before it starts."""


def lualatex_findings(rendered: RenderedTex) -> list[Finding]:
    """ctex typesets Chinese under LuaLaTeX through luatexja (Debian's ``texlive-lang-japanese``,
    ~330 MB, which ``make tex`` does not install): without it, one finding instead of a TeX error.
    """
    from .styles import kpsewhich

    if _CTEX_RE.search(rendered.text) is None or kpsewhich("luatexja.sty"):
        return []
    return [export_finding(
        LUATEXJA_MISSING, "LuaLaTeX typesets Chinese (ctex) through luatexja, which this TeX Live "
        "lacks: use --engine xelatex (the default for Chinese) or pdflatex (what arXiv runs), or "
        "install luatexja (Debian: texlive-lang-japanese); not compiled")]


# --------------------------------------------------------------------------- pdfLaTeX pre-check

_COMMENT_RE = re.compile(r"(?<!\\)%.*")
_DECLARED_RE = re.compile(r"\\newunicodechar\{(.)\}")
UNICODE_ERROR_RE = re.compile(r"Unicode character (.) \(U\+([0-9A-Fa-f]+)\)")
"""inputenc's error for a character it has no definition for (``… not set up for use …``)."""
CJK_FONT_ERROR_RE = re.compile(r"Font C\d+/\w+/\S*=\w+?u([0-9a-fA-F]{2,4}) .*not loadable")
"""CJKutf8's error for a character outside its fonts: it names the 256-character block only."""


CHARACTERS_PER_CELL = 3
"""Characters of one cell reported one by one; the rest of them share one finding."""


def unsupported_message(char: str) -> str:
    """What a finding says about a character pdfLaTeX cannot typeset."""
    return (f"pdfLaTeX cannot typeset {char!r} (U+{ord(char):04X}), and arXiv and most venue "
            "styles compile with pdfLaTeX: replace it or write it as a LaTeX command (a draft "
            "for yourself can use --engine xelatex)")


def pdftex_findings(rendered: RenderedTex, sources: dict[int, str] | None = None
                    ) -> list[Finding]:
    """A finding at its cell for every character of the ``.tex`` that pdfLaTeX would stop at."""
    text = rendered.text
    if text.isascii():
        return []
    known = pdftex_characters()
    declared = set(_DECLARED_RE.findall(text))
    cjk_ok = CJK_SUPPORT_RE.search(text) is not None
    seen: set[tuple[str, int | None]] = set()
    per_cell: dict[int | None, list[str]] = {}
    out: list[Finding] = []
    in_verbatim = False
    for n, line in enumerate(text.split("\n"), 1):
        if in_verbatim:  # code and outputs: a % is a character there, not a comment
            in_verbatim = line.strip() != "\\end{Verbatim}"
            if not in_verbatim or line.isascii():
                continue
        else:
            in_verbatim = line.lstrip().startswith(VERBATIM_BEGIN)
            if line.isascii():
                continue
            line = _COMMENT_RE.sub("", line)
        for ch in line:
            if (ord(ch) < 0x80 or ord(ch) in known or ch in declared
                    or (cjk_ok and (CJK_RE.match(ch) or "\u3000" <= ch <= "\u303f")
                        and not HANGUL_RE.match(ch))):  # the Arphic fonts have no Hangul
                continue
            cell = rendered.cell_at(n)
            if (ch, cell) in seen:
                continue
            seen.add((ch, cell))
            shown = per_cell.setdefault(cell, [])
            if len(shown) < CHARACTERS_PER_CELL:
                out.append(located(unsupported_message(ch), ch, cell, sources))
            shown.append(ch)
    for cell, chars in per_cell.items():  # a Korean notebook: a few, then one line for the rest
        rest = chars[CHARACTERS_PER_CELL:]
        if rest:
            listed = "".join(rest[:20]) + ("…" if len(rest) > 20 else "")
            out.append(located(f"pdfLaTeX cannot typeset {len(rest)} more character"
                               f"{'s' if len(rest) > 1 else ''} of this cell either ({listed})",
                               rest[0], cell, sources))
    return out


def located(message: str, char: str, cell: int | None,
            sources: dict[int, str] | None) -> Finding:
    """The ``pdflatex-unsupported-character`` finding, at the character's line in its cell."""
    finding = export_finding("pdflatex-unsupported-character", message, cell,
                             labels=(f"U+{ord(char):04X}",))
    if sources is not None and cell is not None:
        for k, text in enumerate(sources.get(cell, "").split("\n"), 1):
            if char in text:
                return replace(finding, line=k, column=text.index(char) + 1)
    return finding


# --------------------------------------------------------------------------- scripts and fonts

NO_FONT = "no-font-for-script"
"""The finding that stops a compile whose text needs a font that is not installed."""


def font_installed(family: str) -> bool:
    """Whether fontconfig (which XeTeX and LuaTeX ask) knows the font ``family``."""
    import shutil
    import subprocess

    if shutil.which("fc-list") is None:
        return False
    done = subprocess.run(["fc-list", family, "family"], capture_output=True, text=True,
                          timeout=60)
    return bool(done.stdout.strip())


def script_font_findings(rendered: RenderedTex, sources: dict[int, str] | None = None
                         ) -> list[Finding]:
    """One error per script of the ``.tex`` whose font is not installed (``make tex`` installs
    Debian's fonts-noto-cjk): the compile is not started, so no text vanishes silently."""
    text = rendered.text
    if text.isascii():
        return []
    out = []
    for script, (pattern, region) in SCRIPT_FONTS.items():
        body = text.find("\\begin{document}")
        found = pattern.search(text, max(body, 0)) or pattern.search(text)  # a cell's, else title
        if found is None or font_installed(f"Noto Serif CJK {region}"):
            continue
        line = text.count("\n", 0, found.start()) + 1
        out.append(located(
            f"{script} text needs a font with its letters (Noto Serif CJK {region}), which is "
            f"not installed: the PDF would lose it. Install it (Debian: fonts-noto-cjk, which "
            f"`make tex` installs); not compiled", found.group(), rendered.cell_at(line), sources))
        out[-1] = replace(out[-1], code=EXPORT_FINDINGS[NO_FONT][0], name=NO_FONT,
                          severity=EXPORT_FINDINGS[NO_FONT][1])
    return out


NO_FONT_CHARACTER = "no-font-for-character"
"""A character the font plan found in no installed font: the PDF prints a gap for it."""


def missing_font_findings(rendered: RenderedTex, sources: dict[int, str] | None = None
                          ) -> list[Finding]:
    """One warning per cell whose characters no installed font has (``tex.fontplan``), naming
    their scripts: XeLaTeX would drop them with a line in its log only."""
    from ..tex.fontplan import font_plan, script_of

    text = rendered.text
    body = max(text.find("\\begin{document}"), 0)
    plan = font_plan(text[body:])
    if not plan.missing:
        return []
    missing = set(plan.missing)
    per_cell: dict[int | None, list[str]] = {}
    for n, line in enumerate(text[body:].split("\n"), text.count("\n", 0, body) + 1):
        if line.isascii():
            continue
        for ch in line:
            if ch in missing:
                chars = per_cell.setdefault(rendered.cell_at(n), [])
                if ch not in chars:
                    chars.append(ch)
    out = []
    for cell, chars in per_cell.items():
        scripts = sorted({script_of(c).lower() for c in chars})
        named = ", ".join("symbols/emoji" if s == "symbol" else s.capitalize() for s in scripts)
        listed = "".join(chars[:12]) + ("…" if len(chars) > 12 else "")
        out.append(located(
            f"{len(chars)} character{'s' if len(chars) > 1 else ''} ({named}: {listed}) "
            f"{'are' if len(chars) > 1 else 'is'} in no installed font and "
            f"print{'' if len(chars) > 1 else 's'} as a gap in the PDF: install a font with "
            "them (Debian: fonts-noto-core, "
            "fonts-symbola, which `make tex` installs) or replace them",
            chars[0], cell, sources))
        out[-1] = replace(out[-1], code=EXPORT_FINDINGS[NO_FONT_CHARACTER][0],
                          name=NO_FONT_CHARACTER, severity=EXPORT_FINDINGS[NO_FONT_CHARACTER][1])
    return out
