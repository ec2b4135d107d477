"""Markdown → LaTeX, one construct at a time, from ``markdown_cases.txt`` (input / expected)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.exporter.markdown import RenderContext, render_markdown

from .conftest import FIXTURES, UPDATE

CASES_FILE = FIXTURES / "markdown_cases.txt"


def read_cases(path: Path) -> list[tuple[str, str, str]]:
    """``name`` line, ``.``, markdown, ``.``, expected LaTeX, ``.`` — repeated."""
    cases = []
    lines = path.read_text("utf-8").split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].strip() or lines[i].startswith("#"):
            i += 1
            continue
        name = lines[i]
        assert lines[i + 1] == ".", f"{path.name}:{i + 2}: expected '.'"
        j = lines.index(".", i + 2)
        k = lines.index(".", j + 1)
        cases.append((name, "\n".join(lines[i + 2:j]), "\n".join(lines[j + 1:k])))
        i = k + 1
    return cases


def write_cases(path: Path, cases: list[tuple[str, str, str]]) -> None:
    blocks = [f"{name}\n.\n{md}\n.\n{tex}\n.\n" for name, md, tex in cases]
    path.write_text("# Markdown cases: name, '.', markdown, '.', expected LaTeX, '.'\n\n"
                    + "\n".join(blocks), "utf-8")


CASES = read_cases(CASES_FILE)

if UPDATE:
    write_cases(CASES_FILE, [(n, md, render_markdown(md, RenderContext(cell=0)))
                             for n, md, _ in CASES])


@pytest.mark.parametrize("source,expected", [(md, tex) for _, md, tex in CASES],
                         ids=[name for name, _, _ in CASES])
def test_markdown_case(source: str, expected: str) -> None:
    assert render_markdown(source, RenderContext(cell=0)) == expected


def test_raw_html_is_converted_and_other_tags_keep_their_text() -> None:
    ctx = RenderContext(cell=4)
    out = render_markdown("<script>alert(1)</script>\n\nText <b>bold</b> <blink>on</blink> "
                          "<marquee>off</marquee>.", ctx)
    assert "script" not in out and "<" not in out and "alert" not in out  # JupyterLab hides it
    assert out == "Text \\textbf{bold} on off."
    [finding] = ctx.findings  # one per cell, naming both tags
    assert finding.code == "MECH803" and finding.cell == 4
    assert "<blink>, <marquee>" in finding.message and "text is kept" in finding.message


def test_citations_and_labels_are_collected() -> None:
    ctx = RenderContext(cell=0)
    render_markdown("See [@a; @b] and \\citet{c,d}.\n\n$$x \\label{eq:x}$$\n\n"
                    "\\begin{align}y \\label{eq:y}\\end{align}", ctx)
    assert ctx.citations == {"a", "b", "c", "d"}
    assert ctx.labels == {"eq:x", "eq:y"}


def test_local_image_is_copied_into_resources(tmp_path: Path) -> None:
    (tmp_path / "plot.png").write_bytes(b"\x89PNG fake")
    ctx = RenderContext(cell=2, base_dir=tmp_path, files_dir="p_files")
    out = render_markdown("![Attention map](plot.png)", ctx)
    assert ctx.resources == {"p_files/cell2-plot.png": b"\x89PNG fake"}
    assert "\\includegraphics" in out and "{p_files/cell2-plot.png}" in out
    assert "\\caption{Attention map}" in out


def test_an_image_left_out_of_a_link_leaves_its_alt_text_as_the_link_text() -> None:
    """A badge link (a remote image inside a link, as notebooks open with) printed an empty,
    invisible ``\\href``; the alt text is the link's text, as a browser shows it. Outside a
    link a left-out image still prints nothing (the finding says why)."""
    ctx = RenderContext(cell=0)
    out = render_markdown("[![Run it *online*](https://badges.example/run.svg)]"
                          "(https://notebooks.example/open/demo)\n\n"
                          "A plot: ![loss curve](https://plots.example/loss.svg) end.", ctx)
    assert "\\href{https://notebooks.example/open/demo}{Run it \\emph{online}}" in out
    assert "A plot:  end." in out and "loss curve" not in out
    assert [f.code for f in ctx.findings] == ["MECH805", "MECH805"]


def test_a_heading_in_a_quote_or_a_list_item_is_bold_text_not_a_section() -> None:
    """LaTeX's sectioning commands are not made for the inside of a list (``quote`` is one): a
    ``\\section`` in a quote right after a section stopped TeX (CommonMark example 230 after
    229). Jupyter shows such a heading inside its quote or item; it is set in bold there."""
    out = render_markdown("# Results\n\n> ## Quoted heading\n> text\n\n- # Listed heading\n"
                          "  more", RenderContext(cell=0))
    assert out.startswith("\\section{Results}")
    assert "\\begin{quote}\n\\par\\textbf{Quoted heading}\\par" in out
    assert "\\item \\par\\textbf{Listed heading}\\par" in out
    assert out.count("section") == 1


def test_image_path_with_spaces(tmp_path: Path) -> None:
    (tmp_path / "my fig.png").write_bytes(b"png")
    ctx = RenderContext(cell=1, base_dir=tmp_path, files_dir="f")
    render_markdown("![x](<my fig.png>)", ctx)
    assert ctx.resources == {"f/cell1-my-fig.png": b"png"} and not ctx.findings


def test_two_images_with_one_name_do_not_collide(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "fig.png").write_bytes(b"one")
    (tmp_path / "b" / "fig.png").write_bytes(b"two")
    ctx = RenderContext(cell=3, base_dir=tmp_path, files_dir="f")
    out = render_markdown("![](a/fig.png) and ![](b/fig.png) and ![](a/fig.png)", ctx)
    assert ctx.resources == {"f/cell3-fig.png": b"one", "f/cell3-fig-2.png": b"two"}
    assert out.count("{f/cell3-fig.png}") == 2 and out.count("{f/cell3-fig-2.png}") == 1
