"""Issue 35: an imported paper is read as TeX reads it — a ``%`` in a ``\\url``/``\\href``
target is part of the address, labels may hold spaces, and a paper's theorems declared with
LaTeX's own ``\\newtheorem`` survive mechnb's amsthm, and an environment the body defines around
``\\begin{minipage}`` does not swallow the rest. Hand-written papers (not copied)."""

from __future__ import annotations

import json
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.tex.comments import comment_spans, comment_start, mask_comments
from mechnb.tex.escape import is_safe_label, is_safe_name

HAS_TEX = bool(shutil.which("pdflatex") and shutil.which("latexmk") and shutil.which("pdftotext"))

PAPER = r"""\documentclass{article}
\usepackage{amsmath}
\usepackage{hyperref}
\newtheorem{definition}{Definition}
\begin{document}
\section{Setting}\label{sec:the setting}
The course notes are \href{http://notes.example.org/%D0%A3%D1%80_(2023)}{online}; the data
is at \url{http://data.example.org/a%20b}. % a comment the co-authors left
See Section~\ref{sec:the setting}, Eq.~\eqref{eq:first step} and Definition~\ref{def:a copy}.
\begin{equation}\label{eq:first step}
x_{t+1} = x_t + \eta g_t
\end{equation}
\begin{definition}\label{def:a copy}
A head copies when its output repeats an earlier token.
\end{definition}
\newenvironment{resultblock}{\par\noindent\begin{minipage}{\linewidth}}{\end{minipage}\par}
\section{Result}\label{sec:result}
\begin{resultblock}
The copying head forms first.
\end{resultblock}
\end{document}
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_percent_in_a_url_is_not_a_comment() -> None:
    line = r"see \href{http://x.org/%D0%A3}{here} and \url{a%b} % a comment"
    assert mask_comments(line) == line.replace("% a comment", " " * len("% a comment"))
    assert comment_spans(line) == [(line.index("% a"), len(line))]
    assert comment_start(line, line.index("here")) is None
    # an escaped brace or a line end closes nothing: the % there is a comment again
    assert comment_spans("\\url{a\n%b}") == [(7, 10)]


def test_labels_may_hold_spaces_but_citation_keys_may_not() -> None:
    assert is_safe_label("sec:the setting") and is_safe_label("eq:a b c")
    for bad in (" sec:x", "sec:x ", "a  b", "a%b", "a,b", "a}b", "a~b", ""):
        assert not is_safe_label(bad), bad
    assert not is_safe_name("olsson 2022")


@pytest.fixture()
def imported(tmp_path: Path) -> tuple[Path, dict]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.tex").write_text(PAPER, "utf-8")
    out = tmp_path / "nb" / "paper.ipynb"
    code, text, err = run("import", str(src / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    return out, json.loads(out.read_text("utf-8"))


def test_the_import_reads_urls_and_labels_as_tex_does(imported: tuple[Path, dict]) -> None:
    out, nb = imported
    text = "\n".join(c["source"] for c in nb["cells"])
    assert "[online](http://notes.example.org/%D0%A3%D1%80_(2023))" in text
    assert "a comment the co-authors left" not in text
    # read on past the url and past the body's \newenvironment, whose lone \begin{minipage}
    # swallowed the rest of the paper
    assert "The copying head forms first." in text
    labels = {c["metadata"].get("mechnb", {}).get("label") for c in nb["cells"]}
    assert {"sec:the setting", "def:a copy", "sec:result"} <= labels
    assert "\\label{eq:first step}" in text
    _code, report, _err = run("check", str(out))
    assert "MECH030" not in report and "MECH814" not in report, report
    template = (out.parent / "paper.template.tex").read_text("utf-8")
    assert template.index("RequirePackage{amsthm}") < template.index("\\newtheorem{definition}")


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live (pdflatex, latexmk, pdftotext) not installed")
def test_labels_with_spaces_and_the_papers_theorems_compile(
        imported: tuple[Path, dict]) -> None:
    out, _nb = imported
    code, text, err = run("export", str(out), "--pdf")  # approved by the import
    pdf = out.parent / "build" / "paper" / "paper.pdf"
    assert code == 0 and pdf.exists(), text + err
    assert "MECH814" not in text + err
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    assert "See Section 1, Eq. (1) and Definition 1." in " ".join(words.split())
    assert "Definition 1." in words and "A head copies" in words
    assert "The copying head forms first." in words


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live (pdflatex, latexmk, pdftotext) not installed")
def test_a_definition_numbered_with_the_theorems_compiles(tmp_path: Path) -> None:
    # the paper's definition shares the theorem counter, so there is no counter `definition`
    # for mechnb's own environments (assumption, claim…) to share
    src = tmp_path / "src"
    src.mkdir()
    (src / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amsmath,amsthm}\n"
        "\\newtheorem{theorem}{Theorem}\n\\newtheorem{definition}[theorem]{Definition}\n"
        "\\begin{document}\n\\section{Setting}\n\\begin{definition}\\label{def:head}\n"
        "A head copies.\n\\end{definition}\n\\begin{theorem}\\label{thm:order}\n"
        "Heads form in order.\n\\end{theorem}\n\\end{document}\n", "utf-8")
    out = tmp_path / "nb" / "paper.ipynb"
    code, text, err = run("import", str(src / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    code, text, err = run("export", str(out), "--pdf")
    pdf = out.parent / "build" / "paper" / "paper.pdf"
    assert code == 0 and pdf.exists(), text + err
    words = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                                    text=True, check=True).stdout.split())
    assert "Definition 1. A head copies." in words and "Theorem 2. Heads form in order." in words


def test_an_eps_figure_is_named_with_the_way_out(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "fig.eps").write_text("%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "utf-8")
    (src / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\nText.\n"
        "\\begin{figure}\n\\includegraphics{fig.eps}\n\\caption{A figure.}\\label{fig:a}\n"
        "\\end{figure}\n\\end{document}\n", "utf-8")
    code, text, err = run("import", str(src / "main.tex"), "-o", str(tmp_path / "nb" / "p.ipynb"),
                          "--yes")
    assert code == 0, text + err
    line = next(x for x in text.splitlines() if "fig.eps" in x)
    assert "main.tex:6:" in line and "EPS figure" in line and "epstopdf" in line, line
