"""``%mech`` in a real kernel, with ``cellId`` in the execute_request as JupyterLab sends it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kernel_driver import Kernel

pytestmark = pytest.mark.kernel


def test_load_ext_is_light_and_theorem_falls_back(kernel: Kernel) -> None:
    loaded = kernel.execute("import sys\n%load_ext mechnb\n"
                            "print(sorted(m for m in ('nbformat', 'nbconvert', 'ipywidgets', "
                            "'markdown_it', 'jsonschema') if m in sys.modules))")
    assert loaded.reply["content"]["status"] == "ok"
    assert [o["text"] for o in loaded.outputs if o["msg_type"] == "stream"] == ["[]\n"]

    run = kernel.execute("%mech theorem --label thm:x", cell_id="magic-cell")
    assert run.reply["content"]["status"] == "ok"
    (display,) = run.displays
    cells = display["metadata"]["mechnb"]["cells"]
    assert [c["metadata"]["mechnb"]["role"] for c in cells][:2] == ["theorem", "interpretation"]
    assert cells[0]["metadata"]["mechnb"]["label"] == "thm:x"
    assert cells[0]["source"] in display["data"]["text/markdown"]
    assert run.payload == []  # no code cell in a theorem template: nothing offered


def test_validate_payload_offers_the_code_cell(kernel: Kernel) -> None:
    kernel.execute("%load_ext mechnb")
    run = kernel.execute("%mech validate thm:main --kind intervention", cell_id="c-42")
    (payload,) = run.payload
    assert payload["source"] == "set_next_input" and payload["replace"] is False
    cells = run.displays[0]["metadata"]["mechnb"]["cells"]
    code = next(c for c in cells if c["cell_type"] == "code")
    assert payload["text"] == code["source"]
    assert code["metadata"]["mechnb"]["validates"] == ["thm:main"]


def test_cell_id_and_notebook_path_reach_the_kernel(kernel: Kernel, tmp_path: Path) -> None:
    nb = tmp_path / "paper.ipynb"
    nb.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": [],
                              "metadata": {"mechnb": {"lang": "zh"}}}))
    run = kernel.execute(
        "from mechnb.kernel.context import current_cell_id, notebook_path\n"
        "__session__ = 'paper.ipynb'\n"
        "print(current_cell_id(get_ipython()), notebook_path(get_ipython()).name)",
        cell_id="the-cell-id")
    assert run.outputs[0]["text"] == "the-cell-id paper.ipynb\n"
    # the notebook's declared language is the default for templates
    kernel.execute("%load_ext mechnb")
    run = kernel.execute("%mech gap")
    source = run.displays[0]["metadata"]["mechnb"]["cells"][0]["source"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in source)


def test_unknown_role_is_a_short_error(kernel: Kernel) -> None:
    kernel.execute("%load_ext mechnb")
    run = kernel.execute("%mech theorm")
    # IPython shows a UsageError as one message on stderr, without a traceback
    text = "".join(o.get("text", "") for o in run.outputs if o["msg_type"] == "stream")
    assert text.startswith("UsageError: 'theorm' is neither a role nor a %mech command")
    assert "did you mean 'theorem'" in text
    assert "Traceback" not in text and not any(o["msg_type"] == "error" for o in run.outputs)


def test_a_renamed_notebook_is_found_by_the_running_cell(kernel: Kernel, tmp_path: Path) -> None:
    # Launcher → new notebook → rename: the kernel was started for Untitled.ipynb, which is gone;
    # the saved notebook holding the running cell's id is the one (a bare %mech check works)
    cell = {"cell_type": "code", "id": "renamed-cell-7", "metadata": {}, "source": "",
            "outputs": [], "execution_count": None}
    (tmp_path / "induction.ipynb").write_text(json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}), "utf-8")
    (tmp_path / "other.ipynb").write_text(json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}), "utf-8")
    kernel.execute("__session__ = 'Untitled.ipynb'\n%load_ext mechnb")
    run = kernel.execute("from mechnb.kernel.context import notebook_path\n"
                         "print(notebook_path(get_ipython()).name)", cell_id="renamed-cell-7")
    assert run.outputs[0]["text"] == "induction.ipynb\n"
    check = kernel.execute("%mech check", cell_id="renamed-cell-7")
    assert check.reply["content"]["status"] == "ok"
    assert "cannot tell" not in json.dumps(check.outputs)
    # a cell no saved notebook holds yet: the message says how to get out
    lost = kernel.execute("%mech check", cell_id="never-saved")
    text = "".join(o.get("text", "") for o in lost.outputs if o["msg_type"] == "stream")
    assert "save it with Ctrl+S and run again" in text


def test_the_load_ext_cell_marks_its_cells_for_the_extension(kernel: Kernel) -> None:
    # one cell: %load_ext and a magic; no frontend can have answered yet
    run = kernel.execute("%load_ext mechnb\n%mech validate thm:main --kind intervention",
                         cell_id="quickstart")
    (display,) = run.displays
    assert display["metadata"]["mechnb"]["insert_when_done"] is True
    assert "inserted when this cell finishes" in display["data"]["text/markdown"]
    assert run.payload == []  # no next-input copy: it would stay behind without its role
    # a later cell (still no extension here): the plain fallback, with the code cell offered
    later = kernel.execute("%mech validate thm:main --kind intervention", cell_id="later")
    assert "insert_when_done" not in later.displays[0]["metadata"]["mechnb"]
    assert [p["source"] for p in later.payload] == ["set_next_input"]
