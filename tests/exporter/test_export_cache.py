"""The render cache: a warm export equals a cold one, and only changed cells re-render."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mechnb.exporter.api import export, render
from mechnb.exporter.context import CACHE_FILE, RenderCache
from mechnb.notebook import read_paper

from .conftest import FIXTURE_NOTEBOOKS, VENV_BIN


def test_warm_export_equals_cold_for_every_fixture(paper_dir: Path, tmp_path: Path) -> None:
    for name in FIXTURE_NOTEBOOKS:
        nb = paper_dir / f"{name}.ipynb"
        cold = export(nb, tmp_path / name)
        warm = export(nb, tmp_path / name)
        uncacheable = {"markdown_constructs": 1, "outputs": 1}.get(name, 0)  # cells with images
        assert warm.cache is not None and warm.cache.hits > 0
        assert warm.cache.misses == uncacheable
        assert warm.latex == cold.latex == render(read_paper(nb)).latex
        assert [f.format(name) for f in warm.findings] == [f.format(name) for f in cold.findings]
        assert warm.resources == cold.resources


def test_only_the_edited_cell_is_rendered_again(paper_dir: Path, tmp_path: Path) -> None:
    nb = paper_dir / "all_roles_en.ipynb"
    export(nb, tmp_path)
    data = json.loads(nb.read_text("utf-8"))
    data["cells"][13]["source"] = "The first token wins *earlier* than $\\log n$ suggests."
    nb.write_text(json.dumps(data), "utf-8")
    warm = export(nb, tmp_path)
    assert warm.cache is not None and warm.cache.misses == 1
    assert "wins \\emph{earlier} than $\\log n$" in warm.latex
    assert warm.latex == render(read_paper(nb)).latex


def test_a_stale_cache_is_ignored(paper_dir: Path, tmp_path: Path) -> None:
    nb = paper_dir / "title_from_heading.ipynb"
    export(nb, tmp_path)
    path = tmp_path / CACHE_FILE
    data = json.loads(path.read_text("utf-8"))
    for entry in data["entries"].values():
        entry["out"] = "POISON"
    data["stamp"] = "an older mechnb"
    path.write_text(json.dumps(data), "utf-8")
    assert RenderCache.load(tmp_path).entries == {}
    assert "POISON" not in export(nb, tmp_path).latex


def test_no_cache_flag_and_warm_process_skips_markdown_it(paper_dir: Path,
                                                         tmp_path: Path) -> None:
    nb = paper_dir / "all_roles_en.ipynb"
    code = ("import sys\nfrom mechnb.cli import main\n"
            f"rc = main(['export', {str(nb)!r}, '-o', {str(tmp_path)!r}] + sys.argv[1:])\n"
            "print(rc, 'markdown_it' in sys.modules)")

    def run(*extra: str) -> str:
        proc = subprocess.run([str(VENV_BIN / "python"), "-c", code, *extra],
                              capture_output=True, text=True, timeout=120)
        return proc.stdout.strip().splitlines()[-1]

    assert run() == "0 True"                 # cold: renders
    assert run() == "0 False"                # warm: everything from the cache
    assert run("--no-cache") == "0 True"     # asked not to use it
