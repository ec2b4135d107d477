"""The bundled example papers, re-run from scratch: a real kernel executes each notebook, the
outputs it computes match the saved ones, the checks find no error and the PDF compiles with
every reference and citation resolved."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from mechnb.checker import check
from mechnb.findings import Severity

pytestmark = [pytest.mark.kernel, pytest.mark.tex]

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"


def _papers() -> list[Path]:
    papers = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        meta = json.loads(path.read_text("utf-8")).get("metadata", {}).get("mechnb", {})
        if meta.get("paper_type"):
            papers.append(path)
    return papers


PAPERS = _papers()


def _png_size(b64: str) -> tuple[int, int]:
    import base64

    head = base64.b64decode(b64[:64])
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _pdf_size(b64: str) -> str:
    import base64
    import re

    data = base64.b64decode(b64)
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[ ?([0-9. ]+?) ?\]", data)
    assert box is not None
    return box.group(1).decode()


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _fingerprint(cell: dict[str, Any]) -> list[tuple[str, ...]]:
    """What a code cell computed: exact text outputs, images by their pixel size."""
    out: list[tuple[str, ...]] = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            out.append(("stream", o["name"], _text(o["text"])))
        elif o["output_type"] == "error":
            out.append(("error", o["ename"], o["evalue"]))
        else:
            for mime, value in sorted(o.get("data", {}).items()):
                if mime == "image/png":
                    out.append((mime, *map(str, _png_size(_text(value)))))
                elif mime == "application/pdf":  # vector figure: its page size (no dates)
                    out.append((mime, _pdf_size(_text(value))))
                else:
                    out.append((mime, _text(value)))
    return out


def test_every_example_paper_is_tested() -> None:
    names = {p.name for p in PAPERS}
    assert {"failure_paper.ipynb", "expressivity_paper_zh.ipynb"} <= names


@pytest.mark.parametrize("source", PAPERS, ids=lambda p: p.stem)
def test_example_paper_reruns_checks_and_compiles(tmp_path: Path, source: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
        pytest.skip("TeX Live (latexmk, xelatex) is not installed")
    import nbformat
    from nbclient import NotebookClient

    from mechnb.exporter import export

    saved = json.loads(source.read_text("utf-8"))
    bib = saved["metadata"]["mechnb"].get("bibliography")
    if bib:
        shutil.copy(NOTEBOOKS / bib, tmp_path / bib)
    nb = nbformat.reads(source.read_text("utf-8"), as_version=4)
    for cell in nb.cells:  # start from nothing: every output must be computed again
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(name, "1")  # as the builders run them (one thread)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    path = tmp_path / source.name
    nbformat.write(nb, path)

    rerun = json.loads(path.read_text("utf-8"))
    for index, (old, new) in enumerate(zip(saved["cells"], rerun["cells"], strict=True)):
        if old["cell_type"] == "code":
            assert _fingerprint(new) == _fingerprint(old), f"cell {index} computes other outputs"
            assert not any(o["output_type"] == "error" for o in new["outputs"])

    findings = check(path)
    assert [f.format(path.name) for f in findings if f.severity is Severity.ERROR] == []

    result = export(path, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None and result.pdf_path.stat().st_size > 0
    assert [f.format(path.name) for f in result.errors] == []
    assert result.log_path is not None
    log = result.log_path.read_text("utf-8", errors="replace")
    assert "undefined" not in log.lower().replace("undefined references.", "")
    assert "multiply defined" not in log
    assert "??" not in result.latex
    # every figure and table the text references is placed with its label
    labels = {c["metadata"]["mechnb"]["label"] for c in saved["cells"]
              if c["cell_type"] == "code" and c["metadata"].get("mechnb", {}).get("label")}
    for label in labels:
        assert f"\\label{{{label}}}" in result.latex


def test_getting_started_tour_runs_and_closes_its_open_loop(tmp_path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    source = NOTEBOOKS / "getting-started.ipynb"
    nb = nbformat.reads(source.read_text("utf-8"), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    def shown(cell: Any) -> str:
        parts = []
        for o in cell.outputs:
            assert o.output_type != "error", f"{cell.source[:40]!r}: {o.get('evalue')}"
            parts.append(_text(o.get("text", "")) + _text(o.get("data", {}).get("text/plain", "")))
        return "\n".join(parts)

    outputs = [(cell.source, shown(cell)) for cell in nb.cells if cell.cell_type == "code"]
    checks = [text for src, text in outputs if src.startswith("%mech check")]
    assert len(checks) == 2
    opened, closed = checks
    assert "MECH004 error unclosed-statement: theorem thm:mass is never closed" in opened
    assert "draft.ipynb: 0 errors" in closed and "MECH004" not in closed
    inserted = next(t for s, t in outputs if s.startswith("%mech theorem"))
    assert "role theorem · label thm:mass" in inserted and "role interpretation" in inserted
    tex = (tmp_path / "build" / "tour" / "out" / "draft.tex").read_text("utf-8")
    assert "\\begin{theorem}[{Attention mass}]\\label{thm:mass}" in tex
    assert (tmp_path / "build" / "tour" / "arxiv" / "draft-arxiv.tar.gz").stat().st_size > 0
    # the saved tour shows the same errors (other severities follow the nearest pyproject.toml)
    saved = nbformat.reads(source.read_text("utf-8"), as_version=4)
    saved_checks = [shown(c) for c in saved.cells
                    if c.cell_type == "code" and c.source.startswith("%mech check")]

    def errors(report: str) -> list[str]:
        return [line for line in report.splitlines() if " error " in line]

    assert [errors(r) for r in saved_checks] == [errors(r) for r in checks]
