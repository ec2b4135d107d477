"""Markdown nobody here wrote for mechnb: the CommonMark specification's 655 examples, and every
character the text escaping encodes, exported to a PDF that keeps their text.

The examples come from ``../shared/corpus/commonmark/spec.txt`` (skipped where it is absent);
each is one markdown cell of one notebook, exported with the real CLI and compiled. What a
browser shows of an example's expected HTML (its text outside tags, ``<script>`` and
``<style>``) must be in the PDF.
"""

from __future__ import annotations

import html
import re
import unicodedata
from pathlib import Path

import pytest

from .conftest import REPO, export_pdf_text, markdown_notebook, needs_tex

SPEC = REPO.parent / "shared" / "corpus" / "commonmark" / "spec.txt"
_EXAMPLE = re.compile(r"^`{32} example\n(.*?)^\.\n(.*?)^`{32}$", re.M | re.S)
_HIDDEN = re.compile(r"<(script|style)\b.*?</\1>|<[^>]*>", re.S | re.I)


def _examples() -> list[tuple[str, str]]:
    if not SPEC.is_file():
        pytest.skip(f"the CommonMark specification is not at {SPEC}")
    text = SPEC.read_text("utf-8")
    return [(m.group(1).replace("→", "\t"), m.group(2).replace("→", "\t"))
            for m in _EXAMPLE.finditer(text)]


def _flat(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("-\n", "").replace("\n", " ")


@needs_tex()
def test_every_commonmark_example_exports_and_compiles_with_its_text(tmp_path: Path) -> None:
    examples = _examples()
    assert len(examples) == 655
    stderr, text = export_pdf_text(tmp_path, "commonmark", markdown_notebook(
        "# CommonMark examples", *(source for source, _ in examples)))
    assert "MECH810" not in stderr and "TeX error" not in stderr
    shown = _flat(text)
    words = missing = 0
    lost: list[tuple[int, str]] = []
    for n, (_, expected) in enumerate(examples, 1):
        for word in re.findall(r"[A-Za-z]{3,}", _flat(html.unescape(_HIDDEN.sub(" ", expected)))):
            words += 1
            if word not in shown:
                missing += 1
                lost.append((n, word))
    # what is left out: an attribute value an example puts in a tag that never closes, and a
    # paragraph inside an HTML table's <pre> (examples 148 and 618)
    assert words > 1000 and missing <= 5, lost


NAMED = "→ ≤ ± × ° α ∞ ∑ ≈ ∈"
"""Symbols the escaping writes as LaTeX in both engines."""


@needs_tex()
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_every_character_the_escaping_encodes_compiles(tmp_path: Path, engine: str) -> None:
    """pylatexenc's LaTeX for some characters needs packages the templates do not load
    (``data/latex/unusable-encodings.txt``), and one such character stopped the whole PDF.
    Every character of pylatexenc's table that the escaping writes as LaTeX is in one paper,
    compiled with pdfLaTeX (no fallback to XeLaTeX); with XeLaTeX, the characters it keeps as
    they are (the font plan sets them) are in the paper too."""
    from pylatexenc.latexencode import _uni2latexmap

    from mechnb.tex.escape import escape_latex, needs_encoding

    table = [chr(p) for p in sorted(_uni2latexmap.uni2latex)
             if chr(p).isprintable() and needs_encoding(chr(p))]
    encoded = [ch for ch in table if escape_latex(ch) != ch]
    kept = [ch for ch in table if escape_latex(ch) == ch]
    assert len(encoded) > 800 and "ℋ" in kept and "ə" in kept
    chars = encoded if engine == "pdflatex" else table
    lines = [" ".join(chars[i:i + 24]) for i in range(0, len(chars), 24)]
    stderr, text = export_pdf_text(tmp_path, "symbols", markdown_notebook(
        "# Symbols", f"Named: {NAMED}.", *lines, engine=engine))
    assert "MECH810" not in stderr and "TeX error" not in stderr
    assert f"running {engine}" in stderr and ("xelatex" not in stderr) == (engine == "pdflatex")
    assert "Named:" in text
