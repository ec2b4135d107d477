"""End to end: a scaffold runs in a real kernel, and its export compiles with XeLaTeX."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mechnb.templates import scaffold_notebook

pytestmark = [pytest.mark.kernel, pytest.mark.tex]

CASES = [("failure", "en"), ("dynamics", "zh"), ("expressivity", "en")]


@pytest.mark.parametrize(("paper_type", "lang"), CASES, ids=["-".join(c) for c in CASES])
def test_scaffold_runs_and_compiles(tmp_path: Path, paper_type: str, lang: str) -> None:
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        pytest.skip("TeX Live (latexmk, xelatex) is not installed")
    import nbformat
    from nbclient import NotebookClient

    from mechnb.exporter import export

    nb = nbformat.from_dict(scaffold_notebook(paper_type, lang=lang))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={
        "metadata": {"path": str(tmp_path)}}).execute()
    experiments = [c for c in nb.cells if c.cell_type == "code"
                   and c.metadata["mechnb"]["role"] == "experiment"]
    assert experiments
    for cell in experiments:  # every skeleton draws its figure in the kernel
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source[:80]

    path = tmp_path / f"{paper_type}_{lang}.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    result = export(path, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None and result.pdf_path.stat().st_size > 0
    assert [f.format(path.name) for f in result.errors] == []
    assert result.log_path is not None
    log = result.log_path.read_text("utf-8", errors="replace")
    assert "multiply defined" not in log
    assert "undefined" not in log.lower().replace("undefined references.", "")
    for label in ("exp:controlled", "exp:intervention"):
        assert f"\\label{{{label}}}" in result.latex  # each experiment figure is labelled
