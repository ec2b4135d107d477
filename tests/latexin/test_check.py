"""``mechnb check paper.tex``: the argument rules on a LaTeX paper, at file:line:col."""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

from mechnb.checker.rules import RULES
from mechnb.cli import main
from mechnb.latexin.check import LATEX_RULES, check_latex, rule_table_markdown

PAPER = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / "copying"
REPO = PAPER.parents[3]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _where(f: object) -> tuple[str, int | None, str]:
    return (Path(str(f.file)).name, f.line, f.code)


def test_findings_are_at_the_file_and_line_they_are_about() -> None:
    found = {_where(f) for f in check_latex(PAPER)}
    assert found == {
        ("theory.tex", 49, "MECH015"),  # \cref{fig:missing}
        ("theory.tex", 44, "MECH004"),  # thm:open: no proof, no experiment
        ("theory.tex", 44, "MECH003"),  # thm:open: not interpreted (info for LaTeX)
        ("main.tex", 23, "MECH054"),    # paper-level: at \begin{document}
    }


def test_what_the_paper_does_right_is_not_reported() -> None:
    codes = {f.code for f in check_latex(PAPER)}
    # a gap, a lens and limitations are read from the introduction's moves and the sections;
    # thm:order is closed by its proof and by the experiment figure that references it
    assert not codes & {"MECH001", "MECH002", "MECH016", "MECH017", "MECH062"}
    messages = " ".join(f.message for f in check_latex(PAPER))
    assert "%mech" not in messages and " cell" not in messages  # said in a paper's words


def test_mech_ignore_on_the_line_or_before_the_environment(tmp_path: Path) -> None:
    paper = tmp_path / "p"
    shutil.copytree(PAPER, paper)
    theory = paper / "sections" / "theory.tex"
    text = theory.read_text()
    # without the comments, the lemma's MECH003 and the proof's MECH015 come back
    theory.write_text(text.replace("% mech-ignore: MECH003\n", "").replace(
        " % mech-ignore: MECH015", ""))
    codes = [(f.code, f.line) for f in check_latex(paper)]
    assert ("MECH003", 19) in codes
    assert any(code == "MECH015" and "nowhere" in f.message
               for f in check_latex(paper) for code in [f.code])


def test_configuration_is_the_same_as_for_notebooks(tmp_path: Path) -> None:
    paper = tmp_path / "p"
    shutil.copytree(PAPER, paper)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mechnb]\ndisable = ["MECH054"]\nseverity = {MECH003 = "warning"}\n')
    found = {(f.code, f.severity.value) for f in check_latex(paper)}
    assert ("MECH054", "info") not in found
    assert ("MECH003", "warning") in found


def test_cli_text_and_json() -> None:
    code, out, _ = run("check", str(PAPER / "main.tex"))
    assert code == 1  # MECH015 is an error
    lines = out.strip().split("\n")
    assert re.match(r".*/sections/theory\.tex:49:28: MECH015 error unresolved-reference: ",
                    lines[0])  # errors first
    assert lines[-1].endswith("1 error, 1 warning, 2 info")
    code, out, _ = run("check", str(PAPER), "--format", "json")
    records = json.loads(out)
    assert all(r["file"] and r["line"] and r["cell"] is None for r in records)


def test_a_paper_that_is_not_there_is_a_clear_error(tmp_path: Path) -> None:
    code, _, err = run("check", str(tmp_path / "nothing.tex"))
    assert code == 2 and "nothing.tex" in err and "Traceback" not in err
    code, _, err = run("check", str(tmp_path))  # a folder without a paper
    assert code == 2 and "no .tex file" in err


def test_every_rule_has_a_latex_row_and_the_docs_show_the_table() -> None:
    assert {r.code for r in RULES} == set(LATEX_RULES)
    page = (REPO / "docs" / "guide" / "latex-in.md").read_text("utf-8")
    assert rule_table_markdown() in page


def test_a_cell_named_inside_a_parenthesis_that_goes_on_keeps_its_brackets(tmp_path: Path) -> None:
    from mechnb.latexin.check import latex_message, read_for_check

    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\section{Conclusion}\n"
        "We close here.\n\\end{document}\n", encoding="utf-8")
    imported = read_for_check(tmp_path / "main.tex")
    where = latex_message("cell 2", imported)
    assert re.fullmatch(r"main\.tex:\d+", where)
    assert latex_message("the Conclusion (cell 2, `conclusion`) is late", imported) == \
        f"the Conclusion ({where}, `conclusion`) is late"
    assert latex_message("see (cell 2) and cell 2", imported) == f"see ({where}) and {where}"
