"""The paper's own preamble (``metadata.mechnb.preamble``, Paper Settings; issue 37): printed
before ``\\begin{document}``, judged by the TeX gate as a preamble (packages may load, what runs
commands, reads files or builds command names is refused), reviewed as a whole and approved like
a template; a TikZ figure in an approved raw cell then compiles."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mechnb import export
from mechnb.exporter.api import UntrustedTexError
from mechnb.notebook import read_paper
from mechnb.tex.gate import PREAMBLE_WHERE, assess
from mechnb.tex.trust import approve, unapproved

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "preview" / "preview_paper.ipynb"
TIKZ = "\\usepackage{tikz}\n\\usetikzlibrary{arrows.meta}\n\\newcommand{\\R}{\\mathbb{R}}"
FIGURE = ("\\begin{figure}[h]\\centering\n\\begin{tikzpicture}\n"
          "\\draw[-{Stealth}] (0,0) -- (2,1) node[right] {head forms};\n"
          "\\end{tikzpicture}\n\\caption{A TikZ arrow drawn in the paper.}\n\\end{figure}")


def _paper(tmp_path: Path, preamble: Any, raw: str | None = None,
           markdown: str | None = None) -> Path:
    nb = json.loads(FIXTURE.read_text("utf-8"))
    nb = copy.deepcopy(nb)
    nb["metadata"]["mechnb"]["preamble"] = preamble
    if markdown is not None:
        nb["cells"].append({"cell_type": "markdown", "id": "md-r", "metadata": {},
                            "source": markdown})
    if raw is not None:
        nb["cells"].append({"cell_type": "raw", "id": "raw-tikz",
                            "metadata": {"format": "text/latex"}, "source": raw})
    path = tmp_path / "p.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    return path


def test_the_preamble_is_printed_and_reviewed_whole(tmp_path: Path) -> None:
    path = _paper(tmp_path, TIKZ, markdown="For $x \\in \\R$ the bound holds.")
    result = export(path, write=False)
    head, _, _ = result.latex.partition("\\begin{document}")
    assert TIKZ in head and head.index("\\usepackage{tikz}") > head.index("cleveref")
    verdict = assess(read_paper(path))
    assert verdict.refused == []
    # one item, the whole preamble; a cell using its macro \R is not off the list
    assert [(i.where, i.kind, i.content.strip()) for i in verdict.review] == [
        (PREAMBLE_WHERE, "preamble", TIKZ)]


@pytest.mark.parametrize("payload", [
    "\\immediate\\write18{touch pwned}",
    "\\input{/etc/hostname}",
    "\\csuse{input}{/etc/hostname}",
    "\\usepackage{../../etc/x}",
    "\\usepackage[file=/etc/hostname]{x}",
    "\\documentclass{article}",
    "\\makeatletter\\@input{/etc/hostname}",
    "\\catcode`\\Z=0",
])
def test_what_a_preamble_may_not_do_is_refused(tmp_path: Path, payload: str) -> None:
    verdict = assess(read_paper(_paper(tmp_path, "\\usepackage{tikz}\n" + payload)))
    assert verdict.refused and all(r.where == PREAMBLE_WHERE for r in verdict.refused)


def test_a_preamble_of_the_wrong_type_is_reported_not_fatal(tmp_path: Path) -> None:
    paper = read_paper(_paper(tmp_path, ["\\usepackage{tikz}"]))
    assert paper.meta.preamble is None
    assert any("metadata.mechnb.preamble" in f.message for f in paper.findings)


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("pdftotext")),
                    reason="TeX Live is not installed")
def test_an_approved_tikz_preamble_and_figure_compile(tmp_path: Path) -> None:
    path = _paper(tmp_path, TIKZ, raw=FIGURE)
    with pytest.raises(UntrustedTexError):
        export(path, tmp_path / "out", pdf=True)
    pending = unapproved(assess(read_paper(path)))
    assert sorted(i.kind for i in pending) == ["preamble", "raw"]
    approve(pending, str(path))
    export(path, tmp_path / "out", pdf=True)
    text = subprocess.run(["pdftotext", str(tmp_path / "out" / "p.pdf"), "-"],
                          capture_output=True, check=True, text=True).stdout
    assert "A TikZ arrow drawn in the paper." in text and "head forms" in text
    # the preamble changed: asked again
    nb = json.loads(path.read_text("utf-8"))
    nb["metadata"]["mechnb"]["preamble"] = TIKZ + "\n\\usetikzlibrary{calc}"
    path.write_text(json.dumps(nb), "utf-8")
    assert [i.kind for i in unapproved(assess(read_paper(path)))] == ["preamble"]
