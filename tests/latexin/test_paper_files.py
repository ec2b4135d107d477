"""Issue 35: an imported paper keeps its own preamble, files, class and venue style, and its
inputs are found and read as TeX finds and reads them (a multi-file paper of our own with a
hand-written stand-in venue style, ``tests/fixtures/latexin/venue``)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.latexin.check import check_latex
from mechnb.latexin.importer import import_latex

VENUE = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / "venue"
HAS_TEX = bool(shutil.which("pdflatex") and shutil.which("latexmk") and shutil.which("pdftotext"))

# Text such as matplotlib's PGF backend writes for a label: it makes % and ^ active, so a
# reader that takes % for a comment sees a brace that never closes (hand-written, not copied).
CATCODE_PGF = r"""\begingroup%
\makeatletter%
\begin{pgfpicture}%
\pgfpathrectangle{\pgfpointorigin}{\pgfqpoint{1in}{1in}}%
\pgftext[x=0.5in,y=0.5in]{\catcode`\^=\active\def^{\ifmmode\sp\else\^{}\fi}\catcode`\%=\active\def%{\%}50%}%
\pgftext[x=0.5in,y=0.2in]{\catcode`\^=\active\def^{\ifmmode\sp\else\^{}\fi}\catcode`\%=\active\def%{\%}75%}%
\end{pgfpicture}%
\makeatother%
\endgroup%
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def imported(tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / "venue" / "paper.ipynb"
    code, text, err = run("import", str(VENUE / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    return out, json.loads(out.read_text(encoding="utf-8"))


def test_the_template_is_the_papers_preamble_as_written(imported: tuple[Path, dict]) -> None:
    out, nb = imported
    template = (out.parent / "paper.template.tex").read_text(encoding="utf-8")
    assert "\\documentclass[10pt]{article}" in template  # the paper's class and options
    for line in ("\\def\\half{\\frac{1}{2}}", "\\def\\eqref#1{Eq.~(\\ref{#1})}",
                 "\\newcommand{\\R}{\\mathbb{R}}", "\\newtheorem{lemma}[theorem]{Lemma}"):
        assert line in template, line  # \def stays \def, nothing rewritten
    assert "$" not in template.split("((( extra_packages )))")[0]  # nothing wrapped in $…$
    assert "neurips_2099" not in template  # the venue comes from metadata.mechnb.style
    meta = nb["metadata"]["mechnb"]
    assert meta["style"] == {"class": "article", "class_options": ["10pt"],
                             "package": "neurips_2099", "options": ["accepted"],
                             "bibliography_style": "plainnat"}
    assert meta["files"] == ["figs/bars.pgf"]  # kept as \input, copied next to the notebook
    assert (out.parent / "figs" / "bars.pgf").read_bytes() == (VENUE / "figs" / "bars.pgf"
                                                               ).read_bytes()
    assert (out.parent / "neurips_2099.sty").is_file()
    # MathJax's copy of the definitions is a note: never exported, so never defined twice
    macros = nb["cells"][0]
    assert macros["metadata"]["mechnb"]["role"] == "note" and "\\R" in macros["source"]
    assert not any(c["cell_type"] == "raw" and "\\newcommand" in c["source"]
                   for c in nb["cells"])
    assert not any("a note to the co-authors" in c["source"] for c in nb["cells"])  # % comment


def test_an_input_inside_a_subfile_falls_back_to_the_main_folder(
        imported: tuple[Path, dict]) -> None:
    _out, nb = imported
    text = "\n".join(c["source"] for c in nb["cells"])
    assert "The appendix argument read from the main folder." in text
    labels = {c["metadata"].get("mechnb", {}).get("label") for c in nb["cells"]}
    assert {"lem:zero", "thm:order", "sec:method"} <= labels
    assert not [f for f in check_latex(VENUE) if f.code == "MECH870"]


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live (pdflatex, latexmk, pdftotext) not installed")
def test_the_imported_paper_compiles_with_its_venue_and_files(
        imported: tuple[Path, dict]) -> None:
    out, _nb = imported
    code, text, err = run("export", str(out), "--pdf")  # approved by the import, no --trust
    pdf = out.parent / "build" / "paper" / "paper.pdf"
    assert code == 0 and pdf.exists(), text + err
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    assert "Published at Venue 2099" in words  # the venue style, with its [accepted] option
    assert "Main track" in words  # printed through the style's \csname and \font
    assert "Matching score bars" in words  # the .pgf the paper inputs
    assert "see Eq. (1)" in words  # the paper's own \def\eqref, not amsmath's
    assert "The appendix argument read from the main folder." in words
    assert "Elhage et al. [2021]" in words and "Olsson et al., 2022" in words


def test_a_pgf_that_changes_catcodes_input_twice_is_kept_as_input(tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    (paper / "figs").mkdir(parents=True)
    (paper / "figs" / "plot.pgf").write_text(CATCODE_PGF, encoding="utf-8")
    (paper / "figs" / "plot.tikz").write_text(CATCODE_PGF, encoding="utf-8")
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\section{Results}\nBefore.\n\n"
        "\\begin{figure}\\input{figs/plot.pgf}\\caption{One.}\\end{figure}\n\n"
        "\\begin{figure}\\input{figs/plot.pgf}\\caption{Two.}\\end{figure}\n\n"
        "\\begin{figure}\\input{figs/plot.tikz}\\caption{Three.}\\end{figure}\n\n"
        "\\section{Conclusion}\nThe text after the figures is read.\n\\end{document}\n",
        encoding="utf-8")
    code, text, err = run("check", str(paper / "main.tex"), "--format", "json")
    assert code in (0, 1) and "Traceback" not in err, err
    findings = json.loads(text)
    findings = findings if isinstance(findings, list) else findings["findings"]
    parse = [f for f in findings if f["code"] == "MECH872"]
    assert [Path(f["file"]).name for f in parse] == ["plot.tikz"]  # once, at the file
    result = import_latex(paper / "main.tex", tmp_path / "nb" / "p.ipynb")
    sources = [c["source"] for c in result.imported.notebook["cells"]]
    assert sum("\\input{figs/plot.pgf}" in s for s in sources) == 2  # kept as written
    assert any("The text after the figures is read." in s for s in sources)
    assert result.imported.notebook["metadata"]["mechnb"]["files"] == [
        "figs/plot.pgf", "figs/plot.tikz"]
    assert (tmp_path / "nb" / "figs" / "plot.pgf").is_file()


# ---------------------------------------------------------------- round trip (import --update)

def _export(nb: Path) -> str:
    from mechnb.exporter.api import render
    from mechnb.notebook import read_paper

    return render(read_paper(nb)).latex


def _texts(latex: str) -> list[str]:
    from mechnb.tex.markers import segments

    # a title is the same in both bracket forms (the export writes [{…}])
    return [re.sub(r"\[\{([^{}\]]*)\}\]", r"[\1]", " ".join(s.text.split()))
            for s in segments(latex)]


def _delete_paragraph(tex: str) -> str:
    start = tex.index("% mechnb:cell", tex.index("\\end{lemma}"))
    end = tex.index("% mechnb:cell", start + 1)
    assert "The appendix argument" in tex[start:end]
    return tex[:start] + tex[end:]


EDITS = {
    "wording": lambda t: t.replace("Why it forms in order is unknown.",
                                   "Why it forms in this order is unknown."),
    "new paragraph": lambda t: t.replace(
        "Why it forms in order is unknown.\n",
        "Why it forms in order is unknown.\n\nA co-author adds a paragraph here.\n"),
    "deleted paragraph": _delete_paragraph,
    "theorem title [New]": lambda t: t.replace("[{Formation order}]", "[Order of formation]"),
    "theorem title [{New}]": lambda t: t.replace("[{Formation order}]",
                                                 "[{Order of formation}]"),
    "labelled equation": lambda t: t.replace("s_t = \\half \\sum_{i<t} a_{t,i}",
                                             "s_t = \\half \\sum_{i<t} a_{t,i}^2"),
    "unlabelled equation": lambda t: t.replace("\\|x\\| \\le 1", "\\|x\\| \\le 2"),
    "added \\citep and \\citet": lambda t: t.replace(
        "describe the circuit.", "describe the circuit \\citep{olsson2022}, as "
        "\\citet{elhage2021} and \\cite{olsson2022} show."),
}


@pytest.mark.parametrize("kind", list(EDITS))
def test_a_coauthors_edit_comes_back_exactly(kind: str, imported: tuple[Path, dict]) -> None:
    nb, _ = imported
    before = _export(nb)
    edited = EDITS[kind](before)
    assert edited != before, kind
    path = nb.parent / "edited.tex"
    path.write_text(edited, encoding="utf-8")
    code, text, err = run("import", "--update", str(nb), str(path))
    assert code == 0, text + err
    after = _export(nb)
    # the edit, and nothing else, came back (a new paragraph becomes a cell of its own)
    assert " ".join(_texts(after)) == " ".join(_texts(edited)), text
    # equations keep their environment, so their numbers
    assert after.count("\\begin{equation}") == before.count("\\begin{equation}") == 2
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    if kind.startswith("theorem title"):
        thm = next(c for c in cells if c["metadata"].get("mechnb", {}).get("label") ==
                   "thm:order")
        assert thm["metadata"]["mechnb"]["title"] == "Order of formation"


@pytest.mark.skipif(not shutil.which("kpsewhich"), reason="TeX Live (kpsewhich) not installed")
def test_a_missing_package_names_the_debian_package_and_a_refused_bst_gives_way(
        tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amsmath}\n\\usepackage{nosuchpackage}\n"
        "\\begin{document}\nText \\citep{k}.\n\\bibliographystyle{venuebib}\n"
        "\\bibliography{refs}\n\\end{document}\n", encoding="utf-8")
    (paper / "refs.bib").write_text("@misc{k, title={T}, year={2020}}\n", encoding="utf-8")
    # a BibTeX style whose output spells \input of a file outside the paper: the gate refuses
    # it (a harmless \csname url\endcsname is TeX programming, allowed in a whole-file review)
    (paper / "venuebib.bst").write_text(
        'FUNCTION {begin.bib}\n{ "\\csname url\\endcsname" write$ newline$\n'
        '  "\\csname input\\endcsname{/etc/hostname}" write$ newline$ }\n',
        encoding="utf-8")
    result = import_latex(paper / "main.tex", tmp_path / "nb" / "p.ipynb")
    missing = [f for f in result.findings if f.code == "MECH870"]
    assert len(missing) == 1 and missing[0].line == 3
    assert "nosuchpackage.sty is neither next to the paper nor in this TeX Live" in \
        missing[0].message
    meta = result.imported.notebook["metadata"]["mechnb"]
    assert "bibliography_style" not in meta.get("style", {})
    assert not (tmp_path / "nb" / "venuebib.bst").exists()  # not copied, not judged
    assert any(f.code == "MECH874" and "venuebib.bst has TeX the gate refuses" in f.message
               for f in result.findings)
    from mechnb.latexin.importer import DEBIAN_PACKAGE

    assert DEBIAN_PACKAGE["bbm.sty"] == "texlive-fonts-extra"
    assert DEBIAN_PACKAGE["algorithm.sty"] == "texlive-science"


@pytest.mark.skipif(not HAS_TEX or not shutil.which("kpsewhich") or subprocess.run(
    ["kpsewhich", "llncs.cls"], capture_output=True, text=True).returncode != 0,
    reason="llncs.cls (texlive-publishers) not installed")
def test_a_class_with_its_own_proof_and_front_matter_in_the_body_compiles(
        tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass[runningheads]{llncs}\n\\usepackage{amsmath}\n\\begin{document}\n"
        "\\title{Order}\\author{Ada}\\institute{Somewhere}\\maketitle\n"
        "\\section{Introduction}\n\\begin{theorem}\\label{t}Heads form in order.\\end{theorem}\n"
        "\\begin{proof}By induction.\\end{proof}\nSee \\ref{t}.\n\\end{document}\n",
        encoding="utf-8")
    out = tmp_path / "nb" / "p.ipynb"
    code, text, err = run("import", str(paper / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    nb = json.loads(out.read_text(encoding="utf-8"))
    assert nb["metadata"]["mechnb"]["style"] == {"class": "llncs",
                                                 "class_options": ["runningheads"]}
    assert not any("Somewhere" in c["source"] or "maketitle" in c["source"]
                   for c in nb["cells"])  # the front matter is not body text
    code, text, err = run("export", str(out), "--pdf")
    pdf = tmp_path / "nb" / "build" / "p" / "p.pdf"
    assert code == 0 and pdf.exists(), text + err
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout
    assert "Heads form in order." in words and "By induction." in words


# A stand-in for a venue package that names its own BibTeX style, as ACL's acl.sty does
# (hand-written, not copied): the export's \bibliographystyle would be a second one.
OWN_BIBSTYLE_STY = r"""\NeedsTeXFormat{LaTeX2e}
\ProvidesPackage{acl2099}[2099/01/01 stand-in venue style]
\DeclareOption{review}{}
\ProcessOptions\relax
\RequirePackage{natbib}
\bibliographystyle{acl2099_natbib}
\AtBeginDocument{\typeout{Venue 2099 style loaded}}
"""


def _import_and_export(main: Path, folder: Path) -> str:
    """Import ``main`` into ``folder/p.ipynb`` (approving what it brings), export it with
    ``--pdf`` and return the PDF's text; both steps must succeed."""
    out = folder / "p.ipynb"
    code, text, err = run("import", str(main), "-o", str(out), "--yes")
    assert code == 0, text + err
    code, text, err = run("export", str(out), "--pdf")
    pdf = folder / "build" / "p" / "p.pdf"
    assert code == 0 and pdf.exists(), text + err
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live (pdflatex, latexmk, pdftotext) not installed")
def test_a_venue_package_that_names_its_own_bibstyle_compiles(tmp_path: Path) -> None:
    """Fresh real papers (ACL's style): BibTeX stopped at the second \\bibstyle and latexmk
    made no PDF. The export's style is the only one BibTeX sees."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "acl2099.sty").write_text(OWN_BIBSTYLE_STY, encoding="utf-8")
    (paper / "main.tex").write_text(
        "\\documentclass[11pt]{article}\n\\usepackage[review]{acl2099}\n\\begin{document}\n"
        "\\section{Introduction}\nInduction heads copy tokens \\citep{heads}.\n"
        "\\bibliography{refs}\n\\end{document}\n", encoding="utf-8")
    (paper / "refs.bib").write_text(
        "@article{heads,\n  author = {Example, Ada},\n  title = {Heads that copy},\n"
        "  journal = {Journal of Circuits},\n  year = {2022}\n}\n", encoding="utf-8")
    words = _import_and_export(paper / "main.tex", tmp_path / "nb")
    assert "[Example, 2022]" in words and "Heads that copy" in words


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live (pdflatex, latexmk, pdftotext) not installed")
def test_a_numeric_bibliography_style_compiles_with_numbered_citations(tmp_path: Path) -> None:
    """Fresh real papers: \\bibliographystyle{plain} writes \\bibitem{key} without an
    author-year label, and natbib (which the export loads in author-year mode) stopped on it:
    no PDF. The citations are numbered, as the paper printed them."""
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\section{Introduction}\n"
        "Probes read the residual stream \\cite{probe, steer}.\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8")
    (paper / "refs.bib").write_text(
        "@article{probe,\n  author = {Example, Ada},\n  title = {Linear probes of time},\n"
        "  journal = {Journal of Probes},\n  year = {2023}\n}\n"
        "@misc{steer,\n  author = {Sample, Bo},\n  title = {Steering by adding},\n"
        "  year = {2024}\n}\n", encoding="utf-8")
    words = _import_and_export(paper / "main.tex", tmp_path / "nb")
    assert "residual stream [1, 2]" in words and "Linear probes of time" in words
