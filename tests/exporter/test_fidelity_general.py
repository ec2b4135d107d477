"""What JupyterLab renders, the PDF prints (issue 34): the font plan for every script, MathJax's
bare environments, HTML in markdown, and the messages after an engine fallback.

Small hand-written fixtures; the two compiles check the PDF's text with pdftotext."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from mechnb.exporter.api import render
from mechnb.exporter.context import RenderContext
from mechnb.exporter.markdown import render_markdown
from mechnb.exporter.outputs import kernel_latex
from mechnb.notebook import paper_from_dict
from mechnb.tex.fontplan import font_plan, plan_preamble

from .conftest import export_pdf_text, markdown_notebook, needs_tex

SCRIPTS = {  # one short line per script family, written for this test
    "Cyrillic": "Модель учится быстро",
    "Greek": "Το μοντέλο μαθαίνει",
    "Hebrew": "המודל לומד",
    "Arabic": "النموذج يتعلم",
    "Devanagari": "मॉडल सीखता",
    "Thai": "โมเดลเรียนรู้",
}
EMOJI = "\U0001F680"


def _letters(text: str) -> str:
    """``text`` as pdftotext's order can be compared: Arabic's presentation forms folded
    (NFKC), combining marks and vowel signs left out (reported in visual order, after a
    base or a full stop)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text)
                   if not unicodedata.category(ch).startswith("M"))


def _fonts_for(text: str) -> bool:
    plan = font_plan(text)
    return bool(plan.families) and not plan.missing


# --------------------------------------------------------------------------- the font plan


def test_the_plan_gives_each_script_an_installed_font_and_latin_stays() -> None:
    plan = font_plan("plain Latin, café naïve — “quotes”")
    assert plan.families == () and plan.missing == ""
    if not _fonts_for("".join(SCRIPTS.values()) + EMOJI):
        pytest.skip("the Noto/Symbola fonts of `make tex` are not installed")
    plan = font_plan("".join(SCRIPTS.values()) + EMOJI)
    placed = "".join(chars for _, chars in plan.families)
    assert all(ch in placed for text in SCRIPTS.values() for ch in text if ch.isalpha())
    assert EMOJI in placed
    preamble = plan_preamble(plan)
    assert "\\ifXeTeX" in preamble and "Script=Arabic" in preamble
    assert "\\XeTeXinterchartoks" in preamble


def test_a_character_in_no_font_is_one_finding_per_cell_naming_its_script() -> None:
    nb = markdown_notebook("Intro.", "Melts \U0001FAE0 and \U0001FAE0 again.", engine="xelatex")
    if font_plan("\U0001FAE0").missing != "\U0001FAE0":
        pytest.skip("a font here has U+1FAE0")
    result = render(paper_from_dict(nb))
    [finding] = [f for f in result.findings if f.code == "MECH835"]
    assert finding.cell == 1 and finding.severity.value == "warning"
    assert "symbols/emoji" in finding.message and "\U0001FAE0" in finding.message


@pytest.mark.tex
@needs_tex()
def test_every_script_is_printed(tmp_path: Path) -> None:
    if not _fonts_for("".join(SCRIPTS.values()) + EMOJI):
        pytest.skip("the Noto/Symbola fonts of `make tex` are not installed")
    cells = [f"{name}: {text}." for name, text in SCRIPTS.items()]
    cells.append(f"Launch {EMOJI} and **жирный** and `код`.")
    err, text = export_pdf_text(tmp_path, "scripts", markdown_notebook("# Scripts", *cells))
    seen = _letters(text)
    for name, line in SCRIPTS.items():
        for word in line.split():
            assert _letters(word) in seen, (name, word)
    assert EMOJI in text and "жирный" in text and "код" in text
    assert "MECH821" not in err and "MECH835" not in err  # nothing lost
    assert "pdfLaTeX cannot typeset" not in err  # the paper compiled with XeLaTeX
    assert " error pdflatex-unsupported-character" not in err


def test_after_the_fallback_unsupported_characters_are_warnings_for_arxiv() -> None:
    nb = markdown_notebook("Hebrew: " + SCRIPTS["Hebrew"])
    fallen = render(paper_from_dict(nb))
    assert fallen.engine == "xelatex"
    said = [f for f in fallen.findings if f.code == "MECH825"]
    assert said and all(f.severity.value == "warning" for f in said)
    assert all("arXiv's pdfLaTeX would" in f.message and "cannot typeset" not in f.message
               for f in said)
    chosen = render(paper_from_dict(markdown_notebook("Hebrew: " + SCRIPTS["Hebrew"],
                                                      engine="pdflatex")))
    assert chosen.engine == "pdflatex"
    assert {f.severity.value for f in chosen.findings if f.code == "MECH825"} == {"error"}


def test_a_greek_word_is_text_and_a_lone_greek_letter_a_symbol() -> None:
    from mechnb.tex.escape import escape_latex

    assert escape_latex("Καλημέρα, the α value") == "Καλημέρα, the {\\ensuremath{\\alpha}} value"
    assert escape_latex("Привет") == "Привет"  # no T2A commands an encoding lacks


# --------------------------------------------------------------------------- MathJax semantics


def test_bare_environments_are_display_math() -> None:
    ctx = RenderContext(cell=0)
    out = render_markdown("A matrix:\n\n\\begin{bmatrix}1 & 2\\\\ 3 & 4\\end{bmatrix}\n\n"
                          "Cases:\n\\begin{cases} x & x>0 \\\\ 0 & \\text{else}\\end{cases}\n\n"
                          "\\begin{align}a &= b\\end{align}", ctx)
    assert "\\[\\begin{bmatrix}1 & 2\\\\ 3 & 4\\end{bmatrix}\\]" in out
    assert "\\[\\begin{cases}" in out and "\\end{cases}\\]" in out
    assert "\\begin{align}a &= b\\end{align}" in out and "\\[\\begin{align}" not in out
    assert kernel_latex("\\begin{pmatrix}1\\\\2\\end{pmatrix}") == \
        "\\[\\begin{pmatrix}1\\\\2\\end{pmatrix}\\]"
    assert kernel_latex("$x$ and \\begin{pmatrix}1\\end{pmatrix}") == \
        "$x$ and \\begin{pmatrix}1\\end{pmatrix}"  # not one bare environment: as written


def test_inline_math_spanning_lines_stays_one_formula() -> None:
    ctx = RenderContext(cell=0)
    out = render_markdown("Gradient $g =\n\\begin{pmatrix} a \\\\ b\\end{pmatrix}\n$ here.", ctx)
    assert "$g =\n\\begin{pmatrix} a \\\\ b\\end{pmatrix}\n$" in out
    split = render_markdown("So $a = \\begin{split} b \\\\\n&= c\\end{split}$ holds.", ctx)
    assert "\\[a = \\begin{split} b \\\\\n&= c\\end{split}\\]" in split  # display only


# --------------------------------------------------------------------------- HTML in markdown

HTML = """<h2 align="center">A titled part</h2>
<div class="alert alert-info"><b>Note:</b> see <a href="https://example.org">the site</a>.<br>
x<sup>2</sup> and H<sub>2</sub>O</div>

<p dir="rtl">טקסט מימין לשמאל</p>

<table><tr><th>Name</th><th>Value</th></tr><tr><td>rate</td><td>3 &amp; 4</td></tr></table>

<ul><li>first point</li><li>second <i>point</i></li></ul>

Inline <strong>strong</strong> and <blink>kept text</blink>.

<br/><br/>"""


def test_html_blocks_are_converted_and_keep_their_text() -> None:
    ctx = RenderContext(cell=3)
    out = render_markdown(HTML, ctx)
    assert "\\subsection{A titled part}" in out
    assert "\\textbf{Note:} see \\href{https://example.org}{the site}.\\newline{}" in out
    assert "x\\ensuremath{^{\\text{2}}}" in out and "H\\ensuremath{_{\\text{2}}}O" in out
    assert "\\begin{flushright}\nטקסט מימין לשמאל\n\\end{flushright}" in out
    assert "\\textbf{Name} & \\textbf{Value} \\\\" in out and "rate & 3 \\& 4 \\\\" in out
    assert "\\item first point" in out and "\\item second \\emph{point}" in out
    assert "Inline \\textbf{strong} and kept text." in out
    assert "<" not in out
    [finding] = ctx.findings
    assert finding.code == "MECH803" and finding.cell == 3 and "<blink>" in finding.message


@pytest.mark.tex
@needs_tex()
def test_math_and_html_compile_with_their_text(tmp_path: Path) -> None:
    nb = markdown_notebook(
        "# Fidelity", HTML.replace("<p dir=\"rtl\">טקסט מימין לשמאל</p>", ""),
        "A matrix:\n\n\\begin{bmatrix}11 & 12\\\\ 13 & 14\\end{bmatrix}\n\nafter it.",
        "Gradient $g =\n\\begin{pmatrix} a \\\\ b\\end{pmatrix}\n$ here.",
        "So $a = \\begin{split} b \\\\\n&= c\\end{split}$ holds.")
    err, text = export_pdf_text(tmp_path, "fidelity", nb)
    for phrase in ("A titled part", "the site", "first point", "kept text", "rate", "Value",
                   "after it.", "here.", "holds."):
        assert phrase in text, phrase
    assert "11" in text and "14" in text
    assert "MECH834" not in err  # no formula had to be printed as code


# --------------------------------------------------------------------------- outputs


def _png() -> str:
    """A valid 2×2 grey PNG, base64 (made here, no file)."""
    import base64
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    raw = b"".join(b"\x00" + b"\x80\x80" for _ in range(2))
    blob = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return base64.b64encode(blob).decode("ascii")


def _code_notebook() -> dict[str, object]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# Run"},
        {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1,
         "source": "plot()", "outputs": [
             {"output_type": "display_data", "metadata": {}, "data": {
                 "image/png": _png(), "text/plain": "<Figure>"}},
             {"output_type": "display_data", "metadata": {}, "data": {
                 "application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                 "text/plain": "progress 10/10 done"}}]}]}


def test_shown_code_prints_its_outputs_images_inline_and_unnumbered() -> None:
    shown = render(paper_from_dict(_code_notebook()), include_code=True).latex
    assert "\\includegraphics[width=" in shown and "cell1-output1.png" in shown
    assert "\\begin{figure}" not in shown  # no number: figures belong to figure cells
    assert "progress 10/10 done" in shown  # the widget's text/plain fallback
    hidden = render(paper_from_dict(_code_notebook())).latex
    assert "includegraphics" not in hidden and "progress" not in hidden


def test_the_formula_as_code_fallback_takes_the_formula_over_every_line() -> None:
    from mechnb.exporter.fallback import formula_as_code

    tex = ("\\documentclass{article}\n\\begin{document}\n\nText $a =\n\\weird{x}\n+ b$ and $c$."
           "\n\nNext $d$.\n\\end{document}\n")
    patched = formula_as_code(tex, 5)  # TeX reports the middle line of the formula
    assert patched is not None
    new, replaced = patched
    assert "Text \\texttt{\\$a = \\textbackslash{}weird\\{x\\} + b\\$} and $c$." in new
    assert "Next $d$." in new and replaced.first_line == 4


# --------------------------------------------------------------------------- nbformat 3


def test_an_nbformat3_notebook_is_read_without_importing_nbformat() -> None:
    import subprocess
    import sys

    from .conftest import REPO

    fixture = REPO / "tests" / "fixtures" / "foreign" / "nbformat3.ipynb"
    probe = ("import sys\nfrom mechnb.notebook import read_paper\n"
             f"p = read_paper({str(fixture)!r})\n"
             "print(len(p.cells), 'nbformat' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    count, imported = done.stdout.split()
    assert int(count) > 0 and imported == "False"  # nbformat's import costs seconds


def test_the_nbformat3_upgrade_matches_nbformats() -> None:
    import json

    nbformat = pytest.importorskip("nbformat")
    from nbformat.reader import reads

    from mechnb.notebook import _upgrade_v3, _with_v3_defaults

    from .conftest import REPO

    for name in ("nbformat3.ipynb", "nbformat3_no_metadata.ipynb"):
        nb = json.loads((REPO / "tests" / "fixtures" / "foreign" / name).read_text("utf-8"))
        mine = _upgrade_v3(nb)
        theirs = json.loads(json.dumps(nbformat.convert(reads(json.dumps(_with_v3_defaults(nb))),
                                                        4)))
        assert mine is not None
        assert [(c["cell_type"], c["source"], [o["output_type"] for o in c.get("outputs", [])],
                 [sorted(o.get("data", {})) for o in c.get("outputs", [])])
                for c in mine["cells"]] == \
            [(c["cell_type"], c["source"], [o["output_type"] for o in c.get("outputs", [])],
              [sorted(o.get("data", {})) for o in c.get("outputs", [])])
             for c in theirs["cells"]]


def test_a_command_as_a_bare_subscript_gets_its_braces() -> None:
    ctx = RenderContext(cell=0)
    out = render_markdown("$\\nabla_\\boldsymbol{\\theta} J + x^\\frac{1}{2} + y_\\mathbf x$", ctx)
    assert out == "$\\nabla_{\\boldsymbol{\\theta}} J + x^{\\frac{1}{2}} + y_\\mathbf x$"


@needs_tex()
def test_leaving_a_font_class_never_entered_changes_nothing(tmp_path: Path) -> None:
    """XeTeX can fire a class's "leave" tokens without its "enter" ones (a shared-corpus
    notebook's output did, in a Verbatim line): leaving must then keep the current font, not
    stop on an undefined ``\\mech@prevfamily``."""
    import subprocess

    plan = font_plan("a ‣ b")
    assert plan.families
    doc = ("\\documentclass{article}\n\\usepackage{fontspec}\n" + plan_preamble(plan)
           + "\\begin{document}\n\\makeatletter\\mech@leave\\makeatother plain text ‣ then"
           " more\n\\begin{verbatim}\n‣.‣ in a verbatim line\n\\end{verbatim}\n"
           "\\end{document}\n")
    (tmp_path / "leave.tex").write_text(doc, "utf-8")
    done = subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error",
                           "leave.tex"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-1500:]
    assert (tmp_path / "leave.pdf").exists()


def test_a_link_that_shows_its_address_breaks_like_a_url() -> None:
    """Fresh real papers: \\url{…} in a footnote imports as <https://…>, which was exported as
    \\href{…}{…} with the address as escaped text: a long address cannot break and ran off the
    page. Written as \\url it breaks as the url package breaks it; a named link stays \\href."""
    ctx = RenderContext(cell=0)
    out = render_markdown(
        "Slides: <https://example.org/presentation/d/a_long_identifier%20with#part>; "
        "the [project page](https://example.org/p_q) and <mailto:ada@example.org>.", ctx)
    assert "\\url{https://example.org/presentation/d/a_long_identifier\\%20with\\#part}" in out
    assert "\\href{https://example.org/p_q}{project page}" in out
    assert "\\href{mailto:ada@example.org}{" in out
    assert not ctx.findings
