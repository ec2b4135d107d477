"""Importing and checking a LaTeX paper reads only safe files, stays bounded, and confers no
trust the user did not see (issue 32: "Outside the gate", "Import robustness", "Import confers
no trust it cannot see").

The paper's files are read in Python before any sandbox, so what is refused here is refused with
or without bubblewrap: files outside the paper's folder (``..`` or a symbolic link), FIFOs and
devices (a reader would wait on them forever). Deep nesting is a finding, not a
``RecursionError``; reading definitions is linear in the input; and what needs review is
approved only when the user says so (``--yes``, or ``y`` on a terminal).
"""

from __future__ import annotations

import json
import os
import re
import sys
from io import StringIO
from pathlib import Path

import pytest
from growth import assert_linear

from mechnb.cli import main
from mechnb.latexin import reader
from mechnb.latexin.reader import MAX_NESTING, RUN, _marked, read_latex
from mechnb.latexin.source import load_source
from mechnb.notebook import read_paper
from mechnb.tex.gate import assess
from mechnb.tex.trust import approved_digests, record_path, unapproved

SECRET = "SECRET-7f3a9c"


@pytest.fixture(autouse=True)
def own_record_key(tmp_path_factory: pytest.TempPathFactory,
                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The key that seals the approval record lives in this test's ``XDG_CACHE_HOME`` (the
    record itself in its ``XDG_DATA_HOME``: ``conftest.approvals_of_this_test``)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def refused_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "MECH874" in line]


def files_under(folder: Path) -> list[Path]:
    return [Path(root) / name for root, _dirs, names in os.walk(folder) for name in names]


# ------------------------------------------------------------------ files outside the folder
def test_nothing_outside_the_paper_folder_reaches_the_notebook_or_its_files(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "refs.bib").write_text("@article{k, title={" + SECRET + " bib}}\n")
    (outside / "img.png").write_text(SECRET + " image")
    (outside / "secret.tex").write_text(SECRET + " input\n")
    (outside / "neurips_2024.sty").write_text("% " + SECRET + " style\n")
    paper = tmp_path / "paper"
    (paper / "figs").mkdir(parents=True)
    (paper / "figs" / "a.png").symlink_to(outside / "img.png")
    (paper / "figs" / "b.png").write_bytes(b"\x89PNG inside the folder")
    (paper / "sec.tex").symlink_to(outside / "secret.tex")
    (paper / "neurips_2024.sty").symlink_to(outside / "neurips_2024.sty")
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{neurips_2024}\n\\begin{document}\n"
        "\\section{Introduction}\nWe cite \\cite{k}.\n\n\\input{sec}\n\n"
        "\\begin{figure}\\includegraphics{figs/a}\\caption{Outside.}\\end{figure}\n\n"
        "\\begin{figure}\\includegraphics{figs/b}\\caption{Inside.}\\end{figure}\n\n"
        "\\bibliography{../outside/refs}\n\\end{document}\n")
    out = tmp_path / "out"
    code, text, err = run("import", str(paper / "main.tex"), "-o", str(out / "p.ipynb"),
                          "--yes")
    assert code == 0, err
    assert (out / "figs" / "b.png").read_bytes() == b"\x89PNG inside the folder"  # copied
    written = files_under(out)
    assert len(written) >= 3  # the notebook, its template, the inside figure
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in text + err
    refused = "\n".join(refused_lines(text))
    for name in ("figs/a.png", "../outside/refs.bib", "\\input{sec}", "neurips_2024.sty"):
        assert name in refused, (name, text)
    style = json.loads((out / "p.ipynb").read_text())["metadata"]["mechnb"].get("style", {})
    assert "package" not in style  # the refused venue style is not used (the class is kept)

    code, text, err = run("check", str(paper / "main.tex"))
    assert SECRET not in text + err
    assert "../outside/refs.bib" in "\n".join(refused_lines(text))


# ------------------------------------------------------------------ FIFOs never block
@pytest.mark.timeout(60)
def test_fifos_named_by_the_paper_are_refused_not_waited_on(tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    (paper / "figs").mkdir(parents=True)
    for name in ("inp.tex", "fifo.bib", "main.bbl", "figs/f.png", "notes.tex"):
        os.mkfifo(paper / name)  # notes.tex: a candidate main file when the folder is given
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\section{Introduction}\n"
        "We cite \\cite{k}.\n\n\\input{inp}\n\n"
        "\\begin{figure}\\includegraphics{figs/f}\\caption{A pipe.}\\end{figure}\n\n"
        "\\bibliography{fifo}\n\\end{document}\n")
    code, text, err = run("import", str(paper), "-o", str(tmp_path / "out" / "p.ipynb"),
                          "--yes")
    assert code == 0, err
    refused = "\n".join(refused_lines(text))
    for name in ("\\input{inp}", "fifo.bib", "main.bbl", "figs/f.png"):
        assert name in refused, (name, text)
    assert "not a regular file" in refused
    code, text, err = run("check", str(paper))
    assert "fifo.bib" in "\n".join(refused_lines(text)), text + err
    code, _text, err = run("import", str(paper / "inp.tex"), "-o", str(tmp_path / "x.ipynb"))
    assert code == 1 and "not a regular file" in err  # the main file itself


@pytest.mark.timeout(60)
def test_a_notebook_whose_bibliography_is_a_fifo_is_checked_without_waiting(
        tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "refs.bib")
    nb = {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {},
                     "source": "As shown by [@k], it holds."}],
          "metadata": {"mechnb": {"bibliography": "refs.bib"}}, "nbformat": 4,
          "nbformat_minor": 5}
    (tmp_path / "p.ipynb").write_text(json.dumps(nb))
    _code, text, _err = run("check", str(tmp_path / "p.ipynb"))
    assert "refs.bib" in text  # MECH016: the .bib cannot be used


# ------------------------------------------------------------------ robustness
@pytest.mark.parametrize("body", [
    "{" * 200_000 + "x" + "}" * 200_000,
    "\\begin{itemize}\\item " * 5_000 + "x" + "\\end{itemize}" * 5_000,
    "$\\frac{" * 3_000 + "x",
], ids=["braces", "environments", "unclosed"])
def test_deep_nesting_is_a_finding_and_the_text_is_kept(tmp_path: Path, body: str) -> None:
    paper = tmp_path / "deep.tex"
    paper.write_text("\\documentclass{article}\n\\title{" + "{" * 50_000 + "}\n"
                     "\\begin{document}\n" + body + "\n\\end{document}\n")
    code, text, err = run("import", str(paper), "-o", str(tmp_path / "o" / "deep.ipynb"))
    assert code == 0, err
    assert "MECH872" in text and f"more than {MAX_NESTING} levels deep" in text
    nb = json.loads((tmp_path / "o" / "deep.ipynb").read_text())
    assert nb["cells"][-1]["cell_type"] == "raw" and "x" in nb["cells"][-1]["source"]
    code, text, err = run("check", str(paper))
    assert code in (0, 1) and "Traceback" not in err and "MECH872" in text


def test_nesting_below_the_limit_is_still_taken_apart(tmp_path: Path) -> None:
    depth = MAX_NESTING - 10  # deeper than Python's default recursion limit allows pylatexenc
    paper = tmp_path / "p.tex"
    paper.write_text("\\documentclass{article}\n\\begin{document}\nText $" + "{" * depth + "x"
                     + "}" * depth + "$ more.\n\n" + "\\textbf{" * depth + "y" + "}" * depth
                     + "\n\\end{document}\n")
    latex = read_latex(paper)
    assert not latex.problems
    assert [b.kind for b in latex.blocks] == ["markdown", "markdown"]
    assert sys.getrecursionlimit() < 5_000  # put back


SHAPES = {  # preamble unit, body unit, units in the smaller input (16 times more in the larger)
    "unfinished \\newcommand": ("\\newcommand{", "", 400),
    "unclosed options": ("\\usepackage[", "", 400),
    "escaped percent signs and conditionals on one line": ("", "x\\%y\\iffalse ", 400),
    "definitions and their uses": ("\\newcommand{\\cb}{\\begin{center}}\\def\\ce{\\end{center}}",
                                   "\\cb x \\ce \\be y \\ee ", 100),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_reading_a_paper_is_linear_in_its_length(tmp_path: Path, shape: str) -> None:
    preamble, body, size = SHAPES[shape]
    paths: dict[int, Path] = {}

    def work(n: int) -> None:
        if n not in paths:
            paths[n] = tmp_path / f"p{n}.tex"
            paths[n].write_text(
                "\\documentclass{article}\n\\newcommand{\\be}{\\begin{equation}}"
                "\\newcommand{\\ee}{\\end{equation}}\n" + preamble * n
                + "\n\\begin{document}\n" + body * n + "\n\\end{document}\n")
        read_latex(paths[n])

    assert_linear(work, size, shape)


def test_a_long_stretch_of_plain_text_reaches_pylatexenc_in_short_stretches(
        tmp_path: Path) -> None:
    """pylatexenc reads a stretch of characters in time quadratic in its length (1 MB without a
    command: 25 s); the reader breaks every stretch longer than ``RUN`` with a mark it undoes."""
    prose = "Plain words of a long paragraph, without a single command. " * 4_000  # 236 kB
    paper = tmp_path / "p.tex"
    paper.write_text("\\documentclass{article}\n\\begin{document}\n" + prose
                     + "\n\\end{document}\n")
    text = paper.read_text()
    marked, marks = _marked(text, 0, len(text))
    assert len(marked) == len(text) and len(marks) > 100
    assert max(map(len, re.split(r"[\\{}$%&~]", marked))) <= RUN + 200
    latex = read_latex(paper)
    assert [b.source for b in latex.blocks] == [prose.strip()]  # every mark undone


@pytest.mark.parametrize("paper", ["copying", "zh"])
def test_the_marks_change_nothing_the_reader_finds(monkeypatch: pytest.MonkeyPatch,
                                                   paper: str) -> None:
    folder = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / paper

    def seen() -> list[tuple[object, ...]]:
        latex = read_latex(folder)
        return [(b.kind, b.source, b.role, b.label, b.title, b.caption, b.start, b.end)
                for b in latex.blocks]

    plain = seen()
    monkeypatch.setattr(reader, "RUN", 8)  # a mark every few words, in text, math, arguments
    text = load_source(folder).text
    assert len(_marked(text, 0, len(text))[1]) > 40
    assert seen() == plain


# ------------------------------------------------------------------ the approval step
APPROVAL_PAPER = (
    "\\documentclass{article}\n\\usepackage{bm}\n\\newcommand{\\vect}[1]{\\bm{#1}}\n"
    "\\begin{document}\n\\section{Introduction}\nWe study $\\vect{x}$.\n\n"
    "\\begin{tikzpicture}\\draw (0,0) -- (1,1);\\end{tikzpicture}\n\n"
    "\\input{/etc/passwd}\n\\end{document}\n")


def _import(tmp_path: Path, *extra: str) -> tuple[Path, str]:
    (tmp_path / "paper").mkdir(exist_ok=True)
    (tmp_path / "paper" / "main.tex").write_text(APPROVAL_PAPER)
    out = tmp_path / "nb" / "p.ipynb"
    code, text, err = run("import", str(tmp_path / "paper" / "main.tex"), "-o", str(out),
                          "--force", *extra)
    assert code == 0, err
    return out, text


def test_without_a_terminal_and_without_yes_nothing_is_approved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", StringIO("y\n"))  # not a terminal: never asked
    out, text = _import(tmp_path)
    verdict = assess(read_paper(out))
    pending = unapproved(verdict)
    assert pending and len(pending) == len(verdict.review)
    assert not approved_digests() and not record_path().exists()
    for item in pending:
        assert item.digest[:12] in text  # listed with its digest
    assert "Approve these" not in text
    assert f"mechnb trust {out}" in text and "--yes" in text


def test_yes_approves_what_was_listed_and_never_what_is_refused(tmp_path: Path) -> None:
    out, text = _import(tmp_path, "--yes")
    verdict = assess(read_paper(out))
    assert verdict.review and not unapproved(verdict)
    assert verdict.refused  # \input{/etc/passwd}: reported, never approved
    assert "MECH022" in text and "approved" in text
    assert {item.digest for item in verdict.review} == approved_digests()


@pytest.mark.parametrize("answer", ["y", "n"])
def test_on_a_terminal_the_user_is_asked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             answer: str) -> None:
    master, slave = os.openpty()
    try:
        stdin = os.fdopen(slave, "r")
        assert stdin.isatty()
        monkeypatch.setattr(sys, "stdin", stdin)
        os.write(master, (answer + "\n").encode())
        out, text = _import(tmp_path)
    finally:
        os.close(master)
        stdin.close()
    assert text.count("[y/N]") == 1 and "Approve these" in text
    pending = unapproved(assess(read_paper(out)))
    if answer == "y":
        assert not pending and approved_digests()
    else:
        assert pending and not approved_digests()
        assert f"mechnb trust {out}" in text


def test_a_macro_of_the_papers_template_is_reviewed_once_with_the_template(
        tmp_path: Path) -> None:
    """A fresh real paper listed 47 items to review after its import, mostly cells that use
    `\\R` or `\\op` from its own preamble (the imported template file). The template is reviewed
    and approved as a whole, by its hash, with those definitions in it: a cell that uses one is
    not listed again. A macro defined nowhere still is, and the template stays one item."""
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amssymb}\n\\newcommand{\\R}{\\mathbb{R}}\n"
        "\\DeclareMathOperator{\\op}{op}\n\\begin{document}\n\\section{Setting}\n"
        "Let $x \\in \\R^d$ and $\\op(x) = 0$.\n\nAgain $y \\in \\R$.\n\n"
        "Then $\\nowhere{y}$.\n\\end{document}\n")
    out = tmp_path / "nb" / "p.ipynb"
    code, _, err = run("import", str(tmp_path / "paper" / "main.tex"), "-o", str(out))
    assert code == 0, err
    verdict = assess(read_paper(out))
    where = sorted(item.where for item in verdict.review)
    assert len(where) == 2 and any("template" in w for w in where), where
    assert any("nowhere" in item.reason for item in verdict.review)
    assert not any("`\\R`" in item.reason or "`\\op`" in item.reason for item in verdict.review)
    assert not verdict.refused
