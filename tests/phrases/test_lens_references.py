"""Issue 40, lenses: canonical papers and pitfalls per lens, the new lenses, the nearest-id
suggestion for an unknown ``--kind``, and the lens's bib entries written into the notebook's
bibliography so that the exported paper resolves the citations."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from mechnb.checker import check
from mechnb.checker.bib import bib_keys_from_text
from mechnb.cli import main
from mechnb.exporter.api import export
from mechnb.phrases.lenscell import add_references, get_lens, lens_cells, suggest_lens_ids
from mechnb.phrases.library import ARXIV_RE, DOI_RE, Library

NEW_LENSES = ("activation-patching", "edge-attribution-patching",
              "transcoders-attribution-graphs", "associative-memory", "faithfulness")
USER_ENTRY = ("@article{meng2022locating,\n  author = {My Own Spelling},\n"
              "  title = {{Kept exactly as the user wrote it}},\n  year = {2022},\n}\n")


@pytest.fixture
def shell(ipython_shell: Any) -> Iterator[Any]:
    ip = ipython_shell
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.user_ns.pop("__session__", None)
    ip.run_line_magic("unload_ext", "mechnb")


def _notebook(folder: Path, *, bibliography: str | None, source: str = "# Intro\n\nText.") -> Path:
    meta: dict[str, Any] = {"title": "Lens test", "lang": "en"}
    if bibliography is not None:
        meta["bibliography"] = bibliography
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": meta},
          "cells": [{"cell_type": "markdown", "id": "c0", "metadata": {}, "source": source}]}
    path = folder / "paper.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    return path


def _insert(shell: Any, notebook: Path, line: str) -> tuple[list[dict[str, Any]], str]:
    """Run ``%mech <line>`` for ``notebook``; the inserted cells and the magic's message."""
    shell.user_ns["__session__"] = str(notebook)
    with capture_output() as captured:
        shell.run_line_magic("mech", line)
    (output,) = [o for o in captured.outputs if "mechnb" in o.metadata]
    shown = [o.data["text/plain"] for o in captured.outputs if "mechnb" not in o.metadata]
    return output.metadata["mechnb"]["cells"], "\n".join(shown)


def _save_with(notebook: Path, cells: list[dict[str, Any]]) -> None:
    nb = json.loads(notebook.read_text("utf-8"))
    nb["cells"] += [dict(c, id=f"new{i}") for i, c in enumerate(cells)]
    notebook.write_text(json.dumps(nb), "utf-8")


def test_every_lens_names_checked_papers_and_pitfalls(library: Library) -> None:
    assert set(NEW_LENSES) <= {lens.id for lens in library.lenses}
    assert library.problems == ()
    entries: dict[str, str] = {}
    for lens in library.lenses:
        assert lens.pitfalls["en"] and lens.pitfalls["zh"], lens.id
        checked = [r for r in lens.references if (r.arxiv or r.doi) and r.verified]
        assert checked, lens.id  # >= 1 canonical paper with an id and the page it was checked on
        assert lens.cite_keys() == [r.key for r in checked]
        for ref in lens.references:
            assert ref.source == "not verified" or ref.source.startswith(("https://", "http://"))
            assert not ref.arxiv or ARXIV_RE.match(ref.arxiv)
            assert not ref.doi or DOI_RE.match(ref.doi)
            assert ref.title and ref.authors and ref.venue and 1990 < ref.year < 2030
            assert entries.setdefault(ref.key, ref.bibtex()) == ref.bibtex()  # one key, one paper
    tracing = get_lens("causal-tracing")
    assert tracing is not None and "hase2023localization" in tracing.cite_keys()
    assert "Hase" in tracing.pitfalls["en"] and "edit" in tracing.pitfalls["en"]


def test_activation_patching_covers_directions_corruption_metrics_and_ablations() -> None:
    lens = get_lens("activation-patching")
    assert lens is not None
    text = lens.description["en"] + " " + lens.pitfalls["en"]
    for word in ("Denoising", "noising", "token", "logit difference", "probability", "KL",
                 "zero ablation", "mean ablation", "resample ablation"):
        assert word in text, word
    for word in ("去噪", "加噪", "置零消融", "均值消融", "重采样消融", "KL 散度"):
        assert word in lens.description["zh"], word
    faith = get_lens("faithfulness")
    assert faith is not None and "F(C) = (m(C) − m(∅)) / (m(M) − m(∅))" in faith.description["en"]


def test_unknown_kind_suggests_the_nearest_ids(shell: Any) -> None:
    assert suggest_lens_ids("activation-patchin")[0] == "activation-patching"
    assert suggest_lens_ids("acdc") == ["edge-attribution-patching"]  # by name
    assert suggest_lens_ids("Superpositon") == ["superposition"]
    with pytest.raises(UsageError, match="did you mean 'activation-patching'"):
        shell.run_line_magic("mech", "lens --kind activation-patchin")
    out, err = StringIO(), StringIO()
    assert main(["lenses", "--kind", "activation-patchin"], out, err) == 2
    assert "did you mean 'activation-patching'" in err.getvalue() and out.getvalue() == ""
    err = StringIO()
    assert main(["lenses", "superpositon"], out, err) == 1  # a query that matches nothing
    assert "did you mean superposition?" in err.getvalue()


def test_lenses_cli_shows_papers_pitfalls_and_bibtex() -> None:
    out, err = StringIO(), StringIO()
    assert main(["lenses", "--kind", "causal-tracing"], out, err) == 0
    text = out.getvalue()
    assert "  pitfalls: " in text and "[hase2023localization] Hase et al. 2023" in text
    assert "(arXiv:2301.04213) — checked at: https://" in text
    out = StringIO()
    assert main(["lenses", "--kind", "faithfulness", "--bibtex"], out, err) == 0
    assert bib_keys_from_text(out.getvalue()) == {"wang2023ioi", "hanna2024faith",
                                                  "miller2024faithfulness"}


def test_lens_insertion_writes_missing_entries_and_the_export_resolves_them(
        shell: Any, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(USER_ENTRY, "utf-8")
    notebook = _notebook(tmp_path, bibliography="refs.bib")
    cells, message = _insert(shell, notebook, "lens --kind causal-tracing --label lens:main")
    bib = (tmp_path / "refs.bib").read_text("utf-8")
    assert bib.startswith(USER_ENTRY)  # the user's entry under the same key is untouched
    assert bib.count("{meng2022locating,") == 1
    assert "@misc{hase2023localization," in bib and "eprint = {2301.04213}" in bib
    assert "added hase2023localization to refs.bib" in message
    assert "meng2022locating already in refs.bib (kept as is)" in message
    lens_cell, note = cells
    assert "\\citep{meng2022locating,hase2023localization}" in lens_cell["source"]
    assert "Hase et al. (2023)" in note["source"] and note["metadata"]["mechnb"]["role"] == "note"

    _insert(shell, notebook, "lens --kind causal-tracing")  # again: nothing appended twice
    assert (tmp_path / "refs.bib").read_text("utf-8") == bib

    _save_with(notebook, cells)
    names = {f.name for f in check(notebook)}
    assert not names & {"unresolved-citation", "missing-bibliography"}
    result = export(notebook, write=False)
    assert {"meng2022locating", "hase2023localization"} <= result.citations
    assert "\\citep{meng2022locating,hase2023localization}" in result.latex
    (copied,) = [v for k, v in result.resources.items() if k.endswith(".bib")]
    assert {"meng2022locating", "hase2023localization"} <= bib_keys_from_text(copied.decode())
    assert not {f.name for f in result.findings} & {"unresolved-citation",
                                                    "bibliography-not-found"}


def test_notebook_without_bibliography_gets_references_bib_and_pandoc_citations(
        shell: Any, tmp_path: Path) -> None:
    notebook = _notebook(tmp_path, bibliography=None, source="As shown before [@someone2020].")
    cells, message = _insert(shell, notebook, "lens --kind activation-patching --lang zh")
    keys = bib_keys_from_text((tmp_path / "references.bib").read_text("utf-8"))
    assert keys == {"zhang2024patching", "heimersheim2024patching", "vig2020mediation",
                    "meng2022locating"}
    assert 'set metadata.mechnb.bibliography to "references.bib"' in message
    assert re.search(r"经典文献：\[@zhang2024patching; @heimersheim2024patching; "
                     r"@vig2020mediation; @meng2022locating\]。", cells[0]["source"])
    assert "常见陷阱" in cells[1]["source"]


def test_without_a_notebook_file_the_entries_are_shown_not_written(tmp_path: Path) -> None:
    update = add_references(None, [lens for lens in [get_lens("faithfulness")] if lens])
    assert update.path is None and "@misc{hanna2024faith," in repr(update)
    (cell, _note) = lens_cells("faithfulness", cite=None)
    assert "\\citep" not in cell.source
    (cell, note) = lens_cells("mechanistic-decomposition")
    assert "\\citep{olsson2022induction}" in cell.source  # Distill's Zoom In has no id: read only
    assert "Also worth reading" in note.source and "Olah et al. 2020, Zoom In" in note.source


def test_a_bibliography_outside_the_notebook_folder_is_never_written(tmp_path: Path) -> None:
    folder = tmp_path / "paper"
    folder.mkdir()
    notebook = _notebook(folder, bibliography="../outside.bib")
    lens = get_lens("associative-memory")
    assert lens is not None
    update = add_references(notebook, [lens])
    assert update.path is None and "outside the notebook's folder" in update.problem
    assert not (tmp_path / "outside.bib").exists()
    assert bib_keys_from_text(update.bibtex) == set(lens.cite_keys())
