"""``mechnb import paper.tex``: an annotated notebook that exports back to the same paper."""

from __future__ import annotations

import collections
import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.exporter.api import render
from mechnb.latexin.importer import import_latex, without_file_fields
from mechnb.notebook import read_paper
from mechnb.tex.comments import mask_comments
from mechnb.tex.gate import assess
from mechnb.tex.mathcompat import rewrite_math
from mechnb.tex.trust import unapproved


def needs_tex() -> pytest.MarkDecorator:
    """Skip unless pdflatex and latexmk are installed (``make tex`` installs them)."""
    missing = not (shutil.which("pdflatex") and shutil.which("latexmk"))
    return pytest.mark.skipif(missing, reason="TeX Live (pdflatex, latexmk) is not installed")


PAPER = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / "copying"
LABEL = re.compile(r"\\label\{([^{}]*)\}")
CITE = re.compile(r"\\[A-Za-z]*cite[a-z]*\*?(?:\[[^\]]*\]){0,2}\{([^{}]*)\}")
DISPLAY = re.compile(r"\\begin\{(equation|align|gather|multline)\*?\}(.*?)\\end\{\1\*?\}", re.S)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def cells_by(nb: dict, key: str) -> dict[str, dict]:
    return {c["metadata"]["mechnb"][key]: c for c in nb["cells"]
            if key in c.get("metadata", {}).get("mechnb", {})}


@pytest.fixture()
def imported(tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / "nb" / "copying.ipynb"
    code, text, err = run("import", str(PAPER), "-o", str(out), "--yes")
    assert code == 0, err
    assert "wrote" in text
    return out, json.loads(out.read_text("utf-8"))


def test_cells_roles_labels_and_titles(imported: tuple[Path, dict]) -> None:
    _, nb = imported
    meta = nb["metadata"]["mechnb"]
    assert meta["title"] == "How a Two-Layer Attention Model Learns to Copy"
    assert meta["authors"] == ["Ada Example", "Bo Sample"]
    assert meta["bibliography"] == "copying.bib" and meta["lang"] == "en"
    labelled = cells_by(nb, "label")
    thm = labelled["thm:order"]
    assert thm["cell_type"] == "markdown"
    assert thm["metadata"]["mechnb"] == {"role": "theorem", "label": "thm:order",
                                         "title": "Order of formation"}
    assert thm["source"].startswith("Under \\cref{asm:init}, the matching score")
    assert labelled["def:score"]["metadata"]["mechnb"]["role"] == "definition"  # \newtheorem{defi}
    assert labelled["lem:grad"]["metadata"]["tags"] == ["mech-ignore:MECH003"]
    assert labelled["sec:intro"]["source"] == "# Introduction"
    figure = labelled["fig:order"]
    assert figure["cell_type"] == "raw" and figure["metadata"]["format"] == "text/latex"
    assert figure["metadata"]["mechnb"]["validates"] == ["thm:order"]
    roles = collections.Counter(c.get("metadata", {}).get("mechnb", {}).get("role")
                                for c in nb["cells"])
    for role in ("abstract", "gap", "lens", "contributions", "interpretation", "limitations",
                 "conclusion", "proof"):
        assert roles[role] >= 1, role
    # the run-in roles read from the text carry an empty title: no heading is added
    interp = next(c for c in nb["cells"]
                  if c.get("metadata", {}).get("mechnb", {}).get("role") == "interpretation")
    assert interp["metadata"]["mechnb"]["title"] == ""


def test_text_becomes_markdown_that_renders_in_jupyter(imported: tuple[Path, dict]) -> None:
    _, nb = imported
    text = "\n".join(c["source"] for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "[@olsson2022context]" in text  # \citep → pandoc citation
    assert "\\citet{elhage2021mathematical}" in text  # the \citet family stays LaTeX
    assert "lens of two-step copying:" in text  # \ours{} expanded
    assert "\\begin{equation}\nm_t = " in text  # \be … \ee opened
    assert not re.search(r"\\(?:be|ee)\b", text)
    sketch = next(c for c in nb["cells"]
                  if c.get("metadata", {}).get("mechnb", {}).get("title") == "Sketch")
    assert sketch["metadata"]["mechnb"]["role"] == "proof"  # \newenvironment{sketch} → proof
    macros = nb["cells"][0]
    assert macros["cell_type"] == "markdown"
    assert "$\\newcommand{\\inner}[2]{\\langle #1, #2 \\rangle}$" in macros["source"]
    assert "$\\DeclareMathOperator{\\softmax}{softmax}$" in macros["source"]
    # the macros cell is MathJax's copy: never exported (the template holds the definitions)
    assert macros["metadata"]["mechnb"]["role"] == "note"
    assert nb["cells"][1]["cell_type"] == "markdown"  # no raw definitions cell any more
    _out, _ = imported
    template = (_out.parent / "copying.template.tex").read_text(encoding="utf-8")
    assert "\\newcommand{\\vect}[1]{\\bm{#1}}" in template  # as the author wrote them
    assert "\\newtheorem{obs}{Observation}" in template
    verbatim = next(c for c in nb["cells"] if "\\begin{verbatim}" in c["source"])
    assert verbatim["cell_type"] == "raw"
    assert not any("after the end of the document" in c["source"] for c in nb["cells"])


def test_files_next_to_the_notebook_and_the_trust_record(imported: tuple[Path, dict]) -> None:
    out, nb = imported
    folder = out.parent
    bib = (folder / "copying.bib").read_text()
    assert "@article{vaswani2017attention" in bib and "Zotero" not in bib  # file field gone
    assert (folder / "figures" / "order.png").read_bytes() == \
        (PAPER / "figures" / "order.png").read_bytes()
    template = (folder / "copying.template.tex").read_text()
    assert "\\usepackage{bm}" in template and "((( body )))" in template
    assert nb["metadata"]["mechnb"]["template"] == "copying.template.tex"
    paper = read_paper(out)
    assert assess(paper).review and not unapproved(assess(paper))  # approved with --yes
    assert not assess(paper).refused


def test_never_overwrites_without_force(imported: tuple[Path, dict]) -> None:
    out, _ = imported
    nb_bytes = out.read_bytes()
    out.write_text(out.read_text().replace("Order of formation", "Edited by hand"))
    edited = out.read_bytes()
    code, _, err = run("import", str(PAPER), "-o", str(out))
    assert code == 1 and "--force" in err and out.read_bytes() == edited
    code, _, _ = run("import", str(PAPER), "-o", str(out), "--force")
    assert code == 0 and out.read_bytes() == nb_bytes


def test_refused_constructs_are_reported_at_their_file_and_line(tmp_path: Path) -> None:
    paper = tmp_path / "p"
    shutil.copytree(PAPER, paper)
    intro = paper / "sections" / "intro.tex"
    intro.write_text(intro.read_text() + "\n\\input{/etc/passwd}\n")
    result = import_latex(paper, tmp_path / "o" / "p.ipynb")
    refused = [f for f in result.findings if f.code == "MECH022"]
    assert refused and Path(str(refused[0].file)).name == "intro.tex"
    assert refused[0].line == len(intro.read_text().split("\n")) - 1
    assert assess(read_paper(result.notebook_path)).refused  # not approved by the import


def test_round_trip_keeps_labels_citations_statements_and_equations(
        imported: tuple[Path, dict]) -> None:
    out, _ = imported
    source = mask_comments("\n".join(
        p.read_text() for p in (PAPER / "main.tex", PAPER / "sections" / "intro.tex",
                                PAPER / "sections" / "theory.tex")))
    source = source.replace("\\be\n", "\\begin{equation}\n").replace("\\ee\n",
                                                                      "\\end{equation}\n")
    latex = mask_comments(render(read_paper(out)).latex)
    # the preamble (the paper's own definitions, verbatim) is no equation
    latex = latex[latex.index("\\begin{document}"):]

    def labels(t: str) -> set[str]:
        return set(LABEL.findall(t))

    def keys(t: str) -> set[str]:
        return {k.strip() for m in CITE.finditer(t) for k in m.group(1).split(",")}

    def bodies(t: str, rewrite: bool) -> collections.Counter[str]:
        return collections.Counter(
            re.sub(r"\s+", "", rewrite_math(m.group(0), display=True)[0] if rewrite
                   else m.group(0))[len(m.group(1)) + 8:] for m in DISPLAY.finditer(t))

    assert labels(source) <= labels(latex)
    assert keys(source) == keys(latex)
    assert bodies(source, True) == bodies(latex, False)
    for env, role in (("thm", "theorem"), ("lem", "lemma"), ("defi", "definition"),
                      ("assu", "assumption")):
        assert source.count("\\begin{" + env + "}") == latex.count("\\begin{" + role + "}")


@pytest.mark.tex
@needs_tex()
def test_the_imported_paper_compiles_again(imported: tuple[Path, dict]) -> None:
    import subprocess

    out, _ = imported
    _code, text, err = run("export", str(out), "--pdf")
    pdf = out.parent / "build" / "copying" / "copying.pdf"
    assert pdf.exists(), text + err
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "Theorem 4 (Order of formation)" in words
    assert "(Olsson et al., 2022)" in words and "Elhage et al." in words
    assert "Definition 1 (Matching score)" in words


def test_bib_file_fields_are_dropped() -> None:
    bib = "@a{k,\n  title = {T},\n  file = {x:/a/{b}.pdf},\n  year = 2020\n}\n"
    assert without_file_fields(bib) == "@a{k,\n  title = {T},\n  year = 2020\n}\n"


ZH = PAPER.parent / "zh"


def test_a_chinese_paper_is_read_by_its_chinese_section_titles() -> None:
    from mechnb.latexin.check import check_latex

    codes = {f.code for f in check_latex(ZH)}
    assert "MECH001" not in codes  # 然而… is the gap, 视角 the lens, 局限 the limitations
    assert not codes & {"MECH003", "MECH004"}  # 直观地说… interprets, the proof closes


@pytest.mark.tex
@needs_tex()
def test_a_chinese_paper_imports_and_compiles_with_xelatex(tmp_path: Path) -> None:
    import subprocess

    out = tmp_path / "zh.ipynb"
    import_latex(ZH, out, record_trust=True)  # as `mechnb import --yes`
    nb = json.loads(out.read_text("utf-8"))
    meta = nb["metadata"]["mechnb"]
    assert (meta["lang"], meta["engine"]) == ("zh", "xelatex")
    assert "\\documentclass" in (tmp_path / "zh.template.tex").read_text() and \
        "ctexart" in (tmp_path / "zh.template.tex").read_text()
    thm = cells_by(nb, "label")["thm:order"]
    assert thm["metadata"]["mechnb"] == {"role": "theorem", "label": "thm:order",
                                         "title": "形成顺序"}
    _code, text, err = run("export", str(out), "--pdf")
    pdf = tmp_path / "build" / "zh" / "zh.pdf"
    assert pdf.exists(), text + err
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "定理 2（形成顺序）" in words and "复制回路按固定顺序形成" in words


def test_front_matter_is_plain_text_with_names_kept(tmp_path: Path) -> None:
    """Fresh real papers: a title broken over two lines lost the space between the two words
    ("Pairingfor"), an author whose \\thanks held \\emph{…} was dropped, and "\\&" or an e-mail
    written as \\{a, b\\}@… came out of the PDF as backslashes (hand-written, not copied)."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n"
        "\\title{Heads That Copy\\\\and Heads That Count\\\\[2pt] in Small Models}\n"
        "\\author{%\n  Ada Example\\thanks{Work done while visiting; \\emph{not} a funding note.}"
        " \\\\\n  Department of Things \\\\\n  \\texttt{ada@example.org}\n  \\And\n"
        "  Bo Sample \\& Cy Other \\\\\n  Institute of Stuff \\\\\n"
        "  \\texttt{\\{bo, cy\\}@example.org}\n}\n"
        "\\begin{document}\n\\maketitle\n\\section{Introduction}\nText.\n\\end{document}\n",
        encoding="utf-8")
    result = import_latex(paper / "main.tex", tmp_path / "nb" / "p.ipynb")
    meta = result.imported.notebook["metadata"]["mechnb"]
    assert meta["title"] == "Heads That Copy and Heads That Count in Small Models"
    assert meta["authors"] == [
        {"name": "Ada Example", "affiliation": "Department of Things",
         "email": "ada@example.org"},
        {"name": "Bo Sample & Cy Other", "affiliation": "Institute of Stuff",
         "email": "{bo, cy}@example.org"}]
    rendered = render(read_paper(result.notebook_path)).latex
    assert "Bo Sample \\& Cy Other" in rendered and "\\{bo, cy\\}@example.org" in rendered
    assert "\\textbackslash" not in rendered


def test_a_bib_entry_repeated_is_kept_once(tmp_path: Path) -> None:
    """BibTeX counts a repeated key as an error, which stops latexmk: no PDF for a paper whose
    editor never showed it. The notebook's .bib keeps the first entry, as BibTeX does."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\nText \\citep{alpha, beta}.\n"
        "\\bibliographystyle{plainnat}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8")
    (paper / "refs.bib").write_text(
        "@article{alpha,\n  title = {First {Copy}},\n  year = {2020}\n}\n\n"
        "@misc{beta,\n  title = {Only one},\n  year = {2021}\n}\n\n"
        "@inproceedings{Alpha,\n  title = {Second copy (with {braces})},\n  year = {2022}\n}\n"
        "@string{jn = {Journal}}\n@misc(beta, title = {Third}, year = {2023})\n",
        encoding="utf-8")
    result = import_latex(paper / "main.tex", tmp_path / "nb" / "p.ipynb")
    bib = (tmp_path / "nb" / "p.bib").read_text(encoding="utf-8")
    assert "First {Copy}" in bib and "Only one" in bib and "@string{jn" in bib
    assert "Second copy" not in bib and "Third" not in bib
    repeated = [f for f in result.findings if f.code == "MECH872"]
    assert len(repeated) == 1 and "repeats the entries Alpha, beta" in repeated[0].message


def test_keywords_and_a_list_of_author_names_come_through(tmp_path: Path) -> None:
    """Fresh real papers: an \\and group listing several names over lines ("A, B,\\\\ C") was
    dropped as one over-long name, and \\keywords{a \\and b} vanished from the paper (it is
    front matter the body does not hold). An affiliation with a comma stays an affiliation."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\title{Clocks in the Residual Stream}\n"
        "\\author{\\textbf{Ada Example}\\\\ \\texttt{ada@example.org}\\\\ Lab of Clocks\n"
        "  \\and\n  Bo Sample, Cy Other, Dee Third,\\\\\n  Eve Fourth O'Neil, Fay Fifth\n"
        "  \\and\n  Gus Sixth \\\\ Department of Time, Example University\n}\n"
        "\\begin{document}\n\\maketitle\n\\begin{abstract}Probes find time.\\end{abstract}\n"
        "\\keywords{linear probes \\and activation steering \\and AI safety}\n"
        "\\section{Introduction}\nText.\n\\end{document}\n", encoding="utf-8")
    result = import_latex(paper / "main.tex", tmp_path / "nb" / "p.ipynb")
    meta = result.imported.notebook["metadata"]["mechnb"]
    assert meta["authors"] == [
        {"name": "Ada Example", "affiliation": "Lab of Clocks", "email": "ada@example.org"},
        {"name": "Bo Sample"}, {"name": "Cy Other"}, {"name": "Dee Third"},
        {"name": "Eve Fourth O'Neil"}, {"name": "Fay Fifth"},
        {"name": "Gus Sixth", "affiliation": "Department of Time, Example University"}]
    assert meta["keywords"] == ["linear probes", "activation steering", "AI safety"]
    rendered = render(read_paper(result.notebook_path)).latex
    assert "Keywords:} linear probes, activation steering, AI safety" in rendered
    assert not any("\\keywords" in c["source"] for c in result.imported.notebook["cells"])
