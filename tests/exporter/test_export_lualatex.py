"""LuaLaTeX for real (tex): the English example compiles; Chinese needs luatexja, else MECH832."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from mechnb.exporter.styles import kpsewhich

from .conftest import needs_tex
from .test_export_bundle import copy_example, pdf_text, run_cli, tex_env

pytestmark = [pytest.mark.tex, needs_tex(),
              pytest.mark.skipif(shutil.which("lualatex") is None or not kpsewhich(
                  "luaotfload.sty"), reason="LuaLaTeX with luaotfload is missing (`make tex`)")]


def test_english_example_compiles_with_lualatex(tmp_path: Path) -> None:
    nb = copy_example("example_paper", tmp_path)
    code, out, err = run_cli(str(nb), "-o", str(tmp_path / "out"), "--pdf", "--engine",
                             "lualatex")
    assert code == 0, err
    pdf = Path(out.strip().splitlines()[-1])
    assert pdf.name == "example_paper.pdf" and pdf.read_bytes().startswith(b"%PDF")
    log = pdf.with_suffix(".log").read_text("utf-8", errors="replace")
    assert log.startswith("This is LuaHBTeX") or log.startswith("This is LuaTeX")
    assert "fontspec" in log and "inputenc.sty" not in log  # the iftex branch for LuaTeX
    text = pdf_text(pdf)
    if text is not None:
        assert "Predicting When an Induction Head Forms" in text and "??" not in text


def test_overleaf_zip_for_lualatex_compiles_with_its_own_latexmkrc(tmp_path: Path) -> None:
    nb = copy_example("example_paper", tmp_path)
    code, out, err = run_cli(str(nb), "-o", str(tmp_path / "out"), "--engine", "lualatex",
                             "--bundle", "overleaf")
    assert code == 0, err
    project = tmp_path / "overleaf"
    with zipfile.ZipFile(Path(out.strip().splitlines()[-1])) as zf:
        zf.extractall(project)
    assert "$pdf_mode = 4;" in (project / "latexmkrc").read_text("utf-8")
    proc = subprocess.run(["latexmk", "-norc", "-r", "latexmkrc", "-interaction=nonstopmode"],
                          cwd=project, env=tex_env(project), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (project / "example_paper.log").read_text("utf-8", "replace").startswith(
        "This is LuaHBTeX")


def test_chinese_with_lualatex_needs_luatexja(tmp_path: Path) -> None:
    """ctex under LuaLaTeX loads luatexja (texlive-lang-japanese, not installed by `make tex`):
    where it is missing, one MECH832 finding and no TeX run; where present, a PDF."""
    nb = copy_example("example_paper_zh", tmp_path)
    out_dir = tmp_path / "out"
    code, out, err = run_cli(str(nb), "-o", str(out_dir), "--pdf", "--engine", "lualatex")
    if kpsewhich("luatexja.sty"):
        assert code == 0, err
        assert Path(out.strip().splitlines()[-1]).read_bytes().startswith(b"%PDF")
        return
    assert code == 1
    assert "MECH832 error lualatex-without-luatexja" in err and "--engine xelatex" in err
    assert "MECH810" not in err  # TeX was not started, so no TeX error on top
    assert "the PDF was not produced; see the findings above" in err
    assert (out_dir / "example_paper_zh.tex").exists()
    assert not (out_dir / "example_paper_zh.pdf").exists()
    assert not (out_dir / "example_paper_zh.log").exists()


def test_the_replacement_character_compiles_with_lualatex(tmp_path: Path) -> None:
    """LuaTeX reports every U+FFFD it reads as an invalid UTF-8 sequence, so a notebook with a
    replacement character (an output decoded with errors="replace", an HTML entity for an
    invalid code point) made no PDF under LuaLaTeX. In text and in code it is now drawn as the
    other engines draw it (a boxed question mark)."""
    import json

    from .conftest import markdown_notebook

    nb = tmp_path / "fffd.ipynb"
    nb.write_text(json.dumps(markdown_notebook(
        "# Decoding", "The log said caf\ufffd before the fix.",
        "```\nb'\\xff' decoded: \ufffd\n```")), "utf-8")
    code, out, err = run_cli(str(nb), "-o", str(tmp_path / "out"), "--pdf", "--engine",
                             "lualatex")
    assert code == 0, err
    pdf = Path(out.strip().splitlines()[-1])
    assert pdf.read_bytes().startswith(b"%PDF")
    text = pdf_text(pdf)
    if text is not None:
        assert "The log said caf" in text and "decoded:" in text
