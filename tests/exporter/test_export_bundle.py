"""arXiv and Overleaf bundles, compiled from the unpacked archive as the services do (tex)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from trust_helper import approve_review

from mechnb.cli import main

from .conftest import EXAMPLE, FIXTURES, needs_tex

pytestmark = [pytest.mark.tex, needs_tex()]

AUX_SUFFIXES = {".aux", ".log", ".out", ".blg", ".fls", ".fdb_latexmk", ".toc", ".synctex",
                ".pdf", ".json"}


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def copy_example(stem: str, folder: Path) -> Path:
    nb = folder / f"{stem}.ipynb"
    shutil.copy(EXAMPLE.with_name(f"{stem}.ipynb"), nb)
    shutil.copy(EXAMPLE.with_suffix(".bib"), folder / "example_paper.bib")
    return nb


def tex_env(home: Path) -> dict[str, str]:
    """Nothing of ours: only PATH, and HOME pointing at the empty build folder."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home),
            "max_print_line": "10000"}


def pdflatex_twice(folder: Path, tex: str) -> str:
    """What arXiv does with a tarball holding a .bbl: pdfLaTeX, twice, no BibTeX; the log."""
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-no-shell-escape", tex],
                       cwd=folder, env=tex_env(folder), stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=300, check=False)
    return (folder / tex).with_suffix(".log").read_text("utf-8", errors="replace")


def pdf_text(pdf: Path) -> str | None:
    if shutil.which("pdftotext") is None:
        return None
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, timeout=120, check=True).stdout


@pytest.mark.parametrize("stem", ["example_paper", "example_paper_zh"])
def test_arxiv_bundle_compiles_with_pdflatex_in_an_empty_directory(stem: str,
                                                                  tmp_path: Path) -> None:
    nb = copy_example(stem, tmp_path)
    out_dir = tmp_path / "out"
    code, out, err = run_cli(str(nb), "-o", str(out_dir), "--bundle", "arxiv")
    assert code == 0, err
    bundle = Path(out.strip().splitlines()[-1])  # the bundle is the last line
    assert bundle == out_dir / f"{stem}-arxiv.tar.gz"

    with tarfile.open(bundle) as tar:
        members = tar.getmembers()
        names = sorted(m.name for m in members)
        assert all(m.isfile() for m in members)
        tex_text = tar.extractfile(f"{stem}.tex").read().decode("utf-8")  # type: ignore[union-attr]
    top_tex = [n for n in names if "/" not in n and n.endswith(".tex")]
    assert top_tex == [f"{stem}.tex"]
    assert f"{stem}.bbl" in names
    figures = [n for n in names if "/" in n]
    assert figures and all(n.count("/") == 1 and n.startswith(f"{stem}_files/")
                           for n in figures)
    assert not [n for n in names if any(p.startswith(".") for p in n.split("/"))]
    # no build products (the figures beside the .tex may be vector PDFs: they are figures)
    assert not [n for n in names if "/" not in n and Path(n).suffix in AUX_SUFFIXES | {".bib"}]
    assert all(Path(n).suffix in {".pdf", ".png", ".jpg", ".jpeg"} for n in figures)
    assert str(tmp_path) not in tex_text and "\\includegraphics[width" in tex_text

    empty = tmp_path / "arxiv"
    empty.mkdir()
    with tarfile.open(bundle) as tar:
        tar.extractall(empty)  # our own bundle; names checked above
    log = pdflatex_twice(empty, f"{stem}.tex")
    assert "undefined" not in log.lower()
    assert (empty / f"{stem}.pdf").stat().st_size > 10_000
    text = pdf_text(empty / f"{stem}.pdf")
    if text is not None:
        assert "??" not in text
        title = ("Predicting When an Induction Head Forms" if stem == "example_paper"
                 else "预测归纳头何时形成")
        assert title in text


@pytest.mark.parametrize("stem, mode", [("example_paper", 1), ("example_paper_zh", 5)])
def test_overleaf_zip_compiles_with_its_own_latexmkrc(stem: str, mode: int,
                                                      tmp_path: Path) -> None:
    nb = copy_example(stem, tmp_path)
    code, out, err = run_cli(str(nb), "-o", str(tmp_path / "out"), "--bundle", "overleaf")
    assert code == 0, err
    bundle = Path(out.strip().splitlines()[-1])
    assert bundle.name == f"{stem}-overleaf.zip"
    project = tmp_path / "overleaf"
    with zipfile.ZipFile(bundle) as zf:
        names = sorted(zf.namelist())
        zf.extractall(project)
    assert "latexmkrc" in names and f"{stem}.tex" in names
    assert f"{stem}_files/example_paper.bib" in names
    rc = (project / "latexmkrc").read_text("utf-8")
    assert f"$pdf_mode = {mode};" in rc
    # latexmk as Overleaf runs it: no rc file but the project's own, no main file named
    proc = subprocess.run(["latexmk", "-norc", "-r", "latexmkrc", "-interaction=nonstopmode"],
                          cwd=project, env=tex_env(project), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (project / f"{stem}.pdf").exists() and (project / f"{stem}.bbl").exists()
    log = (project / f"{stem}.log").read_text("utf-8", errors="replace")
    assert "undefined" not in log.lower()


def test_style_fixture_drives_the_pdf_and_travels_in_the_bundle(tmp_path: Path) -> None:
    folder = tmp_path / "paper"
    shutil.copytree(FIXTURES / "styles", folder)
    approve_review(folder / "venue_paper.ipynb")  # the venue's .sty, read once and approved
    code, out, err = run_cli(str(folder / "venue_paper.ipynb"), "-o", str(tmp_path / "out"),
                             "--pdf", "--bundle", "arxiv")
    assert code == 0, err
    pdf, bundle = (Path(p) for p in out.strip().splitlines()[-2:])
    with tarfile.open(bundle) as tar:
        assert "mechtest2026.sty" in tar.getnames()
    text = pdf_text(pdf)
    if text is None:
        pytest.skip("pdftotext is not installed")
    assert "MechTest 2026 preprint stamp" in text  # the package's option took effect
    assert "Venue Theorem 1 (Sink criterion)" in text  # the venue's theorem, not ours
    assert "[1]" in text  # the venue's natbib options (numbers, square), not ours
    assert "Analytical Engines Ltd" in text and "ada@example.org" in text


def test_style_from_the_command_line_overrides_metadata(tmp_path: Path) -> None:
    folder = tmp_path / "paper"
    shutil.copytree(FIXTURES / "styles", folder)
    approve_review(folder / "venue_paper.ipynb", {"package": "mechtest2026"})
    code, out, err = run_cli(str(folder / "venue_paper.ipynb"), "-o", str(tmp_path / "out"),
                             "--pdf", "--style", "mechtest2026")
    assert code == 0, err
    text = pdf_text(Path(out.strip().splitlines()[-1]))
    if text is not None:
        assert "MechTest 2026 anonymous submission" in text


def test_undefined_reference_fails_the_arxiv_bundle(paper_dir: Path, tmp_path: Path) -> None:
    code, _, err = run_cli(str(paper_dir / "undefined_reference.ipynb"), "-o",
                             str(tmp_path), "--bundle", "arxiv")
    assert code == 1
    assert not (tmp_path / "undefined_reference-arxiv.tar.gz").exists()
    assert "[cell 3]" in err and "MECH811 error undefined-reference" in err
    assert "the arxiv bundle failed its check" in err
    assert (tmp_path / "undefined_reference-arxiv-check.log").exists()


@pytest.mark.parametrize("engine", [(), ("--engine", "xelatex")], ids=["default", "xelatex"])
def test_character_pdflatex_lacks_fails_the_arxiv_bundle_at_its_cell(
        tmp_path: Path, engine: tuple[str, ...]) -> None:
    # arXiv compiles with pdfLaTeX: the bundle never falls back to XeLaTeX, whatever --pdf used
    nb = FIXTURES / "engines" / "pdflatex_characters.ipynb"
    code, _, err = run_cli(str(nb), "-o", str(tmp_path), "--pdf", "--bundle", "arxiv", *engine)
    assert code == 1
    assert (tmp_path / "pdflatex_characters.pdf").exists()  # the draft PDF did compile
    # the checker's MECH040 says it (the exporter's MECH825 twin is not repeated)
    assert "pdflatex_characters.ipynb[cell 3]:1:10: MECH040 error" in err
    assert not list(tmp_path.glob("*.tar.gz"))


def test_pdflatex_log_error_maps_to_the_cell(tmp_path: Path) -> None:
    nb = FIXTURES / "engines" / "pdflatex_characters.ipynb"
    code, _, err = run_cli(str(nb), "-o", str(tmp_path), "--pdf", "--engine", "pdflatex")
    assert code == 1
    assert "MECH820" not in err  # an engine someone chose is obeyed
    lines = [ln for ln in err.splitlines() if "[cell 3]" in ln]
    assert len(lines) == 1 and "MECH040" in lines[0]  # neither TeX's error nor MECH825 repeat it


def test_xelatex_still_compiles_what_pdflatex_cannot(tmp_path: Path) -> None:
    nb = FIXTURES / "engines" / "pdflatex_characters.ipynb"
    code, out, err = run_cli(str(nb), "-o", str(tmp_path), "--pdf", "--engine", "xelatex")
    assert code == 0, err
    assert out.strip().splitlines()[-1].endswith("pdflatex_characters.pdf")


def test_fixture_bundles_from_notebooks_dir(paper_dir: Path, tmp_path: Path) -> None:
    """A paper with figures from attachments and files, citations and every role."""
    code, out, err = run_cli(str(paper_dir / "all_roles_en.ipynb"), "-o", str(tmp_path),
                             "--bundle", "arxiv", "--bundle", "overleaf")
    assert code == 0, err
    assert [Path(p).name for p in out.strip().splitlines()[-2:]] == [
        "all_roles_en-arxiv.tar.gz", "all_roles_en-overleaf.zip"]
