"""What JupyterLab renders, the PDF prints (issue 34, part two): ``text/html`` outputs as tables,
one finding counting the outputs a PDF without code leaves out, TeX messages that name cells as
people number them, a failing definition reported at its own cell, Cyrillic under pdfLaTeX.

Small hand-written fixtures; the compiles check the PDF's text with pdftotext."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.exporter.api import render
from mechnb.exporter.pdf import parse_log
from mechnb.notebook import paper_from_dict

from .conftest import needs_tex

# a pandas-style DataFrame as Jupyter saves it (written for this test): two header rows, a
# column group spanning two columns, an index cell spanning two rows, numbers and text
DATAFRAME = """<div>
<style scoped>
    .dataframe tbody tr th:only-of-type { vertical-align: middle; }
</style>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;"><th></th><th colspan="2" halign="left">loss</th>
      <th>head_name</th></tr>
    <tr><th>layer</th><th>mean</th><th>max</th><th></th></tr>
  </thead>
  <tbody>
    <tr><th rowspan="2" valign="top">0</th><td>0.125</td><td>-2</td><td>induction</td></tr>
    <tr><td>NaN</td><td>3e-05</td><td>previous_token</td></tr>
    <tr><th>1</th><td>1,024</td><td>7.5</td><td>copy $x$ &amp; paste</td></tr>
  </tbody>
</table>
<p>3 rows × 3 columns</p>
</div>"""


def _table(rows: int, cols: int) -> str:
    head = "".join(f"<th>column_{c}</th>" for c in range(cols))
    body = "".join("<tr><th>" + str(r) + "</th>" + "".join(
        f"<td>{r * cols + c}.5</td>" for c in range(cols)) + "</tr>" for r in range(rows))
    return (f'<table class="dataframe"><thead><tr><th></th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _html(html: str, plain: str = "<pandas.DataFrame>") -> dict[str, object]:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/html": html, "text/plain": plain}}


def _code(source: str, outputs: list[dict[str, object]], role: str | None = None,
          n: int = 0) -> dict[str, object]:
    meta: dict[str, object] = {"mechnb": {"role": role}, "tags": [f"mech:{role}"]} if role else {}
    return {"cell_type": "code", "id": f"k{n}", "metadata": meta, "execution_count": 1,
            "source": source, "outputs": outputs}


def _notebook(*cells: dict[str, object]) -> dict[str, object]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "t", "metadata": {}, "source": "# Heads at work"},
        *cells]}


def _export(folder: Path, stem: str, nb: dict[str, object], *args: str
            ) -> tuple[subprocess.CompletedProcess[str], str]:
    """``mechnb export --pdf`` as a real CLI process; (the process, the PDF's text or "")."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    path = folder / f"{stem}.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    done = subprocess.run([sys.executable, "-m", "mechnb", "export", str(path), "--pdf", *args],
                          capture_output=True, text=True, timeout=300)
    pdf = folder / "build" / stem / f"{stem}.pdf"
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, timeout=60, check=True).stdout if pdf.exists() else ""
    return done, text


# --------------------------------------------------------------------------- text/html outputs


def test_a_dataframe_output_is_a_table_as_jupyter_shows_it() -> None:
    nb = _notebook(_code("df", [_html(DATAFRAME)], role="result", n=1))
    result = render(paper_from_dict(nb))
    latex = result.latex
    assert "\\begin{tabular}{lrrl}" in latex  # numbers right-aligned, text left
    assert " & \\multicolumn{2}{c}{\\textbf{loss}} & \\textbf{head\\_name} \\\\" in latex
    assert "\\textbf{layer} & \\textbf{mean} & \\textbf{max} &  \\\\\n\\midrule" in latex
    assert "\\textbf{0} & 0.125 & -2 & induction \\\\\n & NaN & 3e-05 & previous\\_token" in latex
    assert "1,024 & 7.5 & copy \\$x\\$ \\& paste" in latex
    assert "3 rows × 3 columns" in latex and "vertical-align" not in latex
    assert not [f for f in result.findings if f.code == "MECH801"]


def test_wide_tables_get_smaller_and_long_ones_are_cut_under_their_header() -> None:
    wide = render(paper_from_dict(_notebook(_code("df", [_html(_table(3, 24))], "result", 1))))
    assert "\\resizebox{\\linewidth}{!}{\\tiny\n\\begin{tabular}" in wide.latex
    middling = render(paper_from_dict(_notebook(_code("df", [_html(_table(3, 9))], "result", 1))))
    assert "{\\footnotesize\n\\begin{tabular}" in middling.latex \
        or "{\\scriptsize\n\\begin{tabular}" in middling.latex
    long = render(paper_from_dict(_notebook(_code("df", [_html(_table(95, 2))], "result", 1))))
    assert long.latex.count("\\begin{tabular}{lrr}") == 3  # 40 + 40 + 15 rows
    assert long.latex.count("& \\textbf{column\\_0} & \\textbf{column\\_1} \\\\") == 3
    assert "\\textbf{94} & 188.5 & 189.5 \\\\" in long.latex


def test_an_interactive_html_output_is_one_finding_and_its_empty_fallback_is_not_printed() -> None:
    chart = _html('<div id="chart-1"></div><script>draw("chart-1")</script>',
                  "<IPython.core.display.HTML object>")
    result = render(paper_from_dict(_notebook(_code("chart()", [chart], n=1))),
                    include_code=True)
    [finding] = [f for f in result.findings if f.code == "MECH801"]
    assert finding.cell == 1 and "interactive HTML output" in finding.message
    assert "IPython.core.display" not in result.latex and "draw(" not in result.latex


def test_outputs_left_out_without_code_are_counted_in_one_finding() -> None:
    nb = _notebook(
        _code("print(1)", [{"output_type": "stream", "name": "stdout", "text": "1\n"},
                           {"output_type": "stream", "name": "stderr", "text": ""}], n=1),
        _code("df", [_html(DATAFRAME)], n=2),
        _code("plot()", [{"output_type": "display_data", "metadata": {}, "data": {
            "image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}},
            {"output_type": "error", "ename": "ValueError", "evalue": "x",
             "traceback": []}], n=3),
        _code("x = 1", [], n=4))
    findings = [f for f in render(paper_from_dict(nb)).findings if f.code == "MECH801"]
    [finding] = findings
    assert finding.cell is None
    assert finding.message.startswith("4 outputs of 3 code cells without a role")
    assert "cells 2, 3, 4)" in finding.message  # 1-based, as JupyterLab numbers them
    for kind in ("1 text", "1 HTML/table", "1 image", "1 error"):
        assert kind in finding.message
    shown = render(paper_from_dict(nb), include_code=True)
    assert not [f for f in shown.findings if f.code == "MECH801" and f.cell is None]
    assert "\\textbf{head\\_name}" in shown.latex  # printed beside its code instead


# a comparison table of prose, as course notebooks write them (wider than any line)
PROSE_TABLE = "\n".join([
    "| Method | Main idea | Strengths | Weaknesses | Where it is used |",
    "|---|---|---|---|---|",
    "| Patching | Replace one activation with its value on another input | Causal, simple to run"
    " on any layer | One component at a time, many forward passes | Localizing a behaviour to"
    " heads and layers |",
    "| Probing | Train a linear classifier on the activations | Cheap, scales to every layer at"
    " once | Says what is decodable, not what is used | Finding where a feature is represented"
    " first |"])


def test_a_table_wider_than_the_line_wraps_its_prose_columns() -> None:
    result = render(paper_from_dict(_notebook(
        {"cell_type": "markdown", "id": "p", "metadata": {}, "source": PROSE_TABLE})))
    spec = result.latex.split("\\begin{tabular}{", 1)[1].split("}\n", 1)[0]
    assert spec.startswith("l") and spec.count("p{") == 4, spec
    assert "& \\raggedright One component at a time, many forward passes & Localizing a " \
        "behaviour to heads and layers \\\\" in result.latex  # the last column is justified


@pytest.mark.tex
@needs_tex()
def test_html_outputs_compile_with_their_text(tmp_path: Path) -> None:
    nb = _notebook(
        _code("df", [_html(DATAFRAME)], n=1),
        _code("big", [_html(_table(45, 3))], n=2),
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source":
         "![](https://example.org/cat.png)   \n*after the picture* the text goes on."},
        {"cell_type": "markdown", "id": "p", "metadata": {}, "source": PROSE_TABLE})
    done, text = _export(tmp_path, "tables", nb, "--include-code")
    assert done.returncode == 0, done.stderr
    for phrase in ("loss", "head_name", "0.125", "previous_token", "copy $x$ & paste",
                   "column_2", "134.5", "after the picture", "represented first"):
        assert phrase in text, phrase
    log = (tmp_path / "build" / "tables" / "tables.log").read_text("utf-8", "replace")
    assert not [b for b in log.split("Overfull \\hbox")[1:] if "Localizing" in b[:400]]


def _stream(text: str) -> dict[str, object]:
    return {"output_type": "stream", "name": "stdout", "text": text}


@pytest.mark.tex
@needs_tex()
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_long_code_and_output_lines_wrap_inside_the_page(tmp_path: Path, lang: str) -> None:
    # lines that wrap at a space, after a joint (. , ( / = - _), and anywhere (a block with a
    # run too long for a column): pdfLaTeX for English, XeLaTeX for Chinese; none overfull
    chain = "h = model.transformer.h[0].attn.c_attn.weight.data.numpy().reshape(-1).tolist()"
    url = 'load("https://huggingface.co/spaces/some-user/a-very-long-space-name/resolve/main/x")'
    nb = _notebook(
        _code(chain + "\n" + url + "\nprint('=' * 120)", [_stream("=" * 120 + "\n")], n=1),
        _code("train()", [_stream("100%|" + "█" * 90 + "| 10/10\n"
                                  "sha256:" + "0123456789abcdef" * 6 + "\n"
                                  "    ^" + "^" * 100 + "\n")], n=2),
        _code("# " + "注意力头的复制机制与归纳头的形成过程" * 4 + "\nx = 1", [], n=3))
    nb["metadata"] = {"mechnb": {"lang": lang}}
    done, text = _export(tmp_path, f"wrap_{lang}", nb, "--include-code")
    assert done.returncode == 0, done.stderr
    tex = (tmp_path / "build" / f"wrap_{lang}" / f"wrap_{lang}.tex").read_text("utf-8")
    # anywhere: the output with the bar, the hash and the carets, and the Chinese comment; the
    # chains, the rule and train() wrap at joints and spaces
    assert tex.count("\\begin{Verbatim}[breakanywhere]") == 2
    assert tex.count("\\begin{Verbatim}\n") == 3
    log = (tmp_path / "build" / f"wrap_{lang}" / f"wrap_{lang}.log").read_text("utf-8", "replace")
    assert "Overfull \\hbox" not in log
    assert "reshape(-1).tolist()" in text.replace("\n", "")


# --------------------------------------------------------------------------- TeX messages

LOG = """(./paper.tex
./paper.tex:7: Undefined control sequence.
l.7 Some \\oops
               here.
"""


def test_a_tex_error_names_the_cell_and_the_marker_above_its_line() -> None:
    cells = (None, None, None, None, None, 64, 64, 64)
    [by_index] = parse_log(LOG, "paper.tex", cells, {64: "Some \\oops here."}, {"#64": 64})
    assert by_index.cell == 64 and by_index.cell_number == 65
    assert "(.tex line 7, in cell 65: below `% mechnb:cell #64`, which counts from 0)" \
        in by_index.message
    assert (by_index.line, by_index.column) == (1, 6)
    [by_id] = parse_log(LOG, "paper.tex", cells, None, {"#64": 64, "a1b2": 64})
    assert "(.tex line 7, in cell 65: below `% mechnb:cell a1b2`)" in by_id.message


def _definitions(body: str, use: str) -> dict[str, object]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "t", "metadata": {}, "source": "# Norms"},
        {"cell_type": "markdown", "id": "d", "metadata": {}, "source": f"Macros: $${body}$$"},
        {"cell_type": "markdown", "id": "s", "metadata": {}, "source": "Some text."},
        {"cell_type": "markdown", "id": "u", "metadata": {}, "source": use}]}


@pytest.mark.tex
@needs_tex()
def test_a_definition_that_fails_is_reported_at_its_own_cell(tmp_path: Path) -> None:
    # TeX stops on the definition itself (moved to the preamble); it is used five times, more
    # than the formula-as-code fallback's three retries
    uses = " ".join(f"$\\pair{{x_{k}}}$" for k in range(5))
    done, text = _export(tmp_path, "broken", _definitions("\\newcommand{\\pair}[1]{(#1, #2)}",
                                                          f"The pairs {uses} are small."))
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stderr.splitlines() if "MECH834" in x]
    assert "broken.ipynb[cell 2]:1:11: MECH834 warning" in line  # the definition, not a use
    assert "Illegal parameter number in definition of \\pair" in line
    assert "MECH810" not in done.stderr
    assert text.count("\\pair") == 5 and "are small" in text  # as MathJax marks the uses
    # a definition TeX accepts but that fails where it is used: the first use is printed as
    # code (the fault may be in what it was given), a second failing use blames the definition
    done, text = _export(tmp_path, "inside", _definitions(
        "\\newcommand{\\bad}{x^{a}^{b}}",
        "The value $a \\bad b$ is small.\n\nAnd $c \\bad d$ too."))
    assert done.returncode == 0, done.stderr
    assert "is small" in text and "$a \\bad b$" in text and "c\\badd" in text.replace(" ", "")
    at_definition = [x for x in done.stderr.splitlines()
                     if "inside.ipynb[cell 2]:1:11: MECH834" in x]
    assert len(at_definition) == 2
    assert "fails where it is used in cell 4 (that formula is printed as code)" in at_definition[0]
    assert "TeX rejects the definition of \\bad (TeX error: Double superscript. — inside " \
        "\\bad, defined in cell 2 and used in cell 4)" in at_definition[1]
    assert [x for x in done.stderr.splitlines() if "inside.ipynb[cell 4]" in x and "MECH834" in x]


# --------------------------------------------------------------------------- Cyrillic


RUSSIAN = "Голова внимания копирует токен"


@pytest.mark.tex
@needs_tex()
def test_cyrillic_is_set_through_t2a_for_pdflatex(tmp_path: Path) -> None:
    from mechnb.tex.fontplan import cyrillic_type1, pdftex_cyrillic

    if not pdftex_cyrillic():
        pytest.skip("texlive-lang-cyrillic (T2A, LH fonts) is not installed: `make tex`")
    nb = _notebook({"cell_type": "markdown", "id": "r", "metadata": {},
                    "source": f"In Russian: **{RUSSIAN}**, *а не* слово; Україна: ґ, є, ї."})
    result = render(paper_from_dict(nb))
    assert "\\usepackage[T2A,T1]{fontenc}" in result.latex
    assert not [f for f in result.findings if f.code in ("MECH825", "MECH040")]
    if not cyrillic_type1():  # bitmaps only here: the PDF is built with XeLaTeX, one note says so
        assert result.engine == "xelatex"
        [note] = [f for f in result.findings if f.code == "MECH820"]
        assert "T2A" in note.message and "arXiv's pdfLaTeX" in note.message
    done, text = _export(tmp_path, "ru", nb, "--engine", "pdflatex")
    assert done.returncode == 0, done.stderr
    assert RUSSIAN in " ".join(text.split()) and "Україна: ґ, є, ї" in text


def test_cyrillic_in_math_is_text_and_a_lost_math_letter_is_reported() -> None:
    from mechnb.exporter.pdf import missing_glyphs

    nb = _notebook({"cell_type": "markdown", "id": "r", "metadata": {},
                    "source": "Noise: $$y = \\sin(x) + шум$$"})
    latex = render(paper_from_dict(nb)).latex
    assert "y = \\sin(x) + \\text{ шум }" in latex  # MathJax sets it in a text font
    # a TeX (math) font's lost character is logged as ("448), an OpenType font's as (U+0448)
    log = 'Missing character: There is no ш ("448) in font cmmi10!\n'
    tex = "x\nшум в тексте\n$y + ш$\n"  # traced to math only: text has other fonts
    [finding] = missing_glyphs(log, tex, (None, 1, 2), {1: "шум в тексте", 2: "$y + ш$"})
    assert finding.code == "MECH821" and finding.cell == 2 and "cmmi10" in finding.message


def test_printed_text_of_role_cells_joins_the_one_finding_and_images_stay_per_cell() -> None:
    stream = {"output_type": "stream", "name": "stdout", "text": "slope 1.42\n"}
    image = {"output_type": "display_data", "metadata": {}, "data": {
        "image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}}
    nb = _notebook(_code("run()", [stream], role="experiment", n=1),
                   _code("fit()", [stream, stream], role="result", n=2),
                   _code("plot()", [image], role="result", n=3),
                   _code("print(2)", [stream], n=4))
    findings = [f for f in render(paper_from_dict(nb)).findings if f.code == "MECH801"]
    [whole] = [f for f in findings if f.cell is None]
    assert "1 output of 1 code cell without a role (1 text; cell 5)" in whole.message
    assert "3 printed outputs (streams, plain-text results) of 2 role cells (cells 2, 3)" \
        in whole.message
    [image_cell] = [f for f in findings if f.cell is not None]  # a result's image is a mistake
    assert image_cell.cell == 3 and "role `figure` or `experiment`" in image_cell.message
    shown = render(paper_from_dict(nb), include_code=True)
    assert not [f for f in shown.findings if f.code == "MECH801"]


def test_the_status_line_of_a_mech_magic_is_not_an_output_left_out() -> None:
    status = {"output_type": "display_data", "metadata": {}, "data": {
        "text/plain": "mechnb figures: 6.5 in wide (1 column layout), 11 pt cmr10"}}
    stream = {"output_type": "stream", "name": "stdout", "text": "loaded\n"}
    magic = "%load_ext mechnb\n%mech figures --lang en\nimport numpy as np"
    alone = render(paper_from_dict(_notebook(_code(magic, [status], n=1))))
    assert not [f for f in alone.findings if f.code == "MECH801"]
    [finding] = [f for f in render(paper_from_dict(_notebook(_code(magic, [status, stream], n=1))))
                 .findings if f.code == "MECH801"]
    assert finding.message.startswith("1 output of 1 code cell without a role (1 text")
    # the same text printed by a cell that runs no %mech magic is the user's output
    other = render(paper_from_dict(_notebook(_code("print(s)", [status], n=1))))
    assert [f for f in other.findings if f.code == "MECH801"]
