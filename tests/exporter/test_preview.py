"""The paper preview (``mechnb.exporter.preview``): real pdfLaTeX builds in the per-user cache,
one pass on the previous ``.aux`` when labels did not move (from the preamble's checked format),
SyncTeX both ways, the TeX gate."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from trust_helper import approve_review

from mechnb.exporter import passes, preview
from mechnb.notebook import read_paper

from .conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "preview" / "preview_paper.ipynb"
pytestmark = [pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("latexmk")
                                      and shutil.which("synctex")),
                                 reason="TeX Live (pdflatex, latexmk, synctex) is not installed")]


@pytest.fixture
def paper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the preview fixture; the per-user cache in the test's own folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "papers"
    folder.mkdir()
    target = folder / "paper.ipynb"
    shutil.copy(FIXTURE, target)
    yield target
    preview.settle()  # a format still being made would take CPU from the next test


def edit(path: Path, cell_id: str, source: str) -> None:
    nb = json.loads(path.read_text("utf-8"))
    for cell in nb["cells"]:
        if cell["id"] == cell_id:
            cell["source"] = source
    path.write_text(json.dumps(nb, ensure_ascii=False), "utf-8")


def add_cell(path: Path, after: str, cell: dict[str, Any]) -> None:
    nb = json.loads(path.read_text("utf-8"))
    at = next(n for n, c in enumerate(nb["cells"]) if c["id"] == after)
    nb["cells"].insert(at + 1, {"cell_type": "markdown", "metadata": {}, **cell})
    path.write_text(json.dumps(nb, ensure_ascii=False), "utf-8")


def pdf_text(path: Path) -> str:
    found = preview.pdf_bytes(path)
    assert found is not None
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is not installed")
    return subprocess.run(["pdftotext", "-enc", "UTF-8", "-", "-"], input=found[0],
                          capture_output=True, check=True).stdout.decode("utf-8")


def test_first_build_is_full_then_one_pass_for_a_text_edit(paper: Path) -> None:
    first = preview.build(paper)
    assert (first.status, first.passes, first.engine) == ("ok", "full", "pdflatex")
    assert first.findings == [] and first.version
    edit(paper, "p2", "A sentence written after the first build, about the copy margin.")
    second = preview.build(paper)
    assert (second.status, second.passes) == ("ok", "one")
    assert second.version != first.version
    text = pdf_text(paper)
    assert "written after the first build" in text
    assert "Theorem 1" in text and "??" not in text  # the reference kept its number
    # nothing was written beside the notebook: the build lives in the per-user cache
    assert sorted(p.name for p in paper.parent.iterdir()) == ["paper.ipynb"]
    assert preview.state_dir(paper).stat().st_mode & 0o777 == 0o700


def test_a_new_label_runs_passes_until_the_aux_stands_still(paper: Path) -> None:
    assert preview.build(paper).status == "ok"
    add_cell(paper, "int", {"id": "lem", "metadata": {"mechnb": {"role": "lemma",
                                                                  "label": "lem:step"}},
                            "source": "Each step raises the margin by at least $\\eta$."})
    edit(paper, "p2", "Lemma~\\ref{lem:step} is the step the proof repeats.")
    second = preview.build(paper)
    # the first pass writes the new label, the second reads it back and writes the same .aux;
    # no citation changed, so no BibTeX and no latexmk
    assert (second.status, second.passes) == ("ok", "two")
    text = pdf_text(paper)
    assert "Lemma 2 is the step the proof repeats" in text  # theorems and lemmas share a counter


def test_a_new_citation_runs_the_full_cycle(paper: Path) -> None:
    (paper.parent / "refs.bib").write_text(
        "@article{olsson2022,\n  title={In-context learning and induction heads},\n"
        "  author={Olsson, Catherine},\n  journal={arXiv preprint arXiv:2209.11895},\n"
        "  year={2022}\n}\n@article{reddy2024,\n  title={The mechanistic basis of data "
        "dependence},\n  author={Reddy, Gautam},\n  journal={ICLR},\n  year={2024}\n}\n",
        "utf-8")
    nb = json.loads(paper.read_text("utf-8"))
    nb["metadata"]["mechnb"]["bibliography"] = "refs.bib"
    paper.write_text(json.dumps(nb), "utf-8")
    edit(paper, "p1", "Copying heads were named by \\citet{olsson2022}.")
    assert preview.build(paper).passes == "full"
    edit(paper, "p1", "Copying heads were named by \\citet{olsson2022}; see \\citet{reddy2024}.")
    again = preview.build(paper)
    assert (again.status, again.passes) == ("ok", "full")  # BibTeX must see the new key
    text = pdf_text(paper)
    assert "Reddy (2024)" in text and "?" not in text.split("Copying heads")[1][:80]


def test_a_tex_error_is_a_finding_at_its_cell_and_the_last_pdf_stays(paper: Path) -> None:
    good = preview.build(paper)
    edit(paper, "p2", "A broken formula: $a \\over b \\over c$.")
    failed = preview.build(paper)
    assert failed.status == "failed"
    errors = [f for f in failed.findings if f.code == "MECH810"]
    assert errors and errors[0].cell == 5, failed.findings
    assert "paper." in errors[0].message or ".tex line" in errors[0].message
    assert failed.version == good.version  # the last good PDF, marked as such by the status
    found = preview.pdf_bytes(paper)
    assert found is not None and found[1]["failed"] is True
    edit(paper, "p2", "Fixed again.")
    assert preview.build(paper).status == "ok"


def test_the_gate_blocks_unreviewed_raw_tex_until_approved(paper: Path) -> None:
    add_cell(paper, "p2", {"id": "raw", "cell_type": "raw",
                           "metadata": {"format": "text/latex"},
                           "source": "\\textbf{Set by hand in a raw cell.}"})
    blocked = preview.build(paper)
    assert blocked.status == "blocked"
    assert [(f.code, f.cell) for f in blocked.findings] == [("MECH079", 6)]
    assert "mechnb trust" in blocked.message
    assert preview.pdf_bytes(paper) is None
    approve_review(paper)
    built = preview.build(paper)
    assert built.status == "ok"
    assert "Set by hand in a raw cell." in pdf_text(paper)


def test_refused_tex_never_builds(paper: Path) -> None:
    add_cell(paper, "p2", {"id": "raw", "cell_type": "raw",
                           "metadata": {"format": "text/latex"}, "source": "\\input{/etc/passwd}"})
    blocked = preview.build(paper)
    assert blocked.status == "blocked"
    assert any(f.code == "MECH022" and f.cell == 6 for f in blocked.findings)


def test_a_tampered_cache_is_not_reused(paper: Path) -> None:
    assert preview.build(paper).status == "ok"
    aux = preview.state_dir(paper) / "preview.aux"
    aux.write_text(aux.read_text("utf-8") + "\\gdef\\planted{1}\n", "utf-8")
    again = preview.build(paper)
    assert (again.status, again.passes) == ("ok", "full")  # not the planted .aux


def test_synctex_both_ways(paper: Path) -> None:
    assert preview.build(paper).status == "ok"
    nb = read_paper(paper)
    place = preview.place_of(paper, 3, nb)  # the theorem
    assert place is not None and place.page == 1 and place.width > 0
    found = preview.source_at(paper, place.page, place.x + 20, place.y + place.height / 2, nb)
    assert found is not None and (found["cell"], found["cell_id"]) == (3, "thm")
    # the second paragraph of a two-paragraph cell: line 3 of its source
    para = preview.place_of(paper, 2, nb, line=3)
    assert para is not None
    back = preview.source_at(paper, para.page, para.x + 20, para.y + para.height / 2, nb)
    assert back is not None and back["cell"] == 2 and back["line"] == 3
    # the whole cell's box ("Show in PDF") covers both paragraphs, not only the first line
    whole = preview.place_of(paper, 2, nb)
    assert whole is not None and whole.page == para.page
    assert whole.y <= para.y + 0.5 and whole.y + whole.height >= para.y + para.height - 0.5
    assert whole.height > 2 * para.height


def test_synctex_follows_moved_cells(paper: Path) -> None:
    assert preview.build(paper).status == "ok"
    nb = json.loads(paper.read_text("utf-8"))
    nb["cells"].insert(0, nb["cells"].pop(5))  # the last cell moved to the top, not rebuilt
    paper.write_text(json.dumps(nb), "utf-8")
    moved = read_paper(paper)
    place = preview.place_of(paper, 0, moved)
    assert place is not None
    found = preview.source_at(paper, place.page, place.x + 20, place.y + place.height / 2, moved)
    assert found is not None and found["cell_id"] == "p2" and found["cell"] == 0


def test_a_newer_build_cancels_a_running_one(paper: Path) -> None:
    cancel = threading.Event()
    out: list[preview.PreviewResult] = []
    worker = threading.Thread(target=lambda: out.append(preview.build(paper, cancel=cancel)))
    started = time.perf_counter()
    worker.start()
    time.sleep(0.3)
    cancel.set()
    worker.join(30)
    cancelled_after = time.perf_counter() - started
    assert out and out[0].status == "cancelled"
    assert preview.pdf_bytes(paper) is None  # nothing half-built was kept
    started = time.perf_counter()
    assert preview.build(paper).status == "ok"  # the same first build, left to finish
    # TeX was stopped, not waited for: compared with the whole build on the same machine
    assert cancelled_after < 0.7 * (time.perf_counter() - started)


def _from_format(path: Path) -> bool:
    """Whether the last pass started from the preamble's format (pdfTeX names it in the log)."""
    log = (preview.state_dir(path) / "preview.log").read_text("utf-8", "replace")
    return "preloaded format=mechnbfmt" in log.split("\n", 1)[0]


def _format_record(path: Path) -> dict[str, Any] | None:
    state = preview.load_state(preview.state_dir(path))
    assert state is not None
    return state.get("format")


@pytest.mark.skipif(not passes.enabled(), reason="mylatexformat is not installed")
def test_quick_passes_start_from_the_checked_preamble_format(paper: Path) -> None:
    assert preview.build(paper).passes == "full"
    preview.settle()
    record = _format_record(paper)
    assert record is not None and record["usable"] is True
    edit(paper, "p2", "A sentence typed after the format was made.")
    second = preview.build(paper)
    assert (second.status, second.passes) == ("ok", "one") and _from_format(paper)
    assert "typed after the format was made" in pdf_text(paper)
    # the title is read after the dump point: a new title keeps the format
    nb = json.loads(paper.read_text("utf-8"))
    nb["metadata"]["mechnb"]["title"] = "A renamed paper about copying heads"
    paper.write_text(json.dumps(nb), "utf-8")
    assert preview.build(paper).status == "ok" and _from_format(paper)
    assert "A renamed paper about copying heads" in pdf_text(paper)
    # a macro defined in the math goes to the preamble: a pass without the format, then a new
    # format
    edit(paper, "p2", "$\\newcommand{\\margin}{\\gamma_{\\mathrm{m}}}$The margin $\\margin$ is "
         "positive.")
    third = preview.build(paper)
    assert third.status == "ok" and not _from_format(paper)
    preview.settle()
    assert (_format_record(paper) or {}).get("key") != record["key"]
    edit(paper, "p2", "$\\newcommand{\\margin}{\\gamma_{\\mathrm{m}}}$The margin $\\margin$ is "
         "positive, again.")
    assert preview.build(paper).status == "ok" and _from_format(paper)


@pytest.mark.skipif(not passes.enabled(), reason="mylatexformat is not installed")
def test_a_tampered_or_broken_format_is_not_used(paper: Path) -> None:
    preview.build(paper)
    preview.settle()
    fmt = preview.state_dir(paper) / "preview.fmt"
    fmt.write_bytes(fmt.read_bytes()[:-10] + b"0123456789")  # not what the record sealed
    edit(paper, "p2", "After the format was changed on disk.")
    assert preview.build(paper).passes == "one" and not _from_format(paper)
    # a format the record vouches for but TeX cannot load (a TeX Live update): without it
    folder = preview.state_dir(paper)
    state = preview.load_state(folder)
    assert state is not None
    fmt.write_bytes(b"not a format")
    state["format"]["sha256"] = hashlib.sha256(b"not a format").hexdigest()
    preview._save_state(folder, {k: v for k, v in state.items() if k != "seal"})
    edit(paper, "p2", "After the format broke.")
    rebuilt = preview.build(paper)
    assert (rebuilt.status, rebuilt.passes) == ("ok", "one") and not _from_format(paper)
    assert "After the format broke." in pdf_text(paper)
    assert (_format_record(paper) or {}).get("usable") is False  # not tried on every save


@pytest.mark.skipif(not passes.enabled(), reason="mylatexformat is not installed")
def test_a_tex_error_does_not_condemn_the_format(paper: Path) -> None:
    preview.build(paper)
    preview.settle()
    edit(paper, "p2", "A broken formula: $a \\over b \\over c$.")
    assert preview.build(paper).status == "failed"
    assert (_format_record(paper) or {}).get("usable") is True
    edit(paper, "p2", "Fixed again.")
    assert preview.build(paper).status == "ok" and _from_format(paper)


def test_layout_compares_boxes_not_file_numbers(paper: Path, tmp_path: Path) -> None:
    """The check a format must pass: the same document laid out in another folder compares
    equal; a changed word does not."""
    preview.build(paper)
    folder = preview.state_dir(paper)
    state = preview.load_state(folder)
    assert state is not None
    first = preview.stored(folder, state, ".synctex.gz")
    edit(paper, "p2", "Different words, so the boxes move.")
    preview.build(paper)
    state = preview.load_state(folder)
    assert state is not None
    second = preview.stored(folder, state, ".synctex.gz")
    assert first and second
    a, b = passes.layout(first), passes.layout(second)
    assert a and b and a != b
    assert passes.layout(first) == a
    assert passes.layout(b"not gzip") is None


def test_best_line_matches_words_not_markup() -> None:
    source = "First paragraph about heads.\n\nThe **margin** decides the formation time."
    assert preview.best_line(source, "The \\textbf{margin} decides the formation") == 3
    assert preview.best_line(source, "\\label{x}") is None
