"""``check`` predicts the PDF: a clean check means no ``??`` after ``export --pdf`` (real TeX),
and no visible placeholder (``[exp:ablate]``: the export prints a reference to a label that is a
template slot or to an experiment not run yet that way instead of ``??``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from mechnb.checker import check
from mechnb.findings import Severity
from mechnb.notebook import read_paper

pytestmark = pytest.mark.tex

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker" / "predicts_pdf"
_UNDEFINED = re.compile(r"Reference `([^']+)' on page \d+ undefined")
_PLACEHOLDER = re.compile(r"\[\\texttt\{([^{}]+)\}\]")


def _undefined_in_pdf(path: Path, out: Path) -> set[str]:
    from mechnb.exporter import export

    result = export(path, out, pdf=True)
    assert result.pdf_path is not None, [f.format(path.name) for f in result.findings]
    assert result.log_path is not None
    undefined = set(_UNDEFINED.findall(result.log_path.read_text("utf-8", errors="replace")))
    placeholders = set(_PLACEHOLDER.findall(result.tex_path.read_text("utf-8")))
    return undefined | placeholders


@pytest.mark.parametrize("name", ["unplaced", "placed", "commented"])
def test_every_reference_the_pdf_cannot_resolve_is_an_error_of_check(tmp_path: Path,
                                                                     name: str) -> None:
    if shutil.which("latexmk") is None:
        pytest.skip("TeX Live (latexmk) is not installed")
    path = FIXTURES / f"{name}.ipynb"
    errors = [f for f in check(path) if f.severity == Severity.ERROR]
    reported = {label for f in errors if f.code in ("MECH015", "MECH045") for label in f.labels}
    # an experiment not run (MECH007, at its cell): its own label prints as a placeholder
    paper = read_paper(path)
    reported |= {paper.cells[f.cell].label for f in errors
                 if f.code == "MECH007" and f.cell is not None and paper.cells[f.cell].label}
    undefined = _undefined_in_pdf(path, tmp_path / "out")
    # check clean => no ?? and no placeholder; each is named by an error finding, nothing more
    assert undefined == reported
    if name == "unplaced":
        assert undefined == {"fig:scores", "exp:ablate", "abs:main", "fig:svg", "tab:acc"}
        # and the unrun experiment that should carry fig:scores validates nothing
        assert {f.code for f in errors} == {"MECH045", "MECH007"}
    elif name == "commented":  # raw HTML is dropped with the labels inside it
        assert undefined == {"res:old", "lim:draft", "eq:in-html"}
        assert {f.code for f in errors} == {"MECH015"}
    else:
        assert errors == [] and undefined == set()
