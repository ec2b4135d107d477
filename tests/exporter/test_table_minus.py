"""A negative number in a markdown table prints with a minus sign, not a hyphen (issue 23:
``-52.59`` in the exemplars' tables)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.exporter.context import RenderContext
from mechnb.exporter.markdown import render_markdown

from .conftest import export_pdf_text, markdown_notebook, needs_tex

TABLE = ("| run | change |\n|---|--:|\n| ablated | -52.59 |\n| share | -3% |\n"
         "| range | 2-3 |\n| name | -x |\n")


def test_negative_numbers_get_a_minus_and_other_cells_stay_as_written() -> None:
    latex = render_markdown(TABLE, RenderContext())
    assert "ablated & $-$52.59 \\\\" in latex and "share & $-$3\\% \\\\" in latex
    assert "range & 2-3 \\\\" in latex and "name & -x \\\\" in latex


@pytest.mark.tex
@needs_tex()
def test_the_pdf_shows_a_minus_sign(tmp_path: Path) -> None:
    _, text = export_pdf_text(tmp_path, "minus", markdown_notebook(TABLE, title="Minus"))
    assert "\u221252.59" in text and "-52.59" not in text
