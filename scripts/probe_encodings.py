"""Write ``mechnb/data/latex/unusable-encodings.txt``: the characters whose pylatexenc encoding
does not compile with mechnb's own templates.

``escape_latex`` writes a character of notebook text that the fonts may lack as pylatexenc's
LaTeX for it (``ℋ`` → ``\\ensuremath{\\mathscr{H}}``, ``ə`` → ``\\textschwa``). Some of those
commands come from packages the templates do not load (mathrsfs, tipa, wasysym, mathabx …), or
exist only in an encoding the templates do not use, so one such character stopped the whole
PDF ("Undefined control sequence", "Command \\textschwa unavailable in encoding T1"). The
escaping keeps these characters as they are instead, which is the path every other character
outside the table takes: the font plan sets it under XeLaTeX, and MECH040 / MECH825 say before
pdfLaTeX runs that it cannot (the export then falls back to XeLaTeX).

This script asks TeX: every character the escaping encodes, one per line of a document with the
preamble of an exported paper, compiled with pdfLaTeX and with XeLaTeX; a line TeX stops at is
taken out and the rest compiled again until the document compiles. Run it from a checkout with
TeX Live installed (``make tex``) after upgrading pylatexenc or changing the templates; the test
``test_every_character_the_escaping_encodes_compiles`` compiles the result again.

    python scripts/probe_encodings.py
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET = ROOT / "mechnb" / "data" / "latex" / "unusable-encodings.txt"
HEADER = """\
% Characters whose pylatexenc encoding does not compile with mechnb's templates under pdfLaTeX
% or XeLaTeX (a command of a package the templates do not load, or one that only exists in an
% encoding they do not use). escape_latex keeps them as they are: the font plan sets them under
% XeLaTeX, MECH040 / MECH825 report them for pdfLaTeX. Written by scripts/probe_encodings.py
% (it compiles every encoded character with TeX); do not edit by hand. One code point (hex) per
% line.
"""


def encoded_characters() -> dict[str, str]:
    """Every printable character pylatexenc's table has and the escaping would encode (the
    stored list left out), with its LaTeX."""
    from pylatexenc.latexencode import _uni2latexmap

    from mechnb.tex.escape import encode_with_pylatexenc, needs_encoding

    out = {}
    for point in sorted(_uni2latexmap.uni2latex):
        ch = chr(point)
        if ch.isprintable() and needs_encoding(ch):
            latex = encode_with_pylatexenc(ch)
            if latex != ch:
                out[ch] = latex
    return out


def preamble(folder: Path) -> str:
    """The preamble of a paper mechnb exports (English, the article template)."""
    import json

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "Text."}]}
    path = folder / "probe.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "-o",
                    str(folder / "out"), "--force"], check=False, capture_output=True)
    tex = (folder / "out" / "probe.tex").read_text("utf-8")
    return tex.split("\\begin{document}")[0]


def failing(chars: dict[str, str], head: str, engine: str, folder: Path) -> set[str]:
    """The characters of ``chars`` whose LaTeX stops ``engine``: compile, take out each line TeX
    reports an error at, compile again until none is left."""
    left = dict(chars)
    bad: set[str] = set()
    for _ in range(50):
        order = list(left)
        first = head.count("\n") + 2  # the line of the first character
        body = "".join(f"{left[ch]}\\par\n" for ch in order)
        (folder / "p.tex").write_text(f"{head}\\begin{{document}}\n{body}\\end{{document}}\n",
                                      "utf-8")
        subprocess.run([engine, "-interaction=nonstopmode", "p.tex"], cwd=folder,
                       capture_output=True, check=False)
        log = (folder / "p.log").read_text("utf-8", errors="replace")
        lines = {int(n) for n in re.findall(r"^l\.(\d+) ", log, re.M)}
        now = {order[n - first] for n in lines if 0 <= n - first < len(order)}
        if not now:
            if "!" in "".join(line[:1] for line in log.splitlines()):
                raise RuntimeError(f"{engine}: an error at no character's line; see {folder}")
            return bad
        bad |= now
        for ch in now:
            del left[ch]
    raise RuntimeError(f"{engine}: still failing after 50 rounds")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        chars = encoded_characters()
        head = preamble(folder)
        bad: set[str] = set()
        for engine in ("pdflatex", "xelatex"):
            found = failing(chars, head, engine, folder)
            sys.stderr.write(f"{engine}: {len(found)} of {len(chars)} encodings fail\n")
            bad |= found
    TARGET.write_text(HEADER + "".join(f"{ord(ch):04X}\n" for ch in sorted(bad)), "utf-8")
    sys.stderr.write(f"wrote {len(bad)} characters to {TARGET}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
