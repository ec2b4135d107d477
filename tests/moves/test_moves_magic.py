"""``%mech moves`` in a real IPython shell: HTML with escaped, highlighted sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechnb.errors import UsageError
from mechnb.kernel.magics import run_mech

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(scope="module")
def shell():  # type: ignore[no-untyped-def]
    from IPython.testing.globalipapp import get_ipython

    return get_ipython()


def test_html_highlights_each_sentence_and_escapes_text(shell, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    raw = json.loads((FIXTURES / "checker" / "clean.ipynb").read_text("utf-8"))
    raw["cells"][0]["source"] = ("Heads <b>copy</b> tokens & more. We argue that copying arises "
                                 "from a two-step circuit.")
    path = tmp_path / "p.ipynb"
    path.write_text(json.dumps(raw), "utf-8")
    report = run_mech(shell, f"moves {path}")
    html = report._repr_html_()
    assert "<b>copy</b>" not in html and "Heads &lt;b&gt;copy&lt;/b&gt; tokens &amp; more." in html
    assert html.count('class="mechnb-sentence') == 2
    assert "mechnb-first-context" in html and "mechnb-move-mechanism" in html
    assert "Missing moves" in html and "abstract-validation-01" in html
    # Nothing states a gap: reported, with a phrase to start from.
    assert "abstract-gap-01" in html
    text = repr(report)
    assert text.startswith("abstract: 2 sentence(s)") and "missing: validation" in text
    assert "missing: gap" in text
    assert "introduction: 6 paragraph(s)" in text


def test_usage_errors(shell) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="usage: %mech moves"):
        run_mech(shell, "moves --bogus")
