"""Foreign notebooks: nbformat 3, terminal colour codes — they export and compile as they are."""

from __future__ import annotations

import hashlib
import io
import shutil
from pathlib import Path

import pytest
from trust_helper import approve_review

from mechnb.cli import main
from mechnb.exporter.context import terminal_text
from mechnb.notebook import read_paper

from .conftest import REPO, needs_tex

FOREIGN = REPO / "tests" / "fixtures" / "foreign"


def export(name: str, tmp_path: Path, *extra: str) -> tuple[int, str, Path]:
    src = tmp_path / name
    shutil.copy(FOREIGN / name, src)
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    if "--pdf" in extra:
        approve_review(src)  # MathJax-only macros and raw LaTeX of other tools: read, approved
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(src), "-o", str(tmp_path / "out"), *extra], out, err)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before, "the notebook was modified"
    return code, out.getvalue() + err.getvalue(), tmp_path / "out" / (src.stem + ".tex")


def test_nbformat3_is_upgraded_in_memory_with_an_info_finding() -> None:
    paper = read_paper(FOREIGN / "nbformat3.ipynb")
    assert [c.cell_type for c in paper.cells] == ["markdown", "markdown", "code", "code"]
    assert paper.cells[0].source == "# An old notebook"
    assert paper.cells[2].source == "print('hi')"
    assert [(f.code, f.severity.value) for f in paper.findings] == [("MECH035", "info")]


def test_nbformat3_exports_a_tex_and_keeps_the_file(tmp_path: Path) -> None:
    code, text, tex = export("nbformat3.ipynb", tmp_path, "--include-code")
    assert code == 0, text
    body = tex.read_text("utf-8")
    assert "An old notebook" in body and "print('hi')" in body and "\\begin{Verbatim}\nhi\n" in body
    assert "MECH035" in text


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b[0;31mValueError\x1b[0m: bad", "ValueError: bad"),
    (" 10%\r 50%\r100%\ndone\r\n", "100%\ndone\n"),
    ("\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\", "link"),
    ("bell\x07 nul\x00 tab\tkept", "bell nul tab\tkept"),
    ("plain text, unchanged", "plain text, unchanged"),
], ids=["sgr-colour", "carriage-return", "osc-hyperlink", "controls", "plain"])
def test_terminal_text_is_what_a_terminal_shows(raw: str, shown: str) -> None:
    assert terminal_text(raw) == shown


def test_colour_codes_never_reach_the_tex(tmp_path: Path) -> None:
    code, _, tex = export("ansi_outputs.ipynb", tmp_path, "--include-code")
    body = tex.read_text("utf-8")
    assert code == 0
    assert "\x1b" not in body and "\x00" not in body and "\x07" not in body and "\r" not in body
    assert "\\begin{Verbatim}\nok\n100%\nbell\n\\end{Verbatim}" in body
    assert "\\begin{Verbatim}\nDataFrame\n\\end{Verbatim}" in body


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize("name", ["ansi_outputs.ipynb", "nbformat3.ipynb"])
def test_foreign_notebook_compiles_with_code(name: str, tmp_path: Path) -> None:
    _, text, tex = export(name, tmp_path, "--include-code", "--pdf")
    assert tex.with_suffix(".pdf").exists(), text
    assert "MECH810" not in text


@pytest.mark.parametrize("name", ["nbformat3_no_worksheets.ipynb", "nbformat3_no_metadata.ipynb"])
def test_old_notebook_missing_keys_still_exports(name: str, tmp_path: Path) -> None:
    code, text, tex = export(name, tmp_path)
    assert code == 0, text
    assert "\\begin{document}" in tex.read_text("utf-8") and "MECH035" in text


def test_mathjax_only_macros_get_definitions_and_the_math_is_untouched(tmp_path: Path) -> None:
    code, text, tex = export("mathjax_macros.ipynb", tmp_path)
    body = tex.read_text("utf-8")
    assert code == 0, text
    assert "\\providecommand{\\gt}{>}" in body and "\\providecommand{\\bbox}[2][]{#2}" in body
    assert "$a \\gt b$" in body and "$\\bbox[yellow,5px]{x}$" in body


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_mathjax_only_macros_compile(engine: str, tmp_path: Path) -> None:
    _, text, tex = export("mathjax_macros.ipynb", tmp_path, "--pdf", "--engine", engine)
    assert tex.with_suffix(".pdf").exists(), text


def test_no_mathjax_definitions_when_unused(tmp_path: Path) -> None:
    _, _, tex = export("nbformat3.ipynb", tmp_path)
    assert "\\providecommand{\\gt}" not in tex.read_text("utf-8")
