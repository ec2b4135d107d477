"""``%mech export`` in a real kernel takes the CLI's --engine, --style and --bundle (tex)."""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from kernel_driver import Kernel
from trust_helper import approve_review

from .conftest import FIXTURES, needs_tex

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
