"""Reading a LaTeX paper's files as one text: inputs resolved, positions mapped back."""

from __future__ import annotations

from pathlib import Path

from mechnb.latexin.preamble import read_declarations, role_for
from mechnb.latexin.source import find_main, load_source
from mechnb.tex.comments import comment_spans, mask_comments

PAPER = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / "copying"


def test_inputs_are_read_in_place_and_map_back_to_their_file_line_and_column() -> None:
    src = load_source(PAPER)
    assert src.main == PAPER / "main.tex"
    assert {p.name for p in src.files} == {"main.tex", "macros.tex", "intro.tex", "theory.tex"}
    at = src.text.index("\\begin{thm}[Order of formation]")
    path, line, col = src.locate(at)
    lines = (PAPER / "sections" / "theory.tex").read_text().split("\n")
    assert path.name == "theory.tex"
    assert lines[line - 1][col - 1:].startswith("\\begin{thm}[Order of formation]")
    at = src.text.index("Our analysis assumes")  # back in main.tex after the inputs
    path, line, _ = src.locate(at)
    assert path.name == "main.tex"
    assert (PAPER / "main.tex").read_text().split("\n")[line - 1].startswith("Our analysis")


def test_commented_inputs_are_not_read_and_missing_ones_are_problems(tmp_path: Path) -> None:
    (tmp_path / "a.tex").write_text("A text.\n")
    (tmp_path / "loop.tex").write_text("\\input{loop}\n")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n% \\input{never}\n\\input{a}\n"
        "\\input{gone}\n\\input{loop}\n\\input{fig/plot.pgf}\n\\end{document}\n")
    src = load_source(tmp_path / "main.tex")
    assert "A text." in src.text and "never" in src.text  # the comment stays a comment
    messages = [p.message for p in src.problems]
    assert any("\\input{gone}" in m for m in messages)
    assert any("already being read" in m for m in messages)  # no endless recursion
    assert not any("never" in m for m in messages)


def test_subfiles_bring_their_body_only(tmp_path: Path) -> None:
    (tmp_path / "part.tex").write_text(
        "\\documentclass[main.tex]{subfiles}\n\\begin{document}\nPart body.\n\\end{document}\n")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{subfiles}\n\\begin{document}\n\\subfile{part}\n"
        "\\end{document}\n")
    src = load_source(tmp_path)
    assert "Part body." in src.text
    assert src.text.count("\\documentclass") == 1


def test_the_main_file_of_a_folder_is_the_one_with_a_document(tmp_path: Path) -> None:
    (tmp_path / "notes.tex").write_text("\\documentclass{article}\n% no body\n")
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\begin{document}\n"
                                        "x\n\\end{document}\n")
    assert find_main(tmp_path).name == "paper.tex"


def test_substituted_text_maps_to_where_it_was_put() -> None:
    src = load_source(PAPER)
    at = src.text.index("\\be\n")
    moved = src.substitute([(at, at + 3, "\\begin{equation}")])
    k = moved.text.index("\\begin{equation}\nm_t")
    assert moved.locate(k + 5) == src.locate(at)  # inside the replacement: the macro's place
    after = moved.text.index("m_t = ")
    assert moved.locate(after) == src.locate(src.text.index("m_t = "))


def test_comments_are_found_as_tex_reads_them() -> None:
    text = "a % b\nc \\% d % e\n\\\\% f"
    assert [text[s:e] for s, e in comment_spans(text)] == ["% b", "% e", "% f"]
    assert mask_comments(text) == "a    \nc \\% d    \n\\\\   "


def test_declarations_map_theorem_like_environments_onto_roles() -> None:
    decl = read_declarations(load_source(PAPER).text)
    assert decl.theorems == {"thm": "theorem", "lem": "lemma", "defi": "definition",
                             "assu": "assumption", "obs": "other"}
    assert decl.macros["vect"].args == 1 and decl.macros["inner"].args == 2
    assert decl.macros["softmax"].command == "DeclareMathOperator"
    assert decl.openers == {"be": "\\begin{equation}", "ee": "\\end{equation}"}
    assert decl.environments["sketch"].begin == "\\begin{proof}[Sketch]"
    assert role_for("theo") == "theorem" and role_for("x", "引理") == "lemma"
    assert role_for("assu") == "assumption" and role_for("exam") == "other"
