"""The TeX gate (MECH022): what it finds, that nothing silences it, and that --pdf obeys it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.checker import check, dangerous_tex
from mechnb.exporter.api import UntrustedTexError, export
from mechnb.notebook import paper_from_dict, read_paper
from mechnb.tex.scan import find_dangerous

REPO = Path(__file__).resolve().parents[2]
FIRES = REPO / "tests" / "fixtures" / "checker" / "rules" / "MECH022-dangerous-tex" / "fires.ipynb"
PASSES = FIRES.with_name("passes.ipynb")
PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
           "RU5ErkJggg==")
CASES = json.loads((REPO / "tests" / "fixtures" / "hardening" / "gate_cases.json").read_text())


@pytest.mark.parametrize(("tex", "reason"), [(c["tex"], c["reason"]) for c in CASES["fires"]],
                         ids=[c["tex"][:40] for c in CASES["fires"]])
def test_the_gate_finds(tex: str, reason: str) -> None:
    found = find_dangerous(tex)
    assert found, tex
    assert reason in found[0].reason


@pytest.mark.parametrize("tex", CASES["passes"], ids=[t[:40] for t in CASES["passes"]])
def test_the_gate_lets_pass(tex: str) -> None:
    assert find_dangerous(tex) == []


def _cell_nb(**parts: object) -> dict[str, object]:
    cell: dict[str, object] = {"cell_type": "code", "id": "c0", "execution_count": 1,
                               "metadata": {"mechnb": {"role": "result"}}, "source": "x",
                               "outputs": [{"output_type": "display_data", "metadata": {},
                                            "data": parts}]}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}


@pytest.mark.parametrize("mime", ["text/latex", "text/markdown"])
def test_outputs_are_scanned(mime: str) -> None:
    paper = paper_from_dict(_cell_nb(**{mime: "$\\special{pdf:fstream @x (/etc/passwd)}$"}))
    found = dangerous_tex(paper)
    assert [(f.code, f.cell) for f in found] == [("MECH022", 0)]
    assert f"output 1 ({mime})" in found[0].message


def test_notebook_metadata_and_files_are_scanned(tmp_path: Path) -> None:
    (tmp_path / "t.tex").write_text("\\immediate\\write18{x}\\title{((( title )))}((( body )))"
                                    "((( bibliography )))", "utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={\\input{/etc/passwd}}}", "utf-8")
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "As in [@a]."}],
          "metadata": {"mechnb": {"title": "$\\XeTeXpdffile /etc/x.pdf$", "template": "t.tex",
                                  "bibliography": "refs.bib"}}}
    path = tmp_path / "p.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    messages = [f.message for f in dangerous_tex(read_paper(path))]
    # the template is approved as a whole: \immediate is a prefix there, \write18 the shell
    assert len(messages) == 3, messages
    assert any(m.startswith("notebook metadata.mechnb.title") for m in messages)
    assert any(m.startswith("the template file t.tex: `\\write18") for m in messages)
    assert any(m.startswith("the bibliography p_files/refs.bib") for m in messages)


def test_caption_math_is_judged_as_tex() -> None:
    def caption(text: str) -> list[str]:
        # a figure with an image: its caption is printed (without one, nothing of it is)
        nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "id": "f", "source": "plot()", "execution_count": 1,
             "metadata": {"mechnb": {"role": "figure", "label": "fig:a", "caption": text}},
             "outputs": [{"output_type": "display_data", "metadata": {},
                          "data": {"image/png": PNG_1PX}}]}]}
        return [f.message for f in dangerous_tex(paper_from_dict(nb))]

    # a key option in the caption's math reads a file; in its prose it is only words
    assert len(caption("Scores $\\tcbset{watermark graphics=/etc/x.png}$.")) == 1
    assert caption("The file = the log, $a = b$.") == []
    # its prose never reaches TeX as TeX (the export escapes it: \\textbackslash{}special)
    assert len(caption("Raw $\\special{pdf:x}$ and \\special{y}.")) == 1


def test_no_tag_or_configuration_silences_the_gate() -> None:
    findings = check(FIRES)  # the fixture tags the cell mech-ignore:MECH022 and disables it
    # the five refused places of the math span; the same commands in the cell's prose are
    # printed as text by the export (escaped), so they are no longer findings
    assert sum(f.code == "MECH022" for f in findings) == 5
    refused = [f for f in findings if f.code == "MECH028"]
    assert len(refused) == 1 and "cannot be disabled" in refused[0].message
    relevel = check(FIRES, config={"severity": {"dangerous-tex": "info"},
                                   "disable": ["MECH022"]})
    assert {f.severity.value for f in relevel if f.code == "MECH022"} == {"error"}
    assert check(PASSES) == []


def _export(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mechnb", "export", *map(str, args)],
                          capture_output=True, text=True, timeout=120, check=False)


def test_export_pdf_refuses_while_the_gate_fires(tmp_path: Path) -> None:
    proc = _export(FIRES, "-o", tmp_path / "out", "--pdf")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith("mechnb export: not compiled: cell 8 line 8 has TeX that could "
                               "reach outside the paper (and 4 more)")
    assert "--trust" in lines[0]
    assert not (tmp_path / "out").exists()  # nothing written
    with pytest.raises(UntrustedTexError):
        export(FIRES, tmp_path / "api", pdf=True)
    assert not (tmp_path / "api").exists()
    ok = _export(FIRES, "-o", tmp_path / "tex-only")  # without --pdf the .tex is written
    assert ok.returncode == 0 and (tmp_path / "tex-only" / "fires.tex").exists()


def test_trust_cannot_come_from_the_notebook(tmp_path: Path) -> None:
    raw = json.loads(FIRES.read_text("utf-8"))
    raw["metadata"]["mechnb"]["trust"] = True
    raw["metadata"]["trust"] = True
    with pytest.raises(UntrustedTexError):
        export(raw, tmp_path / "out", pdf=True)


@pytest.mark.tex
@pytest.mark.skipif(not (shutil.which("xelatex") and shutil.which("latexmk")),
                    reason="TeX Live (xelatex, latexmk) is not installed")
def test_trust_compiles_what_the_user_vouches_for(tmp_path: Path) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "Trusted"}},
          "cells": [{"cell_type": "markdown", "id": "a", "metadata": {},
                     "source": "Angle $\\csname alpha\\endcsname$ here."}]}
    path = tmp_path / "trusted.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    refused = _export(path, "--pdf")
    assert refused.returncode == 1 and "cell 1 line 1" in refused.stderr
    proc = _export(path, "--pdf", "--trust")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "build" / "trusted" / "trusted.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("builtin", ["article.tex", "ctexart.tex"])
def test_a_template_copied_from_the_builtins_passes(builtin: str, tmp_path: Path) -> None:
    text = (REPO / "mechnb" / "data" / "latex" / builtin).read_text("utf-8")
    (tmp_path / "mine.tex").write_text(text, "utf-8")
    nb = {"nbformat": 4, "nbformat_minor": 5, "cells": [],
          "metadata": {"mechnb": {"template": "mine.tex"}}}
    path = tmp_path / "p.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    assert dangerous_tex(read_paper(path)) == []
    (tmp_path / "mine.tex").write_text(text + "\n\\input{/etc/passwd}\n", "utf-8")
    assert len(dangerous_tex(read_paper(path))) == 1
