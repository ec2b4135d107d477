"""Markdown footnotes (``[^1]`` … ``[^1]: note``) become ``\\footnote`` (issue 23: they were
printed literally)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.exporter.context import RenderContext
from mechnb.exporter.markdown import render_markdown
from mechnb.tex.markdown import parse

from .conftest import export_pdf_text, markdown_notebook, needs_tex

SOURCE = ("The bound is tight[^tight] for one repeated distractor[^2].\n\n"
          "[^tight]: Equality holds when every other logit equals $z_1 - \\Delta$.\n"
          "[^2]: See the appendix.\n")


def test_footnotes_become_footnote_commands_at_their_reference() -> None:
    latex = render_markdown(SOURCE, RenderContext())
    assert latex == ("The bound is tight\\footnote{Equality holds when every other logit equals "
                     "$z_1 - \\Delta$.} for one repeated distractor\\footnote{See the appendix.}.")


def test_a_reference_without_a_definition_stays_text() -> None:
    assert render_markdown("A note[^x].", RenderContext()) == "A note[\\textasciicircum{}x]."


def test_a_run_of_footnote_openers_stays_text() -> None:
    # with a definition in the cell the footnote rule is live; a run of "[^" with no closing
    # bracket is not a reference (the guard keeps such labels text, so the parse stays linear)
    tokens = parse("[^a]: a\n\n" + "[^" * 20_000)
    paragraph = next(t for t in tokens if t.type == "inline" and t.content.startswith("[^[^"))
    assert "".join(c.content for c in paragraph.children or []) == "[^" * 20_000


@pytest.mark.tex
@needs_tex()
def test_the_pdf_has_the_footnote_not_the_markup(tmp_path: Path) -> None:
    _, text = export_pdf_text(tmp_path, "notes", markdown_notebook(SOURCE, title="Notes"))
    flat = " ".join(text.split())
    assert "[^" not in flat and "See the appendix." in flat
    assert flat.index("for one repeated distractor") < flat.index("See the appendix.")
