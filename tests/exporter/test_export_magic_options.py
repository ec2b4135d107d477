"""``%mech export`` in a real kernel takes the CLI's --engine, --style and --bundle (tex)."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from kernel_driver import Kernel
from trust_helper import approve_review

from .conftest import FIXTURES, REPO, needs_tex

pytestmark = [pytest.mark.kernel, pytest.mark.tex, needs_tex()]


def _text(run: object) -> str:
    outputs = run.outputs  # type: ignore[attr-defined]
    return "\n".join(str(o.get("data", {}).get("text/plain", o.get("text", "")))
                     + str(o.get("evalue", "")) for o in outputs)


def test_magic_builds_bundles_with_engine_and_style(kernel: Kernel, tmp_path: Path) -> None:
    folder = tmp_path / "paper"
    shutil.copytree(FIXTURES / "styles", folder)
    approve_review(folder / "venue_paper.ipynb", {"package": "mechtest2026"})
    out = tmp_path / "out"
    run = kernel.execute(
        "%load_ext mechnb\n"
        f"%mech export --notebook {folder / 'venue_paper.ipynb'} {out} --style mechtest2026 "
        "--engine xelatex --bundle arxiv --bundle overleaf")
    assert run.reply["content"]["status"] == "ok", _text(run)
    shown = _text(run)
    tarball, project = out / "venue_paper-arxiv.tar.gz", out / "venue_paper-overleaf.zip"
    assert f"arXiv bundle: {tarball}" in shown and f"Overleaf project: {project}" in shown
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        tex = tar.extractfile("venue_paper.tex").read().decode()  # type: ignore[union-attr]
    assert {"venue_paper.tex", "venue_paper.bbl", "mechtest2026.sty"} <= set(names)
    # --style replaced the notebook's metadata style (which asks for [preprint])
    assert "\\usepackage{mechtest2026}" in tex and "[preprint]{mechtest2026}" not in tex
    with zipfile.ZipFile(project) as zf:
        assert "$pdf_mode = 5;" in zf.read("latexmkrc").decode()  # --engine xelatex


def test_magic_rejects_an_unknown_bundle_with_its_usage(kernel: Kernel, tmp_path: Path) -> None:
    nb = tmp_path / "venue_paper.ipynb"
    shutil.copy(FIXTURES / "styles" / "venue_paper.ipynb", nb)
    run = kernel.execute(f"%load_ext mechnb\n%mech export --notebook {nb} --bundle zip")
    shown = _text(run)
    assert "invalid choice: 'zip'" in shown and "[--bundle arxiv|overleaf]" in shown
    assert not (tmp_path / "build").exists()


def test_magic_streams_progress_then_ends_with_a_summary(kernel: Kernel, tmp_path: Path) -> None:
    """``%mech export --pdf``: each step is a stream output sent while TeX runs, and the final
    report starts with a one-line summary, errors first (an undefined reference here)."""
    import json
    from datetime import datetime

    nb = json.loads((REPO / "tests" / "fixtures" / "preview" / "preview_paper.ipynb")
                    .read_text("utf-8"))
    nb["cells"][5]["source"] = "As Lemma~\\ref{lem:missing} shows, the bound is tight."
    path = tmp_path / "stream.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    run = kernel.execute(f"%load_ext mechnb\n%mech export --notebook {path} --pdf")
    assert run.reply["content"]["status"] == "ok", _text(run)
    mine = [m for m in run.messages if m["parent_header"].get("msg_id") == run.msg_id
            and m["msg_type"] in ("stream", "display_data", "execute_result")]
    streams = [m for m in mine if m["msg_type"] == "stream"]
    text = "".join(m["content"]["text"] for m in streams)
    assert "exporting stream.ipynb" in text and "compiling stream.tex" in text
    report = next(m for m in mine if m["msg_type"] != "stream")
    assert mine.index(streams[0]) < mine.index(report)

    def when(m: dict[str, object]) -> datetime:
        date = m["header"]["date"]  # type: ignore[index]
        return date if isinstance(date, datetime) else datetime.fromisoformat(str(date))

    # sent as it happened, not all at the end: TeX ran between the first line and the report
    assert (when(report) - when(streams[0])).total_seconds() > 0.3
    shown = report["content"]["data"]["text/plain"]
    summary = shown.splitlines()[1]
    assert summary.startswith("Summary: ") and "errors (1 undefined reference)" in summary
    findings = [line for line in shown.splitlines() if " MECH" in line]
    assert " error " in findings[0]  # errors first
