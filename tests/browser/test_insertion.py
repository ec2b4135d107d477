"""Acceptance: ``%mech theorem --label thm:x`` inserts role-tagged cells below the magic's cell.

The check is on the notebook file the server saved, in JupyterLab and in Notebook 7. The time
from running the magic cell to its cells being visible is measured in the page and written to
test-artifacts/latency-<frontend>.json (reported in docs/guide/desk.md, never asserted).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from .conftest import ARTIFACTS, Server
from .notebook_page import NotebookPage, panel_js, source

# Marks times in the page: when the magic cell's execution count appears (the cell finished)
# and when the inserted theorem cell's badge appears in the DOM (the cells are visible).
_WATCH = """() => {
  window.__mechnb = {};
  const t = window.__mechnb;
  const observer = new MutationObserver(() => {
    const now = performance.now();
    if (t.visible === undefined) {
      const badge = document.querySelector(".jp-mechnb-badge[data-role='theorem']");
      if (badge && badge.offsetParent !== null) t.visible = now;
    }
    if (t.finished === undefined) {
      const prompts = document.querySelectorAll('.jp-Notebook .jp-Cell .jp-InputPrompt');
      if (prompts[1] && /\\[\\d+\\]/.test(prompts[1].textContent)) t.finished = now;
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, characterData: true,
                                   attributes: true});
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter' && e.shiftKey && t.started === undefined) t.started = performance.now();
  }, true);
}"""


_WATCH_MORE = """(count) => {
  window.__mechnbMore = {};
  const t = window.__mechnbMore;
  const observer = new MutationObserver(() => {
    const badges = [...document.querySelectorAll(".jp-mechnb-badge[data-role='theorem']")];
    if (badges.filter(b => b.offsetParent !== null).length > count) {
      t.visible = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document.body, {subtree: true, childList: true, attributes: true});
  const key = e => {
    if (e.key === 'Enter' && e.shiftKey) {
      t.started = performance.now();
      window.removeEventListener('keydown', key, true);
    }
  };
  window.addEventListener('keydown', key, true);
}"""


def _more_samples(page: Any, nb: NotebookPage) -> list[float]:
    """Keypress → theorem cells visible for more ``%mech theorem`` cells, each a new code cell
    above the fixture's last cell, run with Shift+Enter: six under ``make bench``
    (``MECHNB_MEASURE=1``; one sample is too noisy), one in the suite."""
    runs = 6 if os.environ.get("MECHNB_MEASURE") == "1" else 1
    samples = []
    for n in range(runs):
        at = nb.eval("const m = panel.content.model.sharedModel;"
                     "m.insertCell(m.cells.length - 1, {cell_type: 'code', source: arg});"
                     "return m.cells.length - 2;", f"%mech theorem --label thm:more{n}")
        count = page.locator(".jp-mechnb-badge[data-role='theorem']").count()
        page.evaluate(_WATCH_MORE, count)
        nb.run(at)
        page.wait_for_function("() => window.__mechnbMore.visible !== undefined")
        times = page.evaluate("() => window.__mechnbMore")
        samples.append(float(times["visible"] - times["started"]))
    return samples


def _theorem_roundtrip(page: Any, server: Server, name: str, rtc: bool = False
                       ) -> dict[str, float]:
    server.copy_fixture("theorem_magic.ipynb", name)
    nb = NotebookPage(page, server, name).open()
    # the document model is the shared (Yjs, server-synchronised) one exactly when RTC is on
    assert nb.eval("return panel.context.model.collaborative;") is rtc
    nb.run(0)  # %load_ext mechnb: the kernel opens the bridge, the extension answers hello
    page.evaluate(_WATCH)
    nb.run(1)  # %mech theorem --label thm:x
    page.locator(".jp-mechnb-badge[data-role='theorem']").wait_for()
    page.wait_for_function("() => window.__mechnb.finished !== undefined")
    times: dict[str, float] = page.evaluate("() => window.__mechnb")

    cells = nb.save()["cells"]
    assert source(cells[0]) == "%load_ext mechnb"
    assert source(cells[1]) == "%mech theorem --label thm:x"
    theorem, interpretation = cells[2], cells[3]
    assert theorem["cell_type"] == "markdown"
    assert theorem["metadata"]["mechnb"]["role"] == "theorem"
    assert theorem["metadata"]["mechnb"]["label"] == "thm:x"
    assert "mech:theorem" in theorem["metadata"]["tags"]
    assert "\\label{thm:x}" in source(theorem) or "thm:x" in json.dumps(theorem["metadata"])
    assert interpretation["cell_type"] == "markdown"
    assert interpretation["metadata"]["mechnb"]["role"] == "interpretation"
    assert source(cells[-1]) == "END of the fixture"
    assert all(c["cell_type"] == "code" and not source(c) for c in cells[4:-1]), \
        "only the theorem template's cells (and an empty new cell) may appear"
    # the inserted markdown cells are shown rendered, not as raw source
    rendered = page.locator(".jp-MarkdownCell.jp-mechnb-hasRole.jp-mod-rendered")
    assert rendered.count() >= 2
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"theorem-{server.kind}.png"))

    # running the magic's cell again must not insert a second copy of the template
    nb.run(1)
    page.wait_for_timeout(500)  # the insert message arrives before the run ends; allow slack
    again = nb.save()["cells"]
    roles = [c["metadata"].get("mechnb", {}).get("role") for c in again]
    assert roles.count("theorem") == 1 and roles.count("interpretation") == 1
    samples = sorted([times["visible"] - times["started"], *_more_samples(page, nb)])
    return {
        "finished_to_visible_ms": times["visible"] - times["finished"],
        "keypress_to_visible_ms": times["visible"] - times["started"],
        "keypress_to_finished_ms": times["finished"] - times["started"],
        "keypress_to_visible_median_ms": samples[len(samples) // 2],
        "keypress_to_visible_max_ms": samples[-1],
    }


def _record(frontend: str, numbers: dict[str, float]) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"latency-{frontend}.json").write_text(json.dumps(numbers, indent=1))
    print(f"\nlatency {frontend}: " + ", ".join(f"{k}={v:.0f}" for k, v in numbers.items()))


def test_theorem_magic_inserts_cells_in_jupyterlab(page: Any, lab_server: Server) -> None:
    _record("jupyterlab", _theorem_roundtrip(page, lab_server, "theorem_lab.ipynb"))


def test_theorem_magic_inserts_cells_in_notebook7(page: Any, notebook_server: Server) -> None:
    _record("notebook7", _theorem_roundtrip(page, notebook_server, "theorem_nb7.ipynb"))


def test_theorem_magic_inserts_cells_with_rtc_in_jupyterlab(page: Any,
                                                            lab_server_rtc: Server) -> None:
    """With jupyter-collaboration: the cells go into the shared model in one transaction."""
    _record("jupyterlab-rtc", _theorem_roundtrip(page, lab_server_rtc, "theorem_lab_rtc.ipynb",
                                                 rtc=True))


def test_theorem_magic_inserts_cells_with_rtc_in_notebook7(page: Any,
                                                           notebook_server_rtc: Server) -> None:
    _record("notebook7-rtc", _theorem_roundtrip(page, notebook_server_rtc,
                                                "theorem_nb7_rtc.ipynb", rtc=True))


@pytest.mark.parametrize("frontend", ["jupyterlab", "notebook7", "jupyterlab-rtc"])
def test_one_cell_quickstart_inserts_the_cells(page: Any, request: pytest.FixtureRequest,
                                               frontend: str) -> None:
    """``%load_ext`` and ``%mech`` in one cell: the kernel cannot hear the extension's ``hello``
    while that cell runs, so it shows the cells marked ``insert_when_done``; when the cell is done
    the extension turns them into real cells below it and removes the output. Nothing is left
    behind: no shown template, no role-less copy of a code cell."""
    server: Server = request.getfixturevalue({"jupyterlab": "lab_server",
                                              "notebook7": "notebook_server",
                                              "jupyterlab-rtc": "lab_server_rtc"}[frontend])
    name = f"quickstart_{frontend}.ipynb"
    server.copy_fixture("load_and_mech_one_cell.ipynb", name)
    nb = NotebookPage(page, server, name).open()
    nb.run(0)  # %load_ext mechnb + %mech theorem --label thm:y
    page.locator(".jp-mechnb-badge[data-role='theorem']").wait_for()
    page.wait_for_timeout(300)
    cells = nb.save()["cells"]
    assert source(cells[0]) == "%load_ext mechnb\n%mech theorem --label thm:y"
    assert cells[0]["outputs"] == [], cells[0]["outputs"]  # the shown template is gone
    roles = [c["metadata"].get("mechnb", {}).get("role") for c in cells]
    assert roles[1:3] == ["theorem", "interpretation"], roles
    assert cells[1]["metadata"]["mechnb"]["label"] == "thm:y"
    assert all(c["cell_type"] == "code" and not source(c) for c in cells[3:]), \
        "only the template's cells (and an empty new cell) may appear"


def test_a_code_cell_template_leaves_no_role_less_copy(page: Any, lab_server: Server) -> None:
    # a template with a code cell used to be offered as the next input too: a copy without its
    # role stayed behind below the inserted cells
    lab_server.copy_fixture("load_and_mech_one_cell.ipynb", "quickstart_validate.ipynb")
    nb = NotebookPage(page, lab_server, "quickstart_validate.ipynb").open()
    nb.eval("panel.content.model.sharedModel.getCell(0).setSource("
            "'%load_ext mechnb\\n%mech validate thm:main --kind intervention');")
    nb.run(0)
    page.locator(".jp-mechnb-badge[data-role='experiment']").first.wait_for()
    page.wait_for_timeout(300)
    cells = nb.save()["cells"]
    assert cells[0]["outputs"] == []
    code = [c for c in cells if c["cell_type"] == "code" and source(c).strip()][1:]
    assert code and all(c["metadata"].get("mechnb", {}).get("validates") == ["thm:main"]
                        for c in code), [c["metadata"] for c in code]


def _readme_quickstart() -> str:
    """The README's quickstart cell (in its five-minute tour), as a reader copies it."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    section = readme.split("## A five-minute tour", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0].rstrip("\n")


@pytest.mark.parametrize("frontend", ["jupyterlab", "notebook7"])
def test_readme_quickstart_as_typed(page: Any, request: pytest.FixtureRequest,
                                    frontend: str) -> None:
    """The README's Quickstart pasted into the one cell of a new notebook and run: the
    scaffold and the magics' cells are inserted below it, the check and the export run, the
    phrase panel opens, and nothing is left behind in the cell's output but the reports."""
    server: Server = request.getfixturevalue("lab_server" if frontend == "jupyterlab"
                                             else "notebook_server")
    code = _readme_quickstart()
    assert code.startswith("%load_ext mechnb\n%mech new dynamics")
    name = f"readme_{frontend}.ipynb"
    (server.root / name).write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "cells": [{"cell_type": "code", "id": "quickstart", "metadata": {}, "source": code,
                   "outputs": [], "execution_count": None}]}), "utf-8")
    nb = NotebookPage(page, server, name).open()
    nb.run(0)
    # the notebook draws only the cells in view: wait on the model, not the DOM
    page.wait_for_function(panel_js(
        "return panel.content.model.sharedModel.cells.filter(c => "
        "(c.getMetadata('mechnb') || {}).role === 'theorem').length >= 2;"), timeout=30_000)
    page.wait_for_timeout(500)
    cells = nb.save()["cells"]
    assert source(cells[0]) == code
    roles = [c["metadata"].get("mechnb", {}).get("role") for c in cells[1:]]
    # the dynamics scaffold, then the theorem, formula and validation templates
    assert {"abstract", "gap", "lens", "theorem", "interpretation", "formula", "experiment",
            "limitations"} <= set(roles), roles
    assert roles.count("theorem") >= 2  # the scaffold's and the magic's
    shown = json.dumps(cells[0]["outputs"])
    assert "insert_when_done" not in shown  # no template left shown in the output
    assert "Exported the saved copy" in shown and "Summary:" in shown
    assert "argument map" in shown  # %mech check's report
    assert "UsageError" not in shown
    assert (server.root / "build" / f"readme_{frontend}" / f"readme_{frontend}.tex").exists()
