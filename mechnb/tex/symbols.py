"""Characters no font of the templates has, drawn or replaced so every engine can set them.

Terminal output is full of them: a tqdm bar's blocks (``100%|█████▋ |``), the box-drawing frames
of ``rich`` and ``torchinfo`` tables, check marks and arrows in logs, an emoji's invisible
variation selector. pdfLaTeX stops at such a character; XeLaTeX's Latin Modern fonts have no
glyph for it and drop it. Here each gets a ``\\newunicodechar`` definition (which works in text,
math and verbatim, under pdfLaTeX, XeLaTeX and LuaLaTeX; LuaLaTeX reads the replacement
character U+FFFD as another one, ``LUATEX_REPLACEMENT``):

* box drawing (U+2500–U+257F) is drawn with rules, arms read from the Unicode name (light, heavy
  and double strokes, so a frame joins up from line to line);
* block elements (U+2580–U+259F) are rules of the block's size, shades grey rules;
* common symbols (check marks, crosses, stars, geometric shapes, heavy arrows) become the
  ``amssymb`` symbol of the same meaning; invisible joiners and selectors become nothing.

Anything else no engine can set (most emoji) is left to the pre-check and the missing-glyph
finding: it is reported at its cell, never lost silently.
"""

from __future__ import annotations

import unicodedata
from functools import cache

SYMBOLS: dict[str, str] = {
    **dict.fromkeys("✓✔✅☑", r"\ensuremath{\checkmark}"),
    **dict.fromkeys("✗✘❌✕✖❎", r"\ensuremath{\times}"),
    **dict.fromkeys("★⭐", r"\ensuremath{\bigstar}"),
    "☆": r"\ensuremath{\star}",
    **dict.fromkeys("●⬤⚫", r"\ensuremath{\bullet}"),
    **dict.fromkeys("○◯⚪", r"\ensuremath{\circ}"),
    **dict.fromkeys("►▶▸", r"\ensuremath{\blacktriangleright}"),
    **dict.fromkeys("◄◀◂", r"\ensuremath{\blacktriangleleft}"),
    **dict.fromkeys("▲▴", r"\ensuremath{\blacktriangle}"),
    **dict.fromkeys("▼▾", r"\ensuremath{\blacktriangledown}"),
    "△": r"\ensuremath{\vartriangle}", "▽": r"\ensuremath{\triangledown}",
    "▷": r"\ensuremath{\triangleright}", "◁": r"\ensuremath{\triangleleft}",
    **dict.fromkeys("◆♦", r"\ensuremath{\blacklozenge}"),
    **dict.fromkeys("◇◊", r"\ensuremath{\lozenge}"),
    **dict.fromkeys("□☐", r"\ensuremath{\square}"),
    **dict.fromkeys("▪■◼", r"\ensuremath{\blacksquare}"),
    **dict.fromkeys("➡➜➔", r"\ensuremath{\rightarrow}"),
    "⬅": r"\ensuremath{\leftarrow}", "⬆": r"\ensuremath{\uparrow}",
    "⬇": r"\ensuremath{\downarrow}", "⏎": r"\ensuremath{\hookleftarrow}",
    **dict.fromkeys("❤♥", r"\ensuremath{\heartsuit}"),
    "♠": r"\ensuremath{\spadesuit}", "♣": r"\ensuremath{\clubsuit}",
    "′": r"\ensuremath{{}^{\prime}}", "″": r"\ensuremath{{}^{\prime\prime}}",
    "⚠": r"\textbf{!}", "❗": r"\textbf{!}", "❓": r"\textbf{?}", "❔": "?", "❕": "!",
    "\ufffd": r"\mechreplacement",
    # invisible: zero-width space (a break point), joiners, variation selectors, keycap combiner
    "\u200b": r"\hspace{0pt}", "\u202f": r"\,", "\u2060": "", "\ufeff": "", "\u200c": "",
    "\u200d": "", "\ufe0e": "", "\ufe0f": "", "\u20e3": "",
}
"""Single characters and what stands for them (text, math and verbatim alike)."""

_WEIGHTS = {"LIGHT": 1, "SINGLE": 1, "HEAVY": 2, "DOUBLE": 3}
_ARMS = {"LEFT": "L", "RIGHT": "R", "UP": "U", "DOWN": "D", "HORIZONTAL": "LR", "VERTICAL": "UD"}


def box_arms(char: str) -> dict[str, int] | None:
    """The arms of a box-drawing character (``L``/``R``/``U``/``D`` → 1 light, 2 heavy,
    3 double), read from its Unicode name; ``None`` for the diagonals."""
    name = unicodedata.name(char, "")
    if not name.startswith("BOX DRAWINGS ") or "DIAGONAL" in name:
        return None
    words = name.removeprefix("BOX DRAWINGS ").split()
    overall = _WEIGHTS.get(words[0], 1)
    arms: dict[str, int] = {}
    for part in " ".join(words).split(" AND "):
        tokens = part.split()
        weight = next((_WEIGHTS[t] for t in tokens if t in _WEIGHTS), overall)
        for token in tokens:
            for arm in _ARMS.get(token, ""):
                arms[arm] = weight
    return arms or None


_DIAGONALS = {"╱": "/", "╲": r"\textbackslash{}", "╳": "X"}
_SHADES = {"░": 25, "▒": 50, "▓": 75}


def _block(char: str) -> str | None:
    """``\\mechblock{x0}{x1}{y0}{y1}`` for a block element (fractions of the character cell)."""
    code = ord(char)
    if char in _SHADES:
        return r"\mechshade{" + str(_SHADES[char]) + "}"
    if char == "█":
        return r"\mechblock{0}{1}{0}{1}"
    if 0x2589 <= code <= 0x258F:  # left seven eighths … left one eighth
        return r"\mechblock{0}{" + f"{(0x2590 - code) / 8:.3f}" + "}{0}{1}"
    if 0x2581 <= code <= 0x2587:  # lower one eighth … lower seven eighths
        return r"\mechblock{0}{1}{0}{" + f"{(code - 0x2580) / 8:.3f}" + "}"
    return {"▀": r"\mechblock{0}{1}{0.5}{1}", "▐": r"\mechblock{0.5}{1}{0}{1}",
            "▔": r"\mechblock{0}{1}{0.875}{1}", "▕": r"\mechblock{0.875}{1}{0}{1}",
            "▖": r"\mechblock{0}{0.5}{0}{0.5}", "▗": r"\mechblock{0.5}{1}{0}{0.5}",
            "▘": r"\mechblock{0}{0.5}{0.5}{1}", "▝": r"\mechblock{0.5}{1}{0.5}{1}"}.get(char)


@cache
def replacement(char: str) -> str | None:
    """What stands for ``char`` in the ``.tex``, or ``None`` when this module has nothing."""
    if char in SYMBOLS:
        return SYMBOLS[char]
    if char in _DIAGONALS:
        return _DIAGONALS[char]
    if 0x2500 <= ord(char) <= 0x257F:
        arms = box_arms(char)
        if arms is None:
            return None
        return r"\mechboxdraw" + "".join("{" + str(arms.get(a, 0)) + "}" for a in "LRUD")
    if 0x2580 <= ord(char) <= 0x259F:
        return _block(char)
    return None


def symbol_declarations(text: str) -> list[str]:
    """``\\newunicodechar`` lines for the characters of ``text`` this module replaces."""
    if text.isascii():
        return []
    chars = sorted({ch for ch in text if ord(ch) > 0x7F and replacement(ch) is not None})
    lines = ["\\newunicodechar{" + ch + "}{" + (replacement(ch) or "") + "}" for ch in chars]
    if "\ufffd" in chars:
        lines.insert(chars.index("\ufffd"), LUATEX_REPLACEMENT)
    return lines


LUATEX_REPLACEMENT = (
    "\\ifdefined\\directlua\\directlua{luatexbase.add_to_callback('process_input_buffer',"
    "function(s) return (s:gsub(string.char(239,191,189),string.char(226,141,176))) end,"
    "'mechnb.replacement')}\\fi")
"""LuaTeX reports every U+FFFD it reads as "an invalid utf-8 sequence" (it cannot tell one
written on purpose from its own stand-in for broken input), and the compile fails. Under LuaTeX
this line turns each U+FFFD of the lines read after it into U+2370 (a boxed question mark),
before TeX reads them, so the ``\\newunicodechar`` that follows defines that character instead;
pdfLaTeX and XeLaTeX skip it (``\\directlua`` is LuaTeX's alone)."""
