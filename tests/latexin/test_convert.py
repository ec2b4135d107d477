"""LaTeX → markdown that renders in Jupyter, or ``Unconvertible`` (kept as raw LaTeX)."""

from __future__ import annotations

import pytest
from pylatexenc.latexwalker import LatexWalker

from mechnb.exporter.context import RenderContext
from mechnb.exporter.markdown import render_markdown
from mechnb.latexin.convert import Converter, Unconvertible
from mechnb.latexin.preamble import read_declarations
from mechnb.latexin.reader import _context_db

PREAMBLE = ("\\newcommand{\\ours}{two-step copying}\\newcommand{\\hide}[1]{}"
            "\\newcommand{\\R}{\\mathbb{R}}")


def md(latex: str) -> str:
    text = PREAMBLE + "\n" + latex
    nodes, _, _ = LatexWalker(text, latex_context=_context_db(),
                              tolerant_parsing=True).get_latex_nodes(pos=len(PREAMBLE) + 1)
    return Converter(text, read_declarations(PREAMBLE)).paragraph(nodes).text


@pytest.mark.parametrize(("latex", "markdown"), [
    ("An \\emph{idea}, a {\\bf bold} {\\em move} and \\textbf{more}.",
     "An *idea*, a **bold** *move* and **more**."),
    ("``Quoted''~text --- a dash -- and 50\\% of \\$5 \\& more.",
     "“Quoted”\u00a0text — a dash – and 50% of \\$5 & more."),
    ("Caf\\'e na\\\"ive", "Café naïve"),
    ("See \\citep{a,b} and \\cite{c}, but \\citet{d} and \\citep[p.~2]{e}.",
     # a textual \cite (natbib author-year) stays as written, so it comes back as \cite
     "See [@a; @b] and \\cite{c}, but \\citet{d} and \\citep[p.~2]{e}."),
    ("Before \\cite{k}(see) and \\citep{k}\\footnote{A note.}",
     "Before \\cite{k}(see) and \\citep{k}[^1]\n\n[^1]: A note."),
    ("Math $x_1 < y$ and \\(z\\) and \\[a = b\\]", "Math $x_1 < y$ and $z$ and\n$$\na = b\n$$"),
    ("Our \\ours{} method in $\\R^d$.", "Our two-step copying method in $\\R^d$."),
    ("Code \\texttt{run\\_all} at \\url{https://x.org/a_b}, \\href{https://y.org}{here}.",
     "Code `run_all` at <https://x.org/a_b>, [here](https://y.org)."),
    ("Items:\n\\begin{itemize}\n\\item one\n\\item two\n\\end{itemize}",
     "Items:\n\n- one\n- two"),
    # a description label keeps a citation whole (its "]" is not the label's bracket)
    ("Criteria\n\\begin{description}\n\\item[$c$-optimality~\\citep{e}] minimise it.\n"
     "\\item[Plain] text.\n\\end{description}",
     "Criteria\n\n- **$c$-optimality [@e]** minimise it.\n- **Plain** text."),
    ("Line one\n- not a list\n1. not a number", "Line one\n\\- not a list\n1\\. not a number"),
    ("中文的一行\n接着下一行，English\nnext", "中文的一行接着下一行，English\nnext"),
    ("A * star_and <tag>", "A \\* star\\_and \\<tag>"),
])
def test_converts(latex: str, markdown: str) -> None:
    assert md(latex) == markdown


@pytest.mark.parametrize("latex", [
    "A \\textsc{Small Caps} word",      # no markdown form
    "Text \\hide{kept as written}",     # a macro that hides its argument: the text stays
    "A \\\\ line break",
    "\\begin{tabular}{c} x \\end{tabular}",
])
def test_what_markdown_cannot_say_stays_latex(latex: str) -> None:
    with pytest.raises(Unconvertible):
        md(latex)


def test_the_markdown_exports_back_to_the_same_latex() -> None:
    latex = md("An \\emph{idea} \\citep{a,b} in $x$, see \\cref{thm:main}.")
    assert render_markdown(latex, RenderContext(base_dir=None)) == \
        "An \\emph{idea} \\citep{a,b} in $x$, see \\cref{thm:main}."
