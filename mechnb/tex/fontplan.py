"""One font plan for every script of a paper: what XeLaTeX sets each character in.

The templates set text in Latin Modern, which has Latin letters only. Every other character of
the ``.tex`` (Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai, symbols, emoji …) is given, from
the characters present, to the first installed font that has it, in the order of ``PREFERENCE``
(Noto Serif, then Noto's per-script families, DejaVu, the symbol fonts, Symbola for emoji). Under
XeLaTeX, XeTeX's character classes switch to that font at the first such character and back to
the surrounding family after the last one (``\\XeTeXinterchartoks``), so text, headings,
code and outputs need no markup and bold/italic/typewriter are kept. CJK stays with xeCJK
(``cjk.tex``, ``scripts.tex``). Under pdfLaTeX the plan only adds the T2A encoding for Cyrillic
(``texlive-lang-cyrillic``); what pdfLaTeX cannot set is reported before it runs (MECH825).

A character that no installed font has is returned in ``FontPlan.missing``; the exporter reports
it once per cell, naming its script (MECH834), instead of letting TeX drop it with a log line.
"""

from __future__ import annotations

import bisect
import subprocess
import unicodedata
from dataclasses import dataclass, field
from functools import cache

from ..lazyre import lazy

_CJK_HANDLED_RE = lazy(r"[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u30ff\u3130-\u318f\u3400-\u4dbf"
                       r"\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
                       r"\U00020000-\U0002fa1f]")
"""Characters xeCJK (ctex) sets with the CJK fonts: never part of this plan."""

MAIN_FAMILIES = ("Latin Modern Roman", "Latin Modern Mono")
"""The templates' text fonts under XeLaTeX (fontspec's default): a character both have stays."""

PREFERENCE = ("Noto Serif", "Noto Serif *", "Noto Naskh Arabic", "Noto Sans", "Noto Sans *",
              "Noto Sans Mono", "DejaVu Serif", "DejaVu Sans", "DejaVu Sans Mono",
              "Noto Sans Symbols", "Noto Sans Symbols2", "Noto Sans Math", "Symbola")
"""Families tried in this order (``*``: any installed family of that prefix, by name)."""

_EXCLUDED = ("Latin Modern", "LM ", "AR PL", "Noto Serif CJK", "Noto Sans CJK",
             "Noto Sans Mono CJK", "Noto Color Emoji", "Noto Kufi", "Noto Looped", "Noto Rashi")
"""Families never chosen: the main fonts, the CJK fonts (xeCJK's), colour bitmaps, display faces."""

SYMBOL_FAMILIES = ("DejaVu Serif", "DejaVu Sans", "Noto Sans Symbols", "Noto Sans Symbols2",
                   "Noto Sans Math", "Symbola")
"""Where symbols, digits and punctuation are looked up first."""

MONO_FAMILIES = ("Noto Sans Mono", "DejaVu Sans Mono")
"""Typewriter faces for code and outputs, when one has all of a family's characters."""

RTL_SCRIPTS = frozenset({"HEBREW", "ARABIC", "SYRIAC", "THAANA", "NKO"})
"""Scripts written right to left."""


@dataclass(frozen=True)
class FontPlan:
    """Which font family sets which characters; what no installed font has."""

    families: tuple[tuple[str, str], ...] = ()
    """``(family, characters)`` in the order of the plan."""
    missing: str = ""
    """Characters of the text no installed font has (sorted)."""
    cyrillic: bool = False
    """The text has Cyrillic letters (pdfLaTeX sets them through T2A)."""
    scripts: tuple[str, ...] = field(default=())
    """The scripts the plan's characters belong to (``CYRILLIC``, ``ARABIC``, ``SYMBOL`` …)."""


@cache
def installed_charsets() -> dict[str, tuple[tuple[int, int], ...]]:
    """Family → sorted code point ranges it covers (fontconfig, the regular face first)."""
    try:
        done = subprocess.run(["fc-list", "--format", "%{family[0]}\t%{style[0]}\t%{charset}\n"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    best: dict[str, tuple[int, str]] = {}
    for line in done.stdout.splitlines():
        family, _, rest = line.partition("\t")
        style, _, charset = rest.partition("\t")
        rank = 0 if any(s in style for s in ("Regular", "Book")) else 1
        if family and (family not in best or rank < best[family][0]):
            best[family] = (rank, charset)
    out: dict[str, tuple[tuple[int, int], ...]] = {}
    for family, (_, charset) in best.items():
        ranges = []
        for part in charset.split():
            first, _, last = part.partition("-")
            try:
                ranges.append((int(first, 16), int(last or first, 16)))
            except ValueError:
                continue
        out[family] = tuple(sorted(ranges))
    return out


def _covers(ranges: tuple[tuple[int, int], ...], point: int) -> bool:
    k = bisect.bisect_right(ranges, (point, 0x10FFFF + 1)) - 1
    return k >= 0 and ranges[k][0] <= point <= ranges[k][1]


@cache
def candidate_families() -> tuple[str, ...]:
    """The installed families of ``PREFERENCE``, in its order."""
    installed = sorted(installed_charsets())
    out: list[str] = []
    for pattern in PREFERENCE:
        if pattern.endswith("*"):
            prefix = pattern[:-1]
            matches = [f for f in installed if f.startswith(prefix)]
        else:
            matches = [pattern] if pattern in installed else []
        out += [f for f in matches if f not in out and not f.startswith(_EXCLUDED)]
    return tuple(out)


def script_of(char: str) -> str:
    """The script a character belongs to, as a word of its Unicode name (``CYRILLIC``,
    ``HEBREW`` …), ``SYMBOL`` for symbols and emoji."""
    if unicodedata.category(char).startswith(("S", "P", "N", "Z", "C")):
        return "SYMBOL"
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def _needs_plan(char: str, main: tuple[tuple[tuple[int, int], ...], ...]) -> bool:
    point = ord(char)
    if point < 0x80 or _CJK_HANDLED_RE.match(char):
        return False
    if unicodedata.category(char).startswith(("L", "M")) and point >= 0x370:
        name = unicodedata.name(char, "")
        if not name.startswith(("LATIN", "COMBINING", "MODIFIER")):
            return True  # a letter of another script: its whole word in one font
    return not all(_covers(ranges, point) for ranges in main)


_LATIN_MODERN_RE = lazy("[\x00-\x7f\u00a0-\u0137\u0139-\u0148\u014a-\u0165\u0168-\u017f"
                       "\u2013\u2014\u2018-\u201a\u201c-\u201e\u2020-\u2022\u2026\u2030"
                       "\u2039\u203a\u20ac\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
                       "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]*")
"""Text every character of which Latin Modern Roman and Mono have (or xeCJK sets)."""


def font_plan(text: str) -> FontPlan:
    """The plan for the characters of ``text`` (the ``.tex`` body and title)."""
    if text.isascii() or _LATIN_MODERN_RE.fullmatch(text):
        return FontPlan()  # no font outside the templates' is needed: fontconfig not asked
    charsets = installed_charsets()
    main = tuple(charsets.get(f, ()) for f in MAIN_FAMILIES)
    chars = sorted(ch for ch in set(text) if _needs_plan(ch, main))
    if not chars:
        return FontPlan()
    by_family: dict[str, list[str]] = {}
    missing: list[str] = []
    families = candidate_families()
    symbol_first = tuple(f for f in SYMBOL_FAMILIES if f in families) + families
    for ch in chars:
        # a symbol (①, →, ▲, an emoji) from a general symbol font, not from the first script
        # family that happens to have it
        for family in symbol_first if script_of(ch) == "SYMBOL" else families:
            if _covers(charsets[family], ord(ch)):
                by_family.setdefault(family, []).append(ch)
                break
        else:
            if unicodedata.category(ch) not in ("Cc", "Cf", "Mn", "Zs", "Co", "Cs", "Cn"):
                missing.append(ch)
    ordered = tuple((f, "".join(by_family[f])) for f in families if f in by_family)
    scripts = tuple(sorted({script_of(ch) for ch in chars}))
    cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in chars)
    return FontPlan(ordered, "".join(missing), cyrillic, scripts)


def _ranges(chars: str) -> list[tuple[int, int]]:
    points = sorted(ord(c) for c in chars)
    out: list[tuple[int, int]] = []
    for p in points:
        if out and p == out[-1][1] + 1:
            out[-1] = (out[-1][0], p)
        else:
            out.append((p, p))
    return out


@cache
def _kpsewhich_all(*names: str) -> bool:
    import shutil

    if shutil.which("kpsewhich") is None:
        return False
    try:
        done = subprocess.run(["kpsewhich", *names], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return len(done.stdout.split()) == len(names)


def pdftex_cyrillic() -> bool:
    """Whether pdfLaTeX sets Cyrillic with the ``.tex`` written here: the T2A encoding and the
    LH fonts' sources (Debian's ``texlive-lang-cyrillic``), which the font plan then loads.
    arXiv's TeX Live has them and cm-super's Type 1 faces; see ``cyrillic_type1``."""
    return _kpsewhich_all("t2aenc.def", "lcyrdefs.mf")


def cyrillic_type1() -> bool:
    """Whether this TeX Live has Type 1 (outline) faces for T2A at the templates' 11pt
    (``cm-super``, 53 MB, which ``make tex`` does not install). Without them pdfLaTeX draws the
    Cyrillic letters as bitmaps Metafont renders from the LH sources (the text stays searchable:
    ``cmap`` maps it back): an English paper with Cyrillic that nobody chose an engine for is
    then compiled here with XeLaTeX, while its ``.tex`` stays one arXiv's pdfLaTeX sets."""
    return _kpsewhich_all("sfrm1095.pfb")


PDFTEX_CYRILLIC = frozenset([*range(0x400, 0x460), 0x490, 0x491])
"""The Cyrillic letters pdfLaTeX sets through T2A (Russian, Ukrainian, Belarusian, Serbian,
Macedonian, Bulgarian)."""


def _t2a_defaults(plan: FontPlan) -> list[str]:
    """``\\DeclareTextSymbolDefault`` for each Cyrillic letter of the plan: in T1 text, LaTeX
    switches to T2A for the letter (inputenc maps it to a command T2A alone defines)."""
    from .escape import _encoder

    out = []
    for ch in sorted({c for _, chars in plan.families for c in chars
                      if ord(c) in PDFTEX_CYRILLIC}):
        command = _encoder().unicode_to_latex(ch).strip("{}")
        if command.startswith("\\") and command[1:].isalpha():
            out.append("  \\DeclareTextSymbolDefault{" + command + "}{T2A}")
    return out


FONTSPEC_SCRIPTS = frozenset({
    "Arabic", "Armenian", "Bengali", "Cyrillic", "Devanagari", "Ethiopic", "Georgian", "Greek",
    "Gujarati", "Gurmukhi", "Hebrew", "Kannada", "Khmer", "Lao", "Malayalam", "Myanmar",
    "Sinhala", "Syriac", "Tamil", "Telugu", "Thaana", "Thai", "Tibetan"})
"""Scripts fontspec names (``Script=…``): their shaping (Arabic joining, Indic reordering)."""


def _script_option(chars: str) -> str:
    counts: dict[str, int] = {}
    for ch in chars:
        if ch.isalpha():
            script = script_of(ch).capitalize()
            counts[script] = counts.get(script, 0) + 1
    if not counts:
        return ""
    script = max(counts, key=lambda k: counts[k])
    return f",Script={script}" if script in FONTSPEC_SCRIPTS else ""


def plan_preamble(plan: FontPlan) -> str:
    """The preamble lines of ``plan``: T2A under pdfLaTeX, the XeTeX classes under XeLaTeX.

    LuaLaTeX has no character classes: there the plan's fonts are not switched to (its
    text in other scripts needs ``--engine xelatex``)."""
    if not plan.families and not plan.cyrillic:
        return ""
    lines = ["% Scripts other than Latin: each character in the first installed font that has it",
             "\\usepackage{iftex}"]
    if plan.cyrillic and pdftex_cyrillic():
        lines += ["\\ifPDFTeX", "  \\usepackage{cmap}", "  \\usepackage[T2A,T1]{fontenc}",
                  *_t2a_defaults(plan), "\\fi"]
    if not plan.families:
        return "\n".join(lines) + "\n"
    lines += ["\\ifXeTeX", "\\makeatletter",
              # #1 in text, #2 in typewriter (code and outputs keep their columns)
              "\\def\\mech@enter#1#2{\\edef\\mech@prevfamily{\\f@family}"
              "\\edef\\mech@ttfamily{\\ttdefault}"
              "\\ifx\\mech@prevfamily\\mech@ttfamily#2\\else#1\\fi}",
              # a class can be left without having been entered (a line of a Verbatim that
              # starts with one of its characters): then leaving changes nothing
              "\\let\\mech@prevfamily\\@empty",
              "\\def\\mech@leave{\\ifx\\mech@prevfamily\\@empty\\else"
              "\\fontfamily{\\mech@prevfamily}\\selectfont"
              "\\let\\mech@prevfamily\\@empty\\fi}",
              "\\def\\mech@classrange#1#2#3{\\@tempcnta=#1\\relax"
              "\\loop\\ifnum\\@tempcnta<\\numexpr#2+1\\relax"
              "\\XeTeXcharclass\\@tempcnta=#3\\relax\\advance\\@tempcnta\\@ne\\repeat}",
              "\\XeTeXinterchartokenstate=1"]
    names = []
    charsets = installed_charsets()
    for n, (family, chars) in enumerate(plan.families):
        letter = chr(ord("a") + n) if n < 26 else f"z{n}"
        font, cls = f"\\mech@font@{letter}", f"\\mech@class@{letter}"
        mono = next((m for m in MONO_FAMILIES if m in charsets and m != family
                     and all(_covers(charsets[m], ord(c)) for c in chars)), None)
        names.append((font + (font + "@tt" if mono else font), cls))
        script = _script_option(chars)
        # Latin-like letters and symbols at Latin Modern's x-height; other scripts as designed
        scale = "Scale=MatchLowercase" if script in ("", ",Script=Cyrillic",
                                                     ",Script=Greek") else ""
        options = "[" + (scale + script).lstrip(",") + "]"
        lines.append(f"\\newfontfamily{font}{{{family}}}{options}")
        if mono:
            lines.append(f"\\newfontfamily{font}@tt{{{mono}}}[Scale=MatchLowercase]")
        lines.append(f"\\newXeTeXintercharclass{cls}")
        for first, last in _ranges(chars):
            if first == last:
                lines.append(f"\\XeTeXcharclass\"{first:04X}={cls}")
            else:
                lines.append(f"\\mech@classrange{{\"{first:04X}}}{{\"{last:04X}}}{{{cls}}}")
    for font, cls in names:
        lines.append(f"\\XeTeXinterchartoks 0 {cls}={{\\mech@enter{font}}}")
        lines.append(f"\\XeTeXinterchartoks 4095 {cls}={{\\mech@enter{font}}}")
        lines.append(f"\\XeTeXinterchartoks {cls} 0={{\\mech@leave}}")
        lines.append(f"\\XeTeXinterchartoks {cls} 4095={{\\mech@leave}}")
        for other_font, other in names:
            if other != cls:
                lines.append(f"\\XeTeXinterchartoks {cls} {other}="
                             f"{{\\mech@leave\\mech@enter{other_font}}}")
    lines += ["\\makeatother", "\\fi"]
    return "\n".join(lines) + "\n"
