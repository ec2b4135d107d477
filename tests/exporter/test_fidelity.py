"""Fidelity on notebooks nobody here wrote (issue 23): what renders in Jupyter prints in the PDF.

Fixture notebooks in ``tests/fixtures/fidelity/``: terminal outputs (tqdm bars after ``100%``,
box-drawing tables, check marks, a 5,430-character line), an R kernel's ``text/latex`` (inline
lists, a data frame with ``_`` in a column name), a Korean notebook and MathJax-only math. Each
goes through the real exporter and TeX; the assertions read the findings, the ``.tex``, the log
and the PDF's text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from trust_helper import approve_review

from mechnb.exporter.api import export, render
from mechnb.exporter.context import BREAK_ANYWHERE_RUN, LONGEST_LINE, verbatim
from mechnb.notebook import read_paper
from mechnb.tex.symbols import box_arms, replacement, symbol_declarations

from .conftest import REPO, needs_tex

FIDELITY = REPO / "tests" / "fixtures" / "fidelity"


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(FIDELITY / name, target)
    return target


def _export_needing_noto(tmp_path: Path, name: str) -> Any:
    """Export the fixture ``name`` with a PDF (skipped where Noto CJK is not installed)."""
    result = export(_copy(tmp_path, name), tmp_path / "out", pdf=True)
    if any(f.code == "MECH833" for f in result.findings):
        pytest.skip("Noto CJK is not installed (make tex installs fonts-noto-cjk)")
    return result


def _pdf_text(pdf: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout


# --------------------------------------------------------------------------- units


def test_box_drawing_arms_come_from_the_unicode_name() -> None:
    assert box_arms("─") == {"L": 1, "R": 1}
    assert box_arms("┌") == {"R": 1, "D": 1}
    assert box_arms("╇") == {"D": 1, "U": 2, "L": 2, "R": 2}  # DOWN LIGHT AND UP HORIZONTAL HEAVY
    assert box_arms("╔") == {"D": 3, "R": 3}
    assert box_arms("╱") is None  # a diagonal: replaced by a slash instead
    assert replacement("╱") == "/" and replacement("─") == r"\mechboxdraw{1}{1}{0}{0}"


def test_blocks_symbols_and_invisibles_have_replacements() -> None:
    assert replacement("█") == r"\mechblock{0}{1}{0}{1}"
    assert replacement("▏") == r"\mechblock{0}{0.125}{0}{1}"  # tqdm's partial blocks
    assert replacement("▄") == r"\mechblock{0}{1}{0}{0.500}"
    assert replacement("✓") == r"\ensuremath{\checkmark}"
    assert replacement("\ufe0f") == ""  # the variation selector of an emoji
    assert replacement("\U0001F680") is None  # an emoji: left to the pre-check and MECH821
    assert symbol_declarations("plain ascii") == []
    assert symbol_declarations("a ✓ b ✓") == [r"\newunicodechar{✓}{\ensuremath{\checkmark}}"]


def test_a_very_long_line_is_cut_before_fvextra_measures_it() -> None:
    out = verbatim("x" * (2 * LONGEST_LINE + 10) + "\nshort")
    lines = out.split("\n")
    # a run that long cannot wrap at a space: the block wraps anywhere
    assert lines[0] == r"\begin{Verbatim}[breakanywhere]" and lines[-1] == r"\end{Verbatim}"
    assert [len(line) for line in lines[1:-1]] == [LONGEST_LINE, LONGEST_LINE, 10, 5]


def test_a_block_wraps_anywhere_only_where_a_run_cannot_wrap_at_a_space_or_a_joint() -> None:
    # code wraps at spaces and after . , ( / = - _ (data/latex/verbatim.tex): no option
    for text in ("x = model.transformer.h[0].attn.c_attn.weight.data.numpy().reshape(-1)",
                 'load("https://huggingface.co/spaces/some-user/a-very-long-space-name/x")',
                 "=" * 120, "-" * 120, "a_very_long_snake_case_identifier_with_many_parts_1",
                 "loss 0.123 " * 30, "# 中文注释 " * 10):
        assert verbatim(text).startswith("\\begin{Verbatim}\n"), text
    # a row of carets, a progress bar, a hash, a long run of Chinese (two columns a character)
    for text in ("    ^" + "^" * 40, "100%|" + "█" * 40 + "| 10/10",
                 "sha256:" + "0123456789abcdef" * 4, "# " + "注意力头的复制机制" * 2):
        assert verbatim(text).startswith("\\begin{Verbatim}[breakanywhere]\n"), text
    assert BREAK_ANYWHERE_RUN == 30


def test_terminal_characters_keep_the_english_default_engine() -> None:
    # drawn characters are typeset by pdfLaTeX too: no fallback, no finding
    result = render(read_paper(FIDELITY / "terminal_outputs.ipynb"), include_code=True)
    assert result.engine == "pdflatex"
    assert not [f for f in result.findings if f.code in ("MECH820", "MECH825")], \
        [f.format("nb") for f in result.findings]
    assert r"\newunicodechar{█}{\mechblock{0}{1}{0}{1}}" in result.latex


def test_the_pre_check_reads_verbatim_past_a_percent_sign() -> None:
    from mechnb.notebook import paper_from_dict

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# Log"},
        {"cell_type": "code", "id": "c", "metadata": {}, "execution_count": 1,
         "source": "run()", "outputs": [{"output_type": "stream", "name": "stdout",
                                         "text": "100%|\u2603 done\n"}]}]}
    result = render(paper_from_dict(nb), include_code=True)
    found = [f for f in result.findings if f.code == "MECH825"]
    assert [(f.cell, f.labels) for f in found] == [(1, ("U+2603",))]  # after the %, still seen
    assert result.engine == "xelatex"  # and the default engine gave way (MECH820)


def test_kernel_latex_tables_get_their_underscores_escaped() -> None:
    result = render(read_paper(FIDELITY / "r_kernel_outputs.ipynb"), include_code=True)
    assert r"& proportion\_within\_95pc\\" in result.latex
    assert r"\usepackage[inline]{enumitem}" in result.latex


# --------------------------------------------------------------------------- real TeX


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_terminal_outputs_compile_with_every_character_set(tmp_path: Path, engine: str) -> None:
    path = _copy(tmp_path, "terminal_outputs.ipynb")
    result = export(path, tmp_path / "out", pdf=True, include_code=True, engine=engine)
    assert result.pdf_path is not None, [f.format("nb") for f in result.findings]
    log = result.log_path.read_text("utf-8", "replace") if result.log_path else ""
    assert "Missing character" not in log  # nothing dropped silently (the emoji is mapped)
    assert not [f for f in result.findings if f.code in ("MECH821", "MECH825", "MECH810")]
    text = _pdf_text(result.pdf_path)
    assert "100%|" in text and "50/50" in text and "Layer" in text and "1,024" in text
    assert "\u2713" in text  # the check mark (amssymb's)
    # the 5,430-character URL wraps instead of running off the page: every piece is in the PDF
    # (the wrap marks, a hook arrow and a corner, are not letters; page numbers are dropped)
    body = "".join(line for line in text.splitlines() if not line.strip().isdigit())
    assert "segment-0123456789" * 300 in re.sub(r"[^A-Za-z0-9-]", "", body)


@pytest.mark.tex
@needs_tex()
def test_r_kernel_outputs_compile(tmp_path: Path) -> None:
    path = _copy(tmp_path, "r_kernel_outputs.ipynb")
    approve_review(path, include_code=True)  # the document export --include-code compiles
    result = export(path, tmp_path / "out", pdf=True, include_code=True)
    assert result.pdf_path is not None, [f.format("nb") for f in result.findings]
    text = _pdf_text(result.pdf_path)
    assert "proportion_within_95pc" in text and "0.946" in text
    assert "'a'" in text.replace("\u2019", "'").replace("\u2018", "'")


@pytest.mark.tex
@needs_tex()
def test_mathjax_only_math_compiles_with_one_info_per_rewrite(tmp_path: Path) -> None:
    path = _copy(tmp_path, "mathjax_only.ipynb")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rewrites = re.findall(r"\[cell (\d+)\]:(\d+):(\d+): (MECH03[68]|MECH080) info",
                          done.stderr)
    assert rewrites == [("2", "1", "24", "MECH036"), ("2", "1", "39", "MECH038"),
                        ("3", "2", "9", "MECH038"), ("4", "1", "16", "MECH080"),
                        ("5", "1", "1", "MECH080"), ("6", "1", "28", "MECH080")], done.stderr
    assert "MECH834" not in done.stderr and "MECH810" not in done.stderr  # no formula lost
    tex = (tmp_path / "out" / "mathjax_only.tex").read_text("utf-8")
    assert r"\text{hidden\_states}" in tex and r"\begin{aligned}" in tex
    assert r"\begin{array}{ccc}" in tex and r"\begin{align}" in tex and r"\text{ 且 }" in tex
    text = _pdf_text(tmp_path / "out" / "mathjax_only.pdf")
    assert "hidden_states" in text and "且" in text


@pytest.mark.tex
@needs_tex()
def test_korean_text_is_set_in_a_font_that_has_it(tmp_path: Path) -> None:
    result = _export_needing_noto(tmp_path, "korean.ipynb")
    assert result.engine == "xelatex"  # pdfLaTeX's CJK fonts have no Hangul (MECH825)
    assert result.pdf_path is not None
    assert not [f for f in result.findings if f.code == "MECH821"]  # no glyph lost
    text = _pdf_text(result.pdf_path)
    assert "트랜스포머로 무엇을 할 수 있나요?" in text  # with the spaces between Korean words
    assert "파이프라인은 모델과 전처리를 함께 묶습니다." in text


@pytest.mark.tex
@needs_tex()
def test_without_a_font_for_its_script_the_compile_stops_naming_it(tmp_path: Path) -> None:
    # a fontconfig that knows no fonts: the real fc-list finds no Noto CJK
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                    f"<fontconfig><cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>",
                    "utf-8")
    path = _copy(tmp_path, "korean.ipynb")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf",
                           "-o", str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    assert "korean.ipynb[cell 2]:1:1: MECH833 error no-font-for-script: Korean (Hangul) text " \
           "needs a font" in done.stderr, done.stderr
    assert not (tmp_path / "out" / "korean.pdf").exists()


# --------------------------------------------------------------------------- typesetting


def test_no_space_is_typed_between_chinese_and_a_reference() -> None:
    from mechnb.exporter.markdown import tight_cjk_references

    assert tight_cjk_references(r"在 \cref{sec:setup} 的设定下，完整推导见 \cref{app:proof}。") \
        == r"在\cref{sec:setup}的设定下，完整推导见\cref{app:proof}。"
    assert tight_cjk_references(r"见 \citep[p.~2]{k} 一") == r"见 \citep[p.~2]{k} 一"  # kept
    assert tight_cjk_references(r"由 \eqref{eq:a} 得到") == r"由 \eqref{eq:a} 得到"  # "(1)"
    assert tight_cjk_references(r"See \cref{x} and more.") == r"See \cref{x} and more."


@pytest.mark.tex
@needs_tex()
def test_chinese_example_reads_without_stray_gaps(tmp_path: Path) -> None:
    example = REPO / "notebooks" / "example_paper_zh.ipynb"
    result = export(example, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None
    text = _pdf_text(result.pdf_path)
    # one gap each side of the number (the templates'), none typed around the reference
    assert "在第 2 节的设定下" in text and "完整推导见附录 A。" in text
    # theorem bodies in upright Kai: the style names \mechzhthmfont, not \itshape
    assert "{\\mechzhthmfont}" in result.latex


def test_a_table_caption_keeps_its_distance_from_the_rule() -> None:
    result = render(read_paper(REPO / "notebooks" / "example_paper.ipynb"))
    tables = result.latex.split("\\begin{table}")[1:]
    assert tables and all("}\n\\vspace{0.6\\abovecaptionskip}\n" in t for t in tables)


def test_chinese_inline_code_keeps_its_spaces_and_the_one_after_it() -> None:
    from mechnb.notebook import paper_from_dict

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"lang": "zh"}}, "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {},
         "source": "例如读到 `哈利 波特 … 哈利` 时，它复制 `x y` 的值。"}]}
    latex = render(paper_from_dict(nb)).latex
    assert r"读到 \texttt{哈利\ 波特\ …\ 哈利}\ 时，" in latex
    assert r"复制 \texttt{x y} 的值" in latex  # Latin code: as typed


@pytest.mark.tex
@needs_tex()
def test_japanese_text_is_set_in_a_font_that_has_it(tmp_path: Path) -> None:
    result = _export_needing_noto(tmp_path, "japanese.ipynb")
    assert result.pdf_path is not None, [f.format("nb") for f in result.findings]
    assert "Noto Serif CJK JP" in result.latex
    assert not [f for f in result.findings if f.code == "MECH821"]  # no glyph lost
    text = _pdf_text(result.pdf_path).replace("\n", "")
    assert "トランスフォーマーの注意機構" in text
    assert "各ヘッドは異なるパターンを学習します。" in text and "different pattern" in text
