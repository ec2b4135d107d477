"""End to end, as a new user: `mechnb new` exports with no ??; run, it still refuses to pass."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from mechnb.checker import check
from mechnb.findings import Severity
from mechnb.templates import scaffold_notebook

from .conftest import ids, paper_type_lang

pytestmark = [pytest.mark.kernel, pytest.mark.tex]

CASES = paper_type_lang()
_UNDEFINED = re.compile(r"Reference `([^']+)' on page \d+ undefined")


def _export_without_undefined(path: Path, out: Path) -> str:
    from mechnb.exporter import export

    result = export(path, out, pdf=True)
    assert result.pdf_path is not None and result.pdf_path.stat().st_size > 0
    assert [f.format(path.name) for f in result.errors] == []
    assert result.log_path is not None
    log = result.log_path.read_text("utf-8", errors="replace")
    assert _UNDEFINED.findall(log) == []  # no ?? in the PDF
    assert "multiply defined" not in log
    return result.latex


@pytest.mark.parametrize(("paper_type", "lang"), CASES, ids=ids(CASES))
def test_scaffold_compiles_fresh_and_run_but_never_passes(tmp_path: Path, paper_type: str,
                                                          lang: str) -> None:
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        pytest.skip("TeX Live (latexmk, xelatex) is not installed")
    import nbformat
    from nbclient import NotebookClient

    fresh = tmp_path / f"{paper_type}_{lang}_new.ipynb"
    fresh.write_text(json.dumps(scaffold_notebook(paper_type, lang=lang), ensure_ascii=False),
                     encoding="utf-8")
    _export_without_undefined(fresh, tmp_path / "fresh")

    nb = nbformat.from_dict(scaffold_notebook(paper_type, lang=lang))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={
        "metadata": {"path": str(tmp_path)}}).execute()
    experiments = [c for c in nb.cells if c.cell_type == "code"
                   and c.metadata.get("mechnb", {}).get("role") == "experiment"]
    assert experiments
    for cell in experiments:  # every skeleton draws its (placeholder) figure in the kernel
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source[:80]
    path = tmp_path / f"{paper_type}_{lang}.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    latex = _export_without_undefined(path, tmp_path / "run")
    for cell in experiments:  # the placeholder figure carries the label
        assert f"\\label{{{cell.metadata['mechnb']['label']}}}" in latex

    # run or not, a scaffold's experiments are placeholders: check does not let them pass
    errors = [(f.code, f.cell) for f in check(path) if f.severity == Severity.ERROR]
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                  and c.metadata.get("mechnb", {}).get("role") == "experiment"]
    assert errors == [("MECH046", i) for i in code_cells]
