"""The Python API, the nbconvert exporter, the ``%mech export`` magic and the writer."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mechnb
from mechnb.errors import UsageError
from mechnb.exporter.api import render
from mechnb.exporter.errors import HandEditedError
from mechnb.exporter.magic import ExportReport, mech_export
from mechnb.exporter.writer import atomic_write, write_export
from mechnb.kernel.magics import run_mech
from mechnb.notebook import read_paper

from .conftest import NOTEBOOKS, VENV_BIN


def test_top_level_export_returns_latex_and_resources(paper_dir: Path) -> None:
    result = mechnb.export(paper_dir / "outputs.ipynb", write=False)
    assert result.tex_path is None
    assert result.latex.endswith("\\end{document}\n")
    assert set(result.resources) >= {"outputs_files/cell1-output1.png",
                                     "outputs_files/cell3-output1.pdf"}
    assert not (paper_dir / "build").exists()


def test_export_accepts_notebook_json(paper_dir: Path, tmp_path: Path) -> None:
    nb = json.loads((paper_dir / "title_from_heading.ipynb").read_text("utf-8"))
    result = mechnb.export(nb, tmp_path)
    assert result.tex_path == tmp_path / "paper.tex"
    assert "\\title{A Title From The First Heading}" in result.latex


def test_export_to_a_fresh_directory_and_hand_edit_guard(paper_dir: Path,
                                                         tmp_path: Path) -> None:
    result = mechnb.export(paper_dir / "chinese_zh.ipynb", tmp_path / "x")
    assert result.tex_path is not None and result.tex_path.exists()
    result.tex_path.write_text("edited", "utf-8")
    with pytest.raises(HandEditedError, match="--force"):
        mechnb.export(paper_dir / "chinese_zh.ipynb", tmp_path / "x")
    assert result.tex_path.read_text("utf-8") == "edited"


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.tex"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["b.tex"]


def test_write_export_skips_identical_resources(tmp_path: Path) -> None:
    write_export(tmp_path, "p.tex", "x", {"p_files/f.png": b"img"})
    f = tmp_path / "p_files" / "f.png"
    mtime = f.stat().st_mtime_ns
    write_export(tmp_path, "p.tex", "y", {"p_files/f.png": b"img"})
    assert f.stat().st_mtime_ns == mtime


def test_nbconvert_to_mechnb(paper_dir: Path, tmp_path: Path) -> None:
    nb = paper_dir / "all_roles_en.ipynb"
    proc = subprocess.run([str(VENV_BIN / "jupyter"), "nbconvert", "--to", "mechnb", str(nb),
                           "--output-dir", str(tmp_path)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    tex = tmp_path / "all_roles_en.tex"
    ours = render(read_paper(nb)).latex
    assert tex.read_text("utf-8") == ours
    assert (tmp_path / "all_roles_en_files" / "cell25-output1.png").exists()
    assert (tmp_path / "all_roles_en_files" / "refs.bib").exists()


def test_nbconvert_exporter_class_in_process(paper_dir: Path) -> None:
    import nbformat

    from mechnb.exporter.nbconvert_exporter import MechnbExporter

    node = nbformat.read(str(paper_dir / "outputs.ipynb"), as_version=4)
    latex, resources = MechnbExporter().from_notebook_node(
        node, {"metadata": {"name": "outputs", "path": str(paper_dir)}})
    assert latex == render(read_paper(paper_dir / "outputs.ipynb")).latex
    assert resources["output_extension"] == ".tex"
    assert "outputs_files/cell2-output1.jpg" in resources["outputs"]
    assert any(f["code"] == "MECH802" for f in resources["mechnb_findings"])


@pytest.fixture
def shell(ipython_shell: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    for key in ("__session__", "__vsc_ipynb_file__"):
        ipython_shell.user_ns.pop(key, None)
    yield ipython_shell
    # the shell is shared by the whole session: a notebook path left behind would make later
    # magics (%mech lens, phrases) answer in that notebook's language
    for key in ("__session__", "__vsc_ipynb_file__"):
        ipython_shell.user_ns.pop(key, None)


def test_magic_says_clearly_when_the_notebook_is_unknown(shell: Any) -> None:
    with pytest.raises(UsageError, match="cannot tell which notebook"):
        mech_export(shell, [])


def test_magic_exports_the_kernels_notebook(shell: Any, paper_dir: Path,
                                            tmp_path: Path) -> None:
    shell.user_ns["__session__"] = str(paper_dir / "all_roles_en.ipynb")
    report = mech_export(shell, [str(tmp_path)])
    assert isinstance(report, ExportReport)
    assert report.tex == tmp_path / "all_roles_en.tex" and report.tex.exists()
    assert "saved copy" in repr(report) and str(report.tex) in report._repr_html_()
    inside = mech_export(shell, [str(paper_dir / "out")])
    assert isinstance(inside, ExportReport)
    assert '<a href="out/all_roles_en.tex"' in inside._repr_html_()


def test_magic_with_explicit_notebook_and_bad_option(shell: Any, paper_dir: Path,
                                                     tmp_path: Path) -> None:
    report = mech_export(shell, ["--notebook", str(paper_dir / "outputs.ipynb"),
                                 str(tmp_path)])
    assert isinstance(report, ExportReport)
    assert any(f.code == "MECH802" for f in report.findings)
    with pytest.raises(UsageError, match="usage: %mech export"):
        mech_export(shell, ["--bogus"])


def test_fixture_notebooks_are_valid_nbformat() -> None:
    import nbformat

    for path in NOTEBOOKS.glob("*.ipynb"):
        nbformat.validate(nbformat.read(str(path), as_version=4))


def test_mech_export_line_magic_in_a_real_shell(shell: Any, paper_dir: Path,
                                                tmp_path: Path) -> None:
    from IPython.utils.capture import capture_output

    shell.run_line_magic("load_ext", "mechnb")
    shell.user_ns["__session__"] = str(paper_dir / "chinese_zh.ipynb")
    with capture_output() as captured:
        report = run_mech(shell, f"export {tmp_path}")
    assert isinstance(report, ExportReport), captured.stdout + captured.stderr
    assert report.tex == tmp_path / "chinese_zh.tex"
    assert "{ctexart}" in report.tex.read_text("utf-8")


def test_figure_width_follows_the_image_size() -> None:
    from mechnb.exporter.outputs import DEFAULT_WIDTH, display_width

    def png(width: int) -> bytes:
        return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + width.to_bytes(4, "big") + b"\0" * 8

    assert display_width(png(810), None) == 0.9
    assert display_width(png(450), None) == 0.5
    assert display_width(png(100), None) == 0.45
    assert display_width(png(100), {"width": 720}) == 0.8  # retina: the stored display width
    assert display_width(b"\xff\xd8 jpeg", None) == DEFAULT_WIDTH


def test_magic_pdf_obeys_the_tex_gate(shell: Any, tmp_path: Path) -> None:
    from mechnb.exporter.api import UntrustedTexError

    fires = (NOTEBOOKS.parent.parent / "checker" / "rules" / "MECH022-dangerous-tex"
             / "fires.ipynb")
    with pytest.raises(UntrustedTexError, match="not compiled: cell 8"):
        mech_export(shell, ["--notebook", str(fires), str(tmp_path / "out"), "--pdf"])
    assert not (tmp_path / "out").exists()
    from mechnb.exporter.magic import _parser

    assert _parser().parse_args(["--pdf", "--trust"]).trust is True
