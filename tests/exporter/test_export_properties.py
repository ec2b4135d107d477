"""Property tests: math reaches LaTeX unchanged (but for the documented rewrites of MathJax-only
syntax, such as braces around a bare ``^\\frac{1}{2}``); the renderer never crashes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechnb.exporter.api import render
from mechnb.exporter.markdown import RenderContext, render_markdown
from mechnb.notebook import paper_from_dict
from mechnb.tex.mathcompat import rewrite_math

MATH_ALPHABET = st.sampled_from([*"abcxyzABC0123456789+-=<>()[]^_{},.;:!|'/ ",
                                 "\\alpha", "\\frac{1}{2}", "\\sum_{i}", "\\mathbb{R}",
                                 "\\left(", "\\right)", "\\\\", "&", "%", "#", "~"])
WORDS = st.sampled_from(["attention", "head", "the", "softmax", "of", "a", "100%", "x_1",
                         "(see", "below)", "C++", "naïve", "注意力", "—", "&", "#", "~"])


@st.composite
def math(draw: st.DrawFn) -> str:
    body = "".join(draw(st.lists(MATH_ALPHABET, min_size=1, max_size=12)))
    body = body.strip()
    if not body or body.endswith("\\"):
        body = "x"
    return body


def _as_latex(formula: str, *, display: bool) -> str:
    """``formula`` as LaTeX must read it: MathJax-only syntax rewritten (``mathcompat``)."""
    return rewrite_math(formula, display=display)[0]


@st.composite
def prose(draw: st.DrawFn) -> str:
    return " ".join(draw(st.lists(WORDS, min_size=1, max_size=6)))


@given(prose(), math(), prose())
def test_inline_math_is_preserved(before: str, formula: str, after: str) -> None:
    out = render_markdown(f"{before} ${formula}$ {after}", RenderContext())
    assert f"${_as_latex(formula, display=False)}$" in out


@given(prose(), math())
def test_display_math_is_preserved(before: str, formula: str) -> None:
    source = f"{before}\n\n$$\n{formula}\n$$\n\n{before}"
    out = render_markdown(source, RenderContext())
    assert f"\n{_as_latex(formula, display=True)}\n" in out


@given(st.lists(math(), min_size=1, max_size=3))
def test_align_environment_is_preserved(rows: list[str]) -> None:
    env = "\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}"
    out = render_markdown(f"Text.\n\n{env}\n\nMore.", RenderContext())
    assert _as_latex(env, display=True) in out


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_renderer_never_crashes_on_any_text(source: str) -> None:
    assert isinstance(render_markdown(source, RenderContext(cell=0)), str)


MARKDOWNISH = st.lists(st.sampled_from([
    "# ", "## ", "- ", "1. ", "> ", "```", "    ", "|", "---", "*", "**", "_", "~~", "`", "$",
    "$$", "\\begin{align}", "\\end{align}", "\\label{x}", "[@k]", "[t](u)", "![i](p.png)",
    "<b>", "</b>", "\n", "\n\n", "text", "\\ref{a}", "\\", "{", "}", "&", "%", "中文", "α",
]), max_size=40).map("".join)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(MARKDOWNISH, st.sampled_from([None, "theorem", "proof", "question", "limitations",
                                     "abstract", "appendix", "note", "formula"]))
def test_whole_export_never_crashes_on_markdown_soup(source: str, role: str | None) -> None:
    meta = {"mechnb": {"role": role}} if role else {}
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "metadata": meta, "source": source}]}
    result = render(paper_from_dict(nb))
    assert result.latex.rstrip().endswith("\\end{document}")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKDOWNISH, min_size=1, max_size=4))
def test_cached_rendering_equals_fresh_rendering(sources: list[str]) -> None:
    from mechnb.exporter.context import RenderCache

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "metadata": {}, "source": s} for s in sources]}
    paper = paper_from_dict(nb)
    fresh = render(paper)
    cache = RenderCache()
    first = render(paper, cache=cache)
    second = render(paper, cache=RenderCache(cache.entries))
    for result in (first, second):
        assert result.latex == fresh.latex
        assert [(f.code, f.cell, f.message) for f in result.findings] == [
            (f.code, f.cell, f.message) for f in fresh.findings]
