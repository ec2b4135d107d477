"""``%mech lens --kind <lens>`` in an in-process IPython shell, and the lens catalog it reads."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from mechnb.notebook import EXPERIMENT_KINDS
from mechnb.phrases.library import Library
from mechnb.phrases.lookup import search
from mechnb.phrases.panel import PhrasePanel

NEW_LENSES = ("direct-attribution", "attribution-patching", "backward-lens",
              "mean-field-attention", "energy-attention", "circuit-complexity",
              "algorithmic-cores")


@pytest.fixture
def shell(ipython_shell: Any) -> Iterator[Any]:
    ip = ipython_shell
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.run_line_magic("unload_ext", "mechnb")


def _cells(shell: Any, line: str) -> list[dict[str, Any]]:
    with capture_output() as captured:
        shell.run_line_magic("mech", line)
    (output,) = [o for o in captured.outputs if "mechnb" in o.metadata]
    cells: list[dict[str, Any]] = output.metadata["mechnb"]["cells"]
    return cells


def test_catalog_has_the_added_perspectives_each_with_a_closing_experiment(
        library: Library) -> None:
    ids = [lens.id for lens in library.lenses]
    assert set(NEW_LENSES) <= set(ids) and len(ids) >= 22
    for lens in library.lenses:
        assert lens.validation_kind in EXPERIMENT_KINDS, lens.id
        assert lens.closing_validation["en"] and lens.closing_validation["zh"], lens.id


@pytest.mark.parametrize("lens_id", NEW_LENSES)
def test_mech_lens_kind_inserts_the_catalog_lens_and_its_follow_up(
        shell: Any, library: Library, lens_id: str) -> None:
    lens = next(lens for lens in library.lenses if lens.id == lens_id)
    lens_cell, note = _cells(shell, f"lens --kind {lens_id} --label lens:main --lang en")
    assert lens_cell["metadata"]["mechnb"] == {
        "role": "lens", "label": "lens:main", "title": lens.name["en"], "kind": lens_id}
    assert lens_cell["metadata"]["tags"] == ["mech:lens"]
    assert lens.phrase["en"] in lens_cell["source"]
    assert lens.description["en"] in lens_cell["source"]
    assert note["metadata"]["mechnb"]["role"] == "note"  # a suggestion, never exported
    assert lens.closing_validation["en"] in note["source"]
    assert f"%mech validate thm:[main] --kind {lens.validation_kind}" in note["source"]


def test_mech_lens_kind_in_chinese(shell: Any, library: Library) -> None:
    lens = next(lens for lens in library.lenses if lens.id == "backward-lens")
    lens_cell, note = _cells(shell, "lens --kind backward-lens --lang zh")
    assert lens_cell["source"].startswith(lens.phrase["zh"])
    assert "[层]" in lens_cell["source"]  # Chinese blanks
    assert lens_cell["metadata"]["mechnb"]["title"] == "反向透镜"
    assert lens.closing_validation["zh"] in note["source"] and "后续实验" in note["source"]


def test_template_variants_still_win(shell: Any) -> None:
    (cell,) = _cells(shell, "lens --kind dynamics --lang en")
    assert "training dynamics" in cell["source"]
    assert cell["metadata"]["mechnb"]["role"] == "lens"


def test_unknown_lens_kind_lists_the_catalog(shell: Any) -> None:
    with pytest.raises(UsageError, match="backward-lens") as raised:
        shell.run_line_magic("mech", "lens --kind nope")
    assert "dynamics" in str(raised.value)  # the template variants are listed too


def test_the_panel_lists_lenses_with_the_command(library: Library) -> None:
    panel = PhrasePanel(function="lens", on_insert=lambda _text: True, library=library)
    assert {p.function for p in panel.results} == {f"lens/{lens.id}" for lens in library.lenses}
    options = {value for _label, value in panel.function_dropdown.options}
    assert {f"lens/{lens_id}" for lens_id in NEW_LENSES} <= options
    top = search("backward lens", library=library)[0]
    assert top.id == "lens-backward-lens" and "%mech lens --kind backward-lens" in top.note_en
