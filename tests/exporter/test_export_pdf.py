"""PDF: TeX log parsing (always) and real XeLaTeX compiles (marker ``tex``)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from trust_helper import approve_review

from mechnb.cli import main
from mechnb.exporter.api import export
from mechnb.exporter.pdf import LATEXMK_ARGS, parse_log

from .conftest import COMPILING_NOTEBOOKS, EXAMPLE, FIXTURES, needs_tex


def pdf_text(pdf: Path | None) -> str | None:
    """The text of ``pdf`` by pdftotext; ``None`` where poppler-utils is not installed."""
    assert pdf is not None, "no PDF was written"
    if not shutil.which("pdftotext"):
        return None
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


LOG = (FIXTURES / "logs" / "sample.texlog").read_text("utf-8")  # (*.log is git-ignored)
PROBLEMS = {"tex-error", "undefined-reference", "undefined-citation"}


def test_latexmk_runs_without_shell_escape_and_never_waits() -> None:
    assert "-no-shell-escape" in LATEXMK_ARGS and "-shell-escape" not in LATEXMK_ARGS
    assert "-interaction=nonstopmode" in LATEXMK_ARGS and "-halt-on-error" in LATEXMK_ARGS
    assert "-xelatex" in LATEXMK_ARGS


def test_log_findings_are_mapped_to_cells() -> None:
    cells = (None,) * 40 + (7,) * 20 + (9,) * 20   # lines 41-60 → cell 7, 61-80 → cell 9
    found = parse_log(LOG, "paper.tex", cells)
    summary = [(f.code, f.cell, f.labels) for f in found]
    assert summary == [
        ("MECH810", 7, ()),
        ("MECH811", 9, ("thm:missing",)),
        ("MECH812", 9, ("nobody2020",)),
    ]
    assert "Undefined control sequence" in found[0].message


def test_log_findings_point_at_the_line_in_the_cell() -> None:
    cells = (None,) * 40 + (7,) * 20 + (9,) * 20
    sources = {7: "Fine.\nThis cell breaks TeX: $\\undefinedmacro{x}$.",
               9: "Intro.\n\nSee \\cref{thm:missing} and [@nobody2020]."}
    found = parse_log(LOG, "paper.tex", cells, sources)
    assert [(f.cell, f.line, f.column) for f in found] == [(7, 2, 24), (9, 3, 10), (9, 3, 30)]


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize("name", COMPILING_NOTEBOOKS)
def test_fixture_compiles_without_errors_or_undefined_references(name: str, paper_dir: Path,
                                                                 tmp_path: Path) -> None:
    approve_review(paper_dir / f"{name}.ipynb")  # e.g. a text/latex output that is no table
    result = export(paper_dir / f"{name}.ipynb", tmp_path, pdf=True)
    problems = [f.format(name) for f in result.findings if f.name in PROBLEMS]
    assert problems == []
    assert result.pdf_path is not None and result.pdf_path.stat().st_size > 1000


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize(("stem", "engine", "args"), [
    ("example_paper", "pdflatex", ()),  # English: pdfLaTeX by default
    ("example_paper", "xelatex", ("--engine", "xelatex")),
    ("example_paper_zh", "xelatex", ()),  # Chinese: XeLaTeX by default
    ("example_paper_zh", "pdflatex", ("--engine", "pdflatex")),
])
def test_example_paper_compiles_cleanly(stem: str, engine: str, args: tuple[str, ...],
                                        tmp_path: Path) -> None:
    nb = tmp_path / f"{stem}.ipynb"
    shutil.copy(EXAMPLE.with_name(f"{stem}.ipynb"), nb)
    shutil.copy(EXAMPLE.with_suffix(".bib"), tmp_path / "example_paper.bib")
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(nb), "--pdf", "--strict", *args], out, err)
    assert code == 0, err.getvalue()
    pdf = tmp_path / "build" / stem / f"{stem}.pdf"
    assert out.getvalue().split() == [str(pdf.with_suffix(".tex")), str(pdf)]
    assert f"running {engine}" in err.getvalue() and "running bibtex" in err.getvalue()
    log = pdf.with_suffix(".log").read_text("utf-8", errors="replace")
    assert "undefined" not in log.lower()
    assert "Missing character" not in log


@pytest.mark.tex
@needs_tex()
def test_a_formula_tex_rejects_is_printed_as_code_at_its_cell(paper_dir: Path,
                                                              tmp_path: Path) -> None:
    approve_review(paper_dir / "tex_error.ipynb")  # \\undefinedmacro is off the allow-list
    result = export(paper_dir / "tex_error.ipynb", tmp_path, pdf=True)
    assert result.pdf_path is not None  # the PDF builds
    [found] = [f for f in result.findings if f.code == "MECH834"]
    assert found.cell == 2 and "Undefined control sequence" in found.message
    assert "\\texttt{\\$\\textbackslash{}undefinedmacro\\{x\\}\\$}" in result.latex
    assert not [f for f in result.findings if f.name == "tex-error"]
    if (text := pdf_text(result.pdf_path)) is not None:
        assert "$\\undefinedmacro{x}$" in text and "Later text." in text


@pytest.mark.tex
@needs_tex()
def test_tex_error_outside_math_is_reported_at_its_cell(paper_dir: Path, tmp_path: Path) -> None:
    path = paper_dir / "tex_error.ipynb"
    nb = json.loads(path.read_text("utf-8"))
    nb["cells"][2] = {"cell_type": "raw", "id": "raw", "metadata": {"format": "text/latex"},
                      "source": "A raw cell \\undefinedmacro{x} outside math."}
    path.write_text(json.dumps(nb), "utf-8")
    approve_review(path)  # raw LaTeX: read, approved
    result = export(path, tmp_path, pdf=True)
    assert result.pdf_path is None  # nothing the exporter wrote is at fault: no rewrite
    errors = [f for f in result.findings if f.name == "tex-error"]
    assert errors and errors[0].cell == 2, [f.format("paper") for f in result.findings]
    assert "Undefined control sequence" in errors[0].message
    assert "\\undefinedmacro is not defined" in errors[0].message  # names the macro
    assert not [f for f in result.findings if f.code == "MECH834"]


@pytest.mark.tex
@needs_tex()
def test_undefined_reference_is_reported_at_its_cell(paper_dir: Path, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(paper_dir / "undefined_reference.ipynb"), "-o", str(tmp_path),
                 "--pdf"], out, err)
    assert "undefined_reference.ipynb[cell 3]:1:10: MECH811 error undefined-reference: reference " \
           "'thm:missing'" in err.getvalue()
    assert code == 0  # the PDF was written; only --strict makes error findings fatal


@pytest.mark.tex
@needs_tex()
def test_annotated_draft_compiles(paper_dir: Path, tmp_path: Path) -> None:
    from mechnb.exporter.api import paper_findings
    from mechnb.notebook import read_paper

    paper = read_paper(paper_dir / "all_roles_en.ipynb")
    notes = paper_findings(paper) + paper_findings(
        read_paper(paper_dir / "title_from_heading.ipynb"))
    result = export(paper, tmp_path, pdf=True, annotations=notes)
    assert "\\todo{" in result.latex
    assert [f for f in result.findings if f.name in PROBLEMS] == []


@pytest.mark.tex
@needs_tex()
def test_annotating_a_fresh_scaffold_still_compiles(tmp_path: Path) -> None:
    """A new scaffold has ~50 findings (one MECH025 per template cell, each naming its slots);
    one margin note per block keeps TeX from giving up."""
    import json

    from mechnb.checker import check
    from mechnb.notebook import read_paper
    from mechnb.templates import scaffold_notebook

    nb = tmp_path / "scaffold.ipynb"
    nb.write_text(json.dumps(scaffold_notebook("dynamics")), "utf-8")
    paper = read_paper(nb)
    notes = check(paper)
    assert len(notes) > 40
    result = export(paper, tmp_path / "out", pdf=True, annotations=notes)
    assert result.pdf_path is not None and result.pdf_path.is_file()
    assert [f for f in result.findings if f.name == "tex-error"] == []
    blocks_with_notes = result.latex.count("\\todo{")
    assert 0 < blocks_with_notes < len(notes)


@pytest.mark.tex
@needs_tex()
def test_an_unnumbered_question_box_leaves_the_numbered_ones_alone(tmp_path: Path) -> None:
    """`%mech question --kind unnumbered`: a box without a number, before a numbered one that
    still reads 1; the writing kit's new units compile."""
    from mechnb.templates import role_cells

    cells = (role_cells("question", kind="unnumbered")
             + role_cells("question", label="q:main")
             + role_cells("remark", kind="matching-bound")
             + role_cells("remark", kind="reduction")
             + role_cells("result", kind="key-claim")
             + role_cells("lens", kind="key-step"))
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"mechnb": {"title": "Boxes", "engine": "pdflatex"}},
          "cells": [c.to_nbformat() for c in cells]}
    path = tmp_path / "boxes.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    result = export(path, tmp_path / "out", pdf=True)
    assert "\\begin{tcolorbox}" in result.latex and "\\begin{mechquestion}" in result.latex
    assert result.pdf_path is not None, [f.format("boxes") for f in result.findings]
    if (text := pdf_text(result.pdf_path)) is not None:
        assert "Research question 1" in text and "Research question 2" not in text
        assert "Matching lower bound" in text and "Our key technical step is to" in text


@pytest.mark.tex
@needs_tex()
def test_tcolorbox_is_loaded_only_by_a_paper_that_uses_a_box(tmp_path: Path) -> None:
    """tcolorbox (with PGF, about an eighth of a second of every TeX run) is loaded by a paper
    with a box cell or a tcolorbox of its own, and by no other; each compiles."""
    def paper(name: str, cells: list[dict[str, object]]) -> Path:
        nb = {"nbformat": 4, "nbformat_minor": 5,
              "metadata": {"mechnb": {"title": name, "engine": "pdflatex"}}, "cells": cells}
        path = tmp_path / f"{name}.ipynb"
        path.write_text(json.dumps(nb), "utf-8")
        return path

    def md(source: str) -> dict[str, object]:
        return {"cell_type": "markdown", "metadata": {}, "source": source}

    plain = export(paper("plain", [md("# Intro\n\nNo box here.")]), tmp_path / "a", pdf=True)
    assert "tcolorbox" not in plain.latex and "newtcolorbox" not in plain.latex
    assert plain.pdf_path is not None
    own = export(paper("own", [md("# Intro\n\n\\begin{tcolorbox}Boxed by hand."
                                  "\\end{tcolorbox}")]), tmp_path / "b", pdf=True)
    assert "\\usepackage{tcolorbox}" in own.latex
    assert own.pdf_path is not None, [f.format("own") for f in own.findings]
    if (text := pdf_text(own.pdf_path)) is not None:
        assert "Boxed by hand." in text
    # a template of the user's own without the extra-packages slot: the box still gets its package
    template = tmp_path / "mine.tex"
    template.write_text("\\documentclass{article}\n\\usepackage{hyperref}\n"
                        "\\usepackage{amsthm}\n\\usepackage{cleveref}\n((( environments )))\n"
                        "\\begin{document}\n((( body )))\n\\end{document}\n", "utf-8")
    from mechnb.templates import role_cells

    boxed = paper("boxed", [c.to_nbformat() for c in role_cells("question", label="q:main")])
    mine = export(boxed, tmp_path / "c", pdf=True, template=str(template), trust=True)
    assert mine.latex.count("\\usepackage{tcolorbox}") == 1
    assert mine.pdf_path is not None, [f.format("boxed") for f in mine.findings]


@pytest.mark.tex
@needs_tex()
def test_a_chinese_paper_has_keywords_english_front_matter_and_gbt7714(tmp_path: Path) -> None:
    """metadata keywords / title_en / abstract_en (DESIGN §2) and GB/T 7714 numbered
    references for Chinese papers (gbt7714, texlive-bibtex-extra)."""
    if shutil.which("kpsewhich") is None or not subprocess.run(
            ["kpsewhich", "gbt7714.sty"], capture_output=True, text=True).stdout.strip():
        pytest.skip("gbt7714 is not installed (`make tex` installs texlive-bibtex-extra)")
    (tmp_path / "refs.bib").write_text(
        "@inproceedings{vaswani2017attention, title={Attention is all you need}, "
        "author={Vaswani, Ashish and Shazeer, Noam}, booktitle={Advances in Neural Information "
        "Processing Systems}, year={2017}, eprint={1706.03762}}\n", "utf-8")
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"mechnb": {"title": "注意力的简洁性", "lang": "zh",
                                  "bibliography": "refs.bib",
                                  "keywords": ["注意力机制", "表达能力"],
                                  "title_en": "The Succinctness of Attention",
                                  "abstract_en": "We compare *attention* with automata."}},
          "cells": [{"cell_type": "markdown", "id": "a", "metadata": {"mechnb": {
                        "role": "abstract"}}, "source": "我们比较注意力与自动机。"},
                    {"cell_type": "markdown", "id": "b", "metadata": {},
                     "source": "# 引言\n\nTransformer 源于注意力 [@vaswani2017attention]。"}]}
    path = tmp_path / "zh.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), "utf-8")
    result = export(path, tmp_path / "out", pdf=True)
    assert "\\textbf{关键词：}注意力机制；表达能力" in result.latex
    assert "\\usepackage{gbt7714}" in result.latex
    assert "\\bibliographystyle{gbt7714-numerical}" in result.latex
    assert result.pdf_path is not None, [f.format("zh") for f in result.findings]
    if (text := pdf_text(result.pdf_path)) is not None:
        assert "关键词：注意力机制；表达能力" in text
        assert "The Succinctness of Attention" in text and "Abstract" in text
        assert "[1] VASWANI A, SHAZEER N. Attention is all you need[C]" in text


def test_an_error_in_the_papers_own_preamble_shows_the_line() -> None:
    """Fresh real paper: \\renewcommand of a counter macro no package defined stopped the
    compile at "(.tex line 5)" and nothing said that the line is the paper's own preamble,
    which an import keeps in the template next to the notebook (hand-written log)."""
    tex = ("\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{hyperref}\n"
           "% the paper's own line\n\\renewcommand{\\theHwidget}{\\arabic{widget}}\n"
           "\\begin{document}\nText.\n\\end{document}\n")
    log = ("./paper.tex:5: LaTeX Error: Command \\theHwidget undefined.\n\n"
           "See the LaTeX manual or LaTeX Companion for explanation.\n"
           "Type  H <return>  for immediate help.\n ...\n\n"
           "l.5 \\renewcommand{\\theHwidget}\n                               {\\arabic{widget}}\n")
    [found] = parse_log(log, "paper.tex", (None,) * 8, {}, None, tex)
    assert found.cell is None
    assert "(.tex line 5, in the preamble: `\\renewcommand{\\theHwidget}{\\arabic{widget}}`" \
        in found.message and "template.tex): fix the line there" in found.message
    [bare] = parse_log(log, "paper.tex", (None,) * 8, {})  # no .tex text: as before
    assert bare.message.endswith("(.tex line 5)")
