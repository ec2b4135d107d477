"""The writing desk around export and check (issue 22), in a real JupyterLab: the export toast
says what happened and offers Open PDF / Show findings, an open PDF tab reloads, File › Save and
Export Notebook As names mechnb's exporter, the Findings panel groups by severity and filters."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .notebook_page import NotebookPage

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "preview" / "preview_paper.ipynb"
OUT = "build/desk/desk"


def _with_missing_reference(server: Server, name: str) -> None:
    nb = json.loads(FIXTURE.read_text("utf-8"))
    nb["cells"][5]["source"] = "As Lemma~\\ref{lem:missing} shows, the bound is tight."
    (server.root / name).write_text(json.dumps(nb), "utf-8")


@pytest.mark.tex
def test_export_toast_names_problems_opens_the_pdf_and_reloads_it(page: Any,
                                                                   lab_server: Server) -> None:
    if not (shutil.which("latexmk") and shutil.which("pdflatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    _with_missing_reference(lab_server, "desk.ipynb")
    nb = NotebookPage(page, lab_server, "desk.ipynb").open()
    nb.command("mechnb:export-paper")
    toast = page.locator(".Toastify__toast", has_text=f"Wrote {OUT}.tex and {OUT}.pdf")
    toast.wait_for(timeout=120_000)
    # written is a success; the problems are a to-do, not a failure
    text = toast.inner_text()
    assert text.startswith(f"Wrote {OUT}.tex and {OUT}.pdf. The draft still has "), text
    assert "and 1 undefined reference to fix (Show findings)" in text, text
    assert "Toastify__toast--success" in (toast.get_attribute("class") or "")
    toast.get_by_role("button", name="Open PDF").click()
    page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget?.context?.path"
                           f" === '{OUT}.pdf'", timeout=30_000)
    before = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.toString()"
                           ".length")
    # fixed and exported again: the open PDF tab shows the new file
    page.evaluate(f"() => window.jupyterapp.shell.activateById('{nb.panel_id}')")
    nb.eval("panel.content.model.cells.get(5).sharedModel.setSource("
            "'The bound is tight, as a longer sentence in the fixed draft now explains.');"
            "return 1;")
    nb.command("mechnb:export-paper")
    done = page.locator(".Toastify__toast", has_text=f"Wrote {OUT}.tex and {OUT}.pdf").last
    done.wait_for(timeout=120_000)
    assert "undefined reference" not in done.inner_text()
    page.wait_for_function(
        "(n) => { const w = window.jupyterapp.shell.widgets('main');"
        " for (const x of w) if (x.context && x.context.path.endsWith('.pdf'))"
        "   return x.context.model.toString().length !== n; return false; }",
        arg=before, timeout=30_000)


def test_save_and_export_as_names_the_mechnb_exporter(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "menu.ipynb")
    NotebookPage(page, lab_server, "menu.ipynb").open()
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Save and Export Notebook As").hover()
    page.locator(".lm-Menu-itemLabel", has_text="Mechanism paper (LaTeX)").wait_for()
    labels = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    assert "Mechnb" not in labels
    page.keyboard.press("Escape")


def test_findings_are_grouped_by_severity_and_filtered(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "groups.ipynb")
    nb = NotebookPage(page, lab_server, "groups.ipynb").open()
    nb.select(0)
    nb.command("mechnb:check-argument")
    groups = page.locator(".jp-mechnb-findings-group")
    groups.first.wait_for()
    names = [t.split(" (")[0] for t in groups.all_inner_texts()]
    assert names[0] == "Errors" and names == sorted(
        names, key=["Errors", "Warnings", "Notes"].index)
    page.locator(".jp-mechnb-findings-filter").fill("MECH003")
    shown = page.locator(".jp-mechnb-findings-list > li:not([hidden]) .jp-mechnb-finding")
    texts = shown.all_inner_texts()
    assert texts and all("MECH003" in t for t in texts)
    heads = page.locator(".jp-mechnb-findings-group:not([hidden])").all_inner_texts()
    assert heads and all(" of " in h for h in heads), heads  # "Errors (1 of 3)"
    # a filter that matches nothing says so, with no group totals over an empty list
    page.locator(".jp-mechnb-findings-filter").fill("no-such-finding-text")
    assert page.locator(".jp-mechnb-findings-group:not([hidden])").count() == 0
    assert page.locator(".jp-mechnb-findings-empty").inner_text() == \
        'No finding matches "no-such-finding-text".'
    page.locator(".jp-mechnb-findings-filter").fill("MECH003")
    assert page.locator(".jp-mechnb-findings-empty").count() == 0
    # folding the errors hides them
    groups.first.click()
    assert shown.count() == 0


def _readable_argument_map(page: Any, nb: NotebookPage) -> Any:
    """Open the argument map panel; check it is drawn at its own size with plain tooltips."""
    nb.command("mechnb:argument-map")
    svg = page.locator(".jp-mechnb-argmap-panel svg.mechnb-argmap")
    svg.wait_for()
    # drawn at its own size: box titles at 11 px or more on screen, not shrunk to 6-7 px
    size = page.evaluate("() => { const t = document.querySelector("
                         "'.jp-mechnb-argmap-panel .node .head');"
                         " return t.getBoundingClientRect().height; }")
    assert size >= 10, size
    # the open end's tooltip is plain text: no $, no backslash commands, no markdown stars
    tips = svg.locator(".node.open > title").all_text_contents()
    assert tips and all("$" not in t and "\\" not in t and "**" not in t for t in tips)
    assert "MECH003" in " ".join(tips)
    return svg


def test_argument_map_panel_is_readable_zoomable_and_plain(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "map.ipynb")
    nb = NotebookPage(page, lab_server, "map.ipynb").open()
    svg = _readable_argument_map(page, nb)
    view = page.locator(".jp-mechnb-argmap-panel")
    # zoom in: the picture grows
    before = float(svg.get_attribute("width") or 0)
    view.get_by_role("button", name="+").click()
    assert float(svg.get_attribute("width") or 0) > before
    # Fit in a narrow panel never shrinks the text below a readable size (it was ~3 px in the
    # default split): the map scrolls sideways instead
    page.set_viewport_size({"width": 900, "height": 900})
    page.wait_for_timeout(300)
    view.get_by_role("button", name="Fit").click()
    assert float(svg.get_attribute("width") or 0) > view.bounding_box()["width"]
    smallest = page.evaluate("() => Math.min(...[...document.querySelectorAll("
                             "'.jp-mechnb-argmap-panel .node text')].map("
                             "t => t.getBoundingClientRect().height).filter(h => h > 0))")
    assert smallest >= 8.5, smallest
    # a click on the theorem's box selects its cell
    nb.select(0)
    svg.locator(".node[data-mechnb-cell-index='4']").first.click()
    page.wait_for_function("() => { const w = window.jupyterapp.shell.currentWidget;"
                           " return w.content && w.content.activeCellIndex === 4; }")


def test_argument_map_draws_one_edge_per_validation(page: Any, lab_server: Server) -> None:
    """Two statements, each closed by its own proof or experiment: the drawn map has exactly the
    graph's edges (one per validation, nothing crosswise from interpretations)."""
    from mechnb.checker import check
    from mechnb.checker.argmap import build_graph
    from mechnb.notebook import read_paper

    desk = Path(__file__).resolve().parents[1] / "fixtures" / "desk"
    data = json.loads((desk / "argmap_two_statements.ipynb").read_text("utf-8"))
    data["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}
    (lab_server.root / "map-edges.ipynb").write_text(json.dumps(data), "utf-8")
    paper = read_paper(lab_server.root / "map-edges.ipynb")
    _, edges = build_graph(paper, check(paper))
    nb = NotebookPage(page, lab_server, "map-edges.ipynb").open()
    nb.command("mechnb:argument-map")
    svg = page.locator(".jp-mechnb-argmap-panel svg.mechnb-argmap")
    svg.wait_for()
    assert svg.locator("path.edge").count() == len(edges)
    boxes = svg.locator(".node .label").all_text_contents()
    assert {"exp:a-controlled", "exp:b-intervention"} <= set(boxes), boxes


_LUMINANCE = """(selector) => {
  const el = document.querySelector(selector);
  const s = getComputedStyle(el);
  const c = (el instanceof SVGElement ? s.fill : s.backgroundColor).match(/[0-9.]+/g).map(Number);
  return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
}"""


def test_argument_map_follows_the_dark_theme(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "map-dark.ipynb")
    nb = NotebookPage(page, lab_server, "map-dark.ipynb").open()
    nb.command("mechnb:argument-map")
    page.locator(".jp-mechnb-argmap-panel svg.mechnb-argmap").wait_for()
    assert page.evaluate(_LUMINANCE, ".jp-mechnb-argmap-view") > 0.8  # light theme: light
    try:
        nb.command("apputils:change-theme", {"theme": "JupyterLab Dark"})
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
        page.wait_for_timeout(500)
        assert page.evaluate(_LUMINANCE, ".jp-mechnb-argmap-view") < 0.3
        assert page.evaluate(_LUMINANCE, ".jp-mechnb-argmap-view .node:not(.open) rect") < 0.4
    finally:  # the theme is a setting of the session's server: put it back
        nb.command("apputils:change-theme", {"theme": "JupyterLab Light"})
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")


@pytest.mark.tex
def test_export_toast_and_findings_in_notebook7(page: Any, notebook_server: Server) -> None:
    """Notebook 7: the same toast (what happened, errors and undefined references first) and its
    "Show findings" opens the Findings panel on the right with the unresolved reference."""
    if not (shutil.which("latexmk") and shutil.which("pdflatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    _with_missing_reference(notebook_server, "desk-nb7.ipynb")
    nb = NotebookPage(page, notebook_server, "desk-nb7.ipynb").open()
    nb.command("mechnb:export-paper")
    toast = page.locator(".Toastify__toast", has_text="desk-nb7.tex and")
    toast.wait_for(timeout=120_000)
    assert "1 undefined reference" in toast.inner_text()
    assert toast.get_by_role("button", name="Open PDF").is_visible()
    toast.get_by_role("button", name="Show findings").click()
    finding = page.locator(".jp-mechnb-finding", has_text="lem:missing")
    finding.first.wait_for(timeout=30_000)
    assert finding.first.is_visible()
    # the cell that cites it is marked
    page.locator(".jp-Cell.mechnb-finding-error, .jp-Cell.mechnb-finding-warning").first.wait_for()


def test_argument_map_and_findings_groups_in_notebook7(page: Any,
                                                       notebook_server: Server) -> None:
    notebook_server.copy_fixture("seeded_defect.ipynb", "map-nb7.ipynb")
    nb = NotebookPage(page, notebook_server, "map-nb7.ipynb").open()
    _readable_argument_map(page, nb)
    nb.select(0)
    nb.command("mechnb:check-argument")
    groups = page.locator(".jp-mechnb-findings-group")
    groups.first.wait_for()
    assert groups.first.inner_text().startswith("Errors")
