"""The allow-list gate (issue 21): the five families that talked the deny-list round, our own
red-team variants, what needs review and how approval works — in the checker, in
``export --pdf`` without a sandbox (pdfLaTeX and XeLaTeX) and for LuaLaTeX.

The attacks try to put a file from outside the paper (``SECRET``) into the PDF. Each must be
stopped before TeX runs; where a test compiles, it also looks for the secret in every output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mechnb.checker import check
from mechnb.exporter.api import UntrustedTexError, export
from mechnb.notebook import paper_from_dict, read_paper
from mechnb.tex.gate import REFUSED, REVIEW, assess, judge
from mechnb.tex.trust import approve, approved_digests, record_path, unapproved

REPO = Path(__file__).resolve().parents[2]
HAS_TEX = bool(shutil.which("latexmk") and shutil.which("pdflatex") and shutil.which("xelatex"))
needs_tex = pytest.mark.skipif(not HAS_TEX, reason="TeX Live (latexmk) is not installed")

# ---- the five families of the review, each as math a notebook could hold -------------------
FAMILIES = {
    "alias a name taker": r"\let\B\begin \B{pdfobj}",
    "alias with =": r"\let\B=\begin",
    "etoolbox csuse": r"\csuse{input}{SECRET}",
    "etoolbox letcs": r"\letcs\B{input}",
    "expl3 switch": r"\ProvidesExplFile{x}{}{}{} \use:c{input}",
    "expl3 syntax": r"\ExplSyntaxOn \use:c {input}",
    "case mapping": r"\lowercase{\begin{PDFOBJ}}",
    "upper case": r"\uppercase{\def\x{input}}",
    "alias an argument-judged command": r"\let\ig\includegraphics \ig{/etc/hostname}",
    # our own red-team pass
    "csname through expandafter": r"\expandafter\let\expandafter\B\csname begin\endcsname",
    "def body takes a name": r"\def\B{\begin}",
    "newcommand builds an environment": r"\newcommand{\B}[1]{\begin{#1}}",
    "environment name with a comment": "\\begin{in%\nput}",
    "environment called input": r"\begin {input}",
    "input inside text": r"\text{\input{SECRET}}",
    "input inside mathrm": r"\mathrm{\input{SECRET}}",
    "operator body": r"\DeclareMathOperator{\x}{\input{SECRET}}",
    "redefine a file primitive": r"\renewcommand{\openin}{x}",
    "caret escape": r"^^5cinput{SECRET}",
    "def with parameters": r"\def\x#1{#1}",
    "NewDocumentCommand": r"\NewDocumentCommand{\x}{m}{#1}",
    "newenvironment": r"\newenvironment{x}{\input{SECRET}}{}",
    "scantokens": r"\scantokens{\input{SECRET}}",
    "catcode": r"\catcode`\@=11",
    "run link": r"\href{run:cat SECRET}{x}",
    "file link": r"\url{file:///etc/hostname}",
    "filecontents": r"\begin{filecontents}{x.tex}\end{filecontents}",
    "let onto relax-like primitive": r"\let\x\relax",
}


@pytest.mark.parametrize("tex", FAMILIES.values(), ids=FAMILIES.keys())
def test_every_family_is_refused_in_math(tex: str) -> None:
    hits = judge(tex, "math")
    assert any(h.verdict == REFUSED for h in hits), hits


LEGITIMATE = [
    r"\frac{\partial L}{\partial W} = \sum_i \mathbb{E}[x_i]",
    r"\newcommand{\R}{\mathbb{R}} \R^n",
    r"\newcommand{\norm}[1]{\left\lVert #1 \right\rVert} \norm{x}",
    r"\renewcommand{\vec}[1]{\mathbf{#1}}",
    r"\DeclareMathOperator*{\argmax}{arg\,max} \argmax_x f(x)",
    r"\def\eps{\varepsilon} \eps",
    r"\let\phi\varphi",
    r"\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}",
    r"\begin{aligned} a &= b \\ c &= d \end{aligned}",
    r"\operatorname{softmax}(z)_i = \frac{e^{z_i}}{\sum_j e^{z_j}}",
    r"\text{if } x \ge 0 \quad \textbf{else}",
    r"\\input",  # a line break, then the letters "input"
    r"a \% b",
]


@pytest.mark.parametrize("tex", LEGITIMATE)
def test_legitimate_math_is_allowed(tex: str) -> None:
    assert judge(tex, "math", frozenset({"R", "norm", "argmax", "eps"})) == []


def test_a_macro_off_the_list_needs_review_not_refusal() -> None:
    hits = judge(r"\mathbbm{1} + \foo{x}", "math")
    assert [h.verdict for h in hits] == [REVIEW, REVIEW]
    assert [h.snippet for h in hits] == ["\\mathbbm", "\\foo"]


def _md(*sources: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": meta or {}},
            "cells": [{"cell_type": "markdown", "id": f"m{i}", "metadata": {}, "source": s}
                      for i, s in enumerate(sources)]}


def _write(tmp_path: Path, nb: dict[str, Any], name: str = "attack.ipynb") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(nb), "utf-8")
    return path


def test_the_checker_reports_refusals_as_mech022_and_the_rest_as_mech079() -> None:
    paper = paper_from_dict(_md("A $\\let\\B\\begin$ here.", "A $\\mathbbm{1}$ there."))
    found = {(f.code, f.cell) for f in check(paper) if f.code in ("MECH022", "MECH079")}
    assert found == {("MECH022", 0), ("MECH079", 1)}


# ---- payloads outside markdown math: title, .bib @preamble, text/latex outputs -------------
def _output_nb(mime: str, text: str) -> dict[str, Any]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {}}, "cells": [
        {"cell_type": "code", "id": "c0", "execution_count": 1, "source": "x",
         "metadata": {"mechnb": {"role": "experiment"}},
         "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                      "data": {mime: text, "text/plain": "x"}}]}]}


def test_payload_in_the_title_is_refused() -> None:
    paper = paper_from_dict(_md("x", meta={"title": "A $\\let\\x\\includegraphics$ title"}))
    verdict = assess(paper)
    assert {(r.cell, r.where) for r in verdict.refused} == {
        (None, "notebook metadata.mechnb.title")}


def test_bib_preamble_needs_review_and_its_input_is_refused(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@preamble{\"\\newcommand{\\x}{y}\"}\n@misc{a, title={A}}")
    # cited, so BibTeX reads it (a .bib nothing cites never reaches TeX)
    path = _write(tmp_path, _md("As [@a] shows.", meta={"bibliography": "refs.bib"}))
    verdict = assess(read_paper(path))
    assert [r.kind for r in verdict.review] == ["bib"] and verdict.refused == []
    (tmp_path / "refs.bib").write_text("@preamble{\"\\input{/etc/hostname}\"}")
    assert assess(read_paper(path)).refused


def test_latex_outputs_are_judged_as_they_stand_in_the_tex() -> None:
    sympy = assess(paper_from_dict(_output_nb("text/latex", "$$\\frac{x^{2}}{2}$$")))
    assert sympy.refused == [] and sympy.review == []
    table = ("\\begin{tabular}{lr}\n\\toprule\n model & acc \\\\\n\\midrule\n a & 0.9 \\\\\n"
             "\\bottomrule\n\\end{tabular}\n")
    pandas = assess(paper_from_dict(_output_nb("text/latex", table)))
    assert pandas.refused == [] and pandas.review == []
    # R's inline lists (enumerate*) are mechnb's own (inline-lists.tex): allowed
    inline = assess(paper_from_dict(_output_nb("text/latex", "\\begin{enumerate*}\\item a"
                                                             "\\end{enumerate*}")))
    assert inline.refused == [] and inline.review == []
    other = assess(paper_from_dict(_output_nb("text/latex", "\\begin{multicols}{2}a"
                                                            "\\end{multicols}")))
    # judged token by token as it stands in the .tex: the environment off the lists needs review
    assert [(r.kind, r.where) for r in other.review] == [("off-list", "output 1 (text/latex)")]
    attack = assess(paper_from_dict(_output_nb("text/latex", "$$\\let\\B\\begin$$")))
    assert attack.refused


def test_a_verbatim_body_is_text_bare_or_wrapping_anywhere_and_tex_under_other_options() -> None:
    # the exporter opens Verbatim bare or with [breakanywhere] (where a line wraps, not how its
    # body is read): fancyvrb reads the body as text, and so does the gate; any other option
    # (commandchars makes \\ a command again) leaves the body to be judged as TeX
    body = "\n\\input{/etc/passwd}\n\\end{Verbatim}\n"
    for opening in ("\\begin{Verbatim}", "\\begin{Verbatim}[breakanywhere]"):
        assert judge(opening + body, "document") == [], opening
    for opening in ("\\begin{Verbatim}[commandchars=\\\\\\{\\}]",
                    "\\begin{Verbatim}[breakanywhere,commandchars=\\\\\\{\\}]"):
        assert [h.verdict for h in judge(opening + body, "document")] == [REFUSED], opening


# ---- approval ------------------------------------------------------------------------------
RAW = "\\begin{center}\\fbox{raw}\\end{center}"


def _raw_nb(source: str = RAW) -> dict[str, Any]:
    nb = _md("Intro.")
    nb["cells"].append({"cell_type": "raw", "id": "r0", "metadata": {"format": "text/latex"},
                        "source": source})
    return nb


def test_approval_covers_exactly_the_approved_content(tmp_path: Path) -> None:
    path = _write(tmp_path, _raw_nb())
    verdict = assess(read_paper(path))
    assert [r.kind for r in unapproved(verdict)] == ["raw"]
    assert approve(verdict.review, str(path)) == 1
    assert unapproved(assess(read_paper(path))) == []
    assert oct(record_path().stat().st_mode & 0o777) == "0o600"
    changed = _write(tmp_path, _raw_nb(RAW + "%"), "changed.ipynb")
    assert [r.kind for r in unapproved(assess(read_paper(changed)))] == ["raw"]


def test_a_record_not_sealed_by_this_user_is_ignored(tmp_path: Path) -> None:
    path = _write(tmp_path, _raw_nb())
    approve(assess(read_paper(path)).review, str(path))
    data = json.loads(record_path().read_text("utf-8"))
    data["approved"]["0" * 64] = {"kind": "raw"}  # an entry added by hand
    record_path().write_text(json.dumps(data), "utf-8")
    assert approved_digests() == frozenset()


def _cli(*args: object, env: dict[str, str] | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mechnb", *map(str, args)], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **(env or {})},
                          input=stdin)


def test_mechnb_trust_lists_asks_and_records(tmp_path: Path) -> None:
    path = _write(tmp_path, _raw_nb())
    listed = _cli("trust", path, "--list")
    assert listed.returncode == 1 and "review   cell 2: a raw LaTeX cell" in listed.stdout
    declined = _cli("trust", path)  # no terminal: nothing is approved without --yes
    assert declined.returncode == 1 and "--yes" in declined.stderr
    assert unapproved(assess(read_paper(path)))
    done = _cli("trust", path, "--yes")
    assert done.returncode == 0 and "approved 1 item(s)" in done.stdout
    assert unapproved(assess(read_paper(path))) == []
    assert "MECH079" not in {f.code for f in check(path)}


def test_mechnb_trust_cannot_approve_refused_tex(tmp_path: Path) -> None:
    path = _write(tmp_path, _md("$\\let\\B\\begin$"))
    proc = _cli("trust", path, "--yes")
    assert proc.returncode == 1 and "refused  cell 1" in proc.stdout
    with pytest.raises(UntrustedTexError):
        export(path, tmp_path / "out", pdf=True)


# ---- export --pdf without a sandbox ---------------------------------------------------------
SECRET_TEXT = "mechnb-secret-3141592653"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the paper's folder that no attack may read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    path = outside / "secret.tex"
    path.write_text(SECRET_TEXT + "\n", "utf-8")
    return path


def _leaked(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and SECRET_TEXT.encode() in p.read_bytes()]


@needs_tex
@pytest.mark.tex
@pytest.mark.parametrize("sandbox", ["off", "auto"])
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
@pytest.mark.parametrize("family", ["alias a name taker", "etoolbox csuse", "expl3 switch",
                                    "case mapping", "alias an argument-judged command",
                                    "caret escape", "csname through expandafter"])
def test_no_family_reaches_tex(family: str, engine: str, sandbox: str, tmp_path: Path,
                               secret: Path) -> None:
    paper_dir = tmp_path / "paper"
    paper_dir.mkdir()
    tex = FAMILIES[family].replace("SECRET", str(secret)).replace("/etc/hostname", str(secret))
    path = _write(paper_dir, _md(f"Look: $ {tex} $ and ${secret}$."))
    proc = _cli("export", path, "--pdf", "--engine", engine, env={"MECHNB_SANDBOX": sandbox})
    assert proc.returncode == 1 and "not compiled" in proc.stderr
    assert not (paper_dir / "build").exists()
    assert _leaked(tmp_path / "paper") == []


@needs_tex
@pytest.mark.tex
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_allowed_and_approved_content_compiles_without_a_sandbox(engine: str, tmp_path: Path
                                                                 ) -> None:
    nb = _raw_nb()
    nb["cells"][0]["source"] = ("Define $\\newcommand{\\R}{\\mathbb{R}}$ and use $x \\in \\R^n$, "
                                "$\\operatorname{softmax}(z)$.")
    path = _write(tmp_path, nb, "ok.ipynb")
    stopped = _cli("export", path, "--pdf", "--engine", engine, env={"MECHNB_SANDBOX": "off"})
    assert stopped.returncode == 1 and "mechnb trust ok.ipynb" in stopped.stderr
    assert _cli("trust", path, "--yes").returncode == 0
    proc = _cli("export", path, "--pdf", "--engine", engine, env={"MECHNB_SANDBOX": "off"})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "build" / "ok" / "ok.pdf").read_bytes().startswith(b"%PDF")


@needs_tex
@pytest.mark.tex
@pytest.mark.parametrize("where", ["title", "bib preamble", "latex output"])
def test_payloads_outside_markdown_math_do_not_compile(where: str, tmp_path: Path,
                                                        secret: Path) -> None:
    paper_dir = tmp_path / "paper"
    paper_dir.mkdir()
    if where == "title":
        nb = _md("Body.", meta={"title": f"A $\\let\\ig\\includegraphics \\ig{{{secret}}}$"})
    elif where == "bib preamble":
        (paper_dir / "refs.bib").write_text(f'@preamble{{"\\input{{{secret}}}"}}\n'
                                            "@misc{a, title={A}}\n", "utf-8")
        nb = _md("Body [@a].", meta={"bibliography": "refs.bib"})
    else:
        nb = _output_nb("text/latex", f"\\begin{{itemize}}\\item \\input{{{secret}}}"
                                      "\\end{itemize}")
    path = _write(paper_dir, nb)
    approve(assess(read_paper(path)).review, str(path))  # even approved, refused stays refused
    proc = _cli("export", path, "--pdf", "--engine", "pdflatex", env={"MECHNB_SANDBOX": "off"})
    assert proc.returncode == 1 and "not compiled" in proc.stderr
    assert _leaked(tmp_path / "paper") == []


def test_lualatex_without_a_sandbox_needs_trust(tmp_path: Path) -> None:
    path = _write(tmp_path, _md("Plain text."), "lua.ipynb")
    proc = _cli("export", path, "--pdf", "--engine", "lualatex", env={"MECHNB_SANDBOX": "off"})
    assert proc.returncode == 1 and "LuaLaTeX" in proc.stderr and "--trust" in proc.stderr
    assert not (tmp_path / "build" / "lua" / "lua.pdf").exists()


def test_the_example_papers_and_scaffolds_need_no_review() -> None:
    from mechnb.templates import scaffold_notebook

    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        verdict = assess(read_paper(path))
        assert verdict.refused == [] and verdict.review == [], path.name
    for kind in ("dynamics", "failure", "expressivity"):
        for lang in ("en", "zh"):
            verdict = assess(paper_from_dict(scaffold_notebook(kind, lang=lang)))
            assert verdict.refused == [] and verdict.review == [], (kind, lang)
