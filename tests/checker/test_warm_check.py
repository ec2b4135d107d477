"""A check in a long-lived process (the Jupyter server's, on every save) re-renders and re-parses
only the cells that changed since its last check, and says exactly what a cold check says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mechnb.checker import check, codeflow
from mechnb.exporter import context
from mechnb.memo import clear_all

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "tests" / "fixtures" / "exporter" / "notebooks" / "all_roles_en.ipynb"


def _findings(path: Path) -> list[str]:
    return [f.format(path.name) for f in check(path)]


def _cold(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setenv("MECHNB_NO_CACHE", "1")
        clear_all()
        return _findings(path)


def test_a_second_check_renders_and_parses_only_the_edited_cells(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = tmp_path / "paper.ipynb"
    shutil.copy(EXAMPLE, nb)
    first = _findings(nb)
    cache = context.memory_cache()
    misses, hits = cache.misses, cache.hits
    parsed: list[str] = []
    real_parse = codeflow.parse_code
    monkeypatch.setattr(codeflow, "parse_code", lambda s: parsed.append(s) or real_parse(s))

    assert _findings(nb) == first
    assert cache.misses == misses and cache.hits > hits  # every cell from the cache
    assert parsed == []                                  # no code cell parsed again

    data = json.loads(nb.read_text("utf-8"))
    markdown = next(c for c in data["cells"] if c["metadata"].get("mechnb", {}).get("role")
                    == "gap")
    markdown["source"] = "".join(markdown["source"]) + "\n\nAn added sentence, $x^2$ too."
    code = next(c for c in data["cells"] if c["cell_type"] == "code")
    code["source"] = "".join(code["source"]) + "\nadded_name = 1\n"
    nb.write_text(json.dumps(data), "utf-8")
    misses = cache.misses
    edited = _findings(nb)
    assert cache.misses == misses + 1                    # the one edited markdown cell
    assert parsed == [code["source"]]                    # the one edited code cell
    assert edited == _cold(nb, monkeypatch)


def test_an_image_that_appears_is_in_the_next_export(tmp_path: Path) -> None:
    """What a rendering looked for on disk is never cached: the text stays the same, the file
    does not (a re-export after copying the missing image in must include it)."""
    from mechnb.exporter.api import export

    nb = tmp_path / "paper.ipynb"
    data = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "a1", "metadata": {},
         "source": "# A title\n\nThe curve:\n\n![loss curve](curve.png)\n"}]}
    nb.write_text(json.dumps(data), "utf-8")
    before = export(nb, tmp_path / "out")
    assert any(f.name == "image-not-found" for f in before.findings)
    assert "includegraphics" not in before.latex
    shutil.copy(REPO / "tests" / "fixtures" / "exporter" / "notebooks" / "figure.png",
                tmp_path / "curve.png")
    after = export(nb, tmp_path / "out")
    assert after.cache is not None and after.cache.hits > 0  # the title still came from it
    assert not any(f.name == "image-not-found" for f in after.findings)
    assert "includegraphics" in after.latex and after.resources


def test_the_process_cache_forgets_what_the_last_render_did_not_use() -> None:
    cache = context.RenderCache({"old": {"out": "x"}, "kept": {"out": "y"}})
    cache.used = {"kept": cache.entries["kept"]}
    cache.forget_unused(keep=5)
    assert set(cache.entries) == {"old", "kept"} and cache.used == {}
    cache.used = {"kept": cache.entries["kept"]}
    cache.forget_unused(keep=1)
    assert set(cache.entries) == {"kept"}


def test_mechnb_check_keeps_its_renderings_for_the_next_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mechnb check` is a process of its own: the gate's renderings go to the user's cache,
    so the next `mechnb check` renders only the cell that changed and says the same."""
    import io

    from mechnb.cli import main

    cache_home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    nb = tmp_path / "paper.ipynb"
    shutil.copy(EXAMPLE, nb)
    loaded: list[context.RenderCache] = []
    real_load = context.RenderCache.load.__func__  # type: ignore[attr-defined]

    def load(cls: type[context.RenderCache], folder: Path) -> context.RenderCache:
        loaded.append(real_load(cls, folder))
        return loaded[-1]

    monkeypatch.setattr(context.RenderCache, "load", classmethod(load))

    def cli() -> str:
        clear_all()  # a new process: nothing kept in memory
        out, err = io.StringIO(), io.StringIO()
        main(["check", str(nb)], out, err)
        return out.getvalue()

    first = cli()
    assert loaded[-1].misses > 0 and loaded[-1].hits == 0
    assert [p.name for p in (cache_home / "mechnb" / "check").iterdir()]
    second = cli()
    assert second == first
    assert loaded[-1].misses == 0 and loaded[-1].hits > 0  # nothing rendered again

    data = json.loads(nb.read_text("utf-8"))
    cell = next(c for c in data["cells"] if c["metadata"].get("mechnb", {}).get("role") == "gap")
    cell["source"] = "".join(cell["source"]) + "\n\nAn added sentence, $y^3$ too."
    nb.write_text(json.dumps(data), "utf-8")
    third = cli()
    assert loaded[-1].misses == 1  # the edited cell alone
    with monkeypatch.context() as m:
        m.setenv("MECHNB_NO_CACHE", "1")
        assert third == cli()  # what a check that renders everything says
    assert context.memory_cache().entries == {}  # a one-shot check leaves nothing in memory
