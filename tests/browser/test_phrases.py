"""Acceptance: the phrase panel opens in the right side bar, typing filters, a click inserts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import ARTIFACTS, Server
from .notebook_page import NotebookPage, source

QUERY = "closed form"
PHRASE = "No closed-form characterization of [weights] is known, even in the simplest setting."


_COUNT_JS = "(el) => { const m = el.innerText.match(/(\\d+) phrases/); return m ? +m[1] : -1; }"


def _count(panel: Any) -> int:
    """The panel's own count of matching phrases ("17 phrases")."""
    return int(panel.evaluate(_COUNT_JS))


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_phrase_panel_in_sidebar_filters_and_inserts(
        page: Any, lab_server: Server, notebook_server: Server, frontend: str) -> None:
    server = lab_server if frontend == "lab" else notebook_server
    name = f"phrases_{frontend}.ipynb"
    server.copy_fixture("phrases.ipynb", name)
    nb = NotebookPage(page, server, name).open()
    # the kernel path: the magic, typed in cells, opens the ipywidgets panel in the side bar
    # (the command opens the server-backed panel: test_the_phrase_panel_needs_no_kernel)
    nb.run(0)
    nb.run(1)
    sidebar = page.locator(".jp-mechnb-sidebar")
    search = sidebar.locator(".mechnb-phrase-panel input[type='text']").first
    search.wait_for()
    assert nb.cell(1).locator(".mechnb-phrase-panel").count() == 0  # not inline: in the side bar
    sidebar.get_by_text(" phrases").first.wait_for()
    before = _count(sidebar)

    # the target: the cursor at the end of cell 2 ("gap = ")
    nb.cell(2).locator(".cm-content").click()
    page.keyboard.press("Control+End")

    # type the query; the page notes when the panel's count changes (kernel round trip)
    page.evaluate(f"""([el, n]) => {{
        window.__mechnbFilter = {{}};
        new MutationObserver(() => {{
            if (window.__mechnbFilter.filtered === undefined && ({_COUNT_JS})(el) !== n)
                window.__mechnbFilter.filtered = performance.now();
        }}).observe(el, {{subtree: true, childList: true, characterData: true}});
        el.querySelector('input[type=text]').addEventListener('input',
            () => {{ window.__mechnbFilter.typed = performance.now(); }});
    }}""", [sidebar.element_handle(), before])
    search.fill(QUERY)
    first = sidebar.locator(".widget-html", has_text=PHRASE).first
    first.wait_for()
    page.wait_for_function("() => window.__mechnbFilter.filtered !== undefined")
    filter_ms = page.evaluate("() => window.__mechnbFilter.filtered - window.__mechnbFilter.typed")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"latency-phrase-filter-{frontend}.json").write_text(
        json.dumps({"typed_to_filtered_ms": filter_ms}))
    after = _count(sidebar)
    assert 0 < after < before, (before, after)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phrases-{frontend}.png"))

    row = sidebar.locator(".widget-vbox").filter(
        has=page.locator(".widget-html", has_text=PHRASE)).last
    row.locator("button", has_text="Insert").first.click()
    page.wait_for_function(
        "([i, t]) => window.jupyterapp.shell.currentWidget.content.model.cells.get(i)"
        ".sharedModel.getSource().includes(t)", arg=[2, PHRASE])
    cells = nb.save()["cells"]
    assert source(cells[2]) == "gap = " + PHRASE
    assert len(cells) >= 3


def test_a_phrase_is_appended_to_a_cell_not_being_edited_with_its_slot_selected(
        page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("phrases.ipynb", "phrases_append.ipynb")
    nb = NotebookPage(page, lab_server, "phrases_append.ipynb").open()
    nb.run(0)
    nb.run(1)
    sidebar = page.locator(".jp-mechnb-sidebar")
    search = sidebar.locator(".mechnb-phrase-panel input[type='text']").first
    search.wait_for()
    nb.eval("panel.content.model.sharedModel.getCell(2).setSource('Prior work stops here.');")
    nb.select(2)  # active, in command mode: not being edited
    assert nb.eval("return panel.content.mode;") == "command"
    search.fill(QUERY)
    row = sidebar.locator(".widget-vbox").filter(
        has=page.locator(".widget-html", has_text=PHRASE)).last
    row.wait_for()
    row.locator("button", has_text="Insert").first.click()
    page.wait_for_function(
        "([i, t]) => window.jupyterapp.shell.currentWidget.content.model.cells.get(i)"
        ".sharedModel.getSource().includes(t)", arg=[2, PHRASE])
    selected = nb.eval(
        "const c = panel.content.widgets[2]; const e = c.editor; const s = e.getSelection();"
        "const src = c.model.sharedModel.getSource();"
        "return [panel.content.activeCellIndex, panel.content.mode,"
        "        src.slice(e.getOffsetAt(s.start), e.getOffsetAt(s.end))];")
    assert selected == [2, "edit", "[weights]"]  # the first slot, ready to be typed over
    # a new sentence after a space, not glued to the start of the text
    assert source(nb.save()["cells"][2]) == "Prior work stops here. " + PHRASE


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_the_phrase_panel_needs_no_kernel(
        page: Any, lab_server: Server, notebook_server: Server, frontend: str) -> None:
    """Issue 37: the side bar's phrase panel asks the server, so it searches and inserts with
    the notebook's kernel shut down, in JupyterLab and in Notebook 7."""
    server = lab_server if frontend == "lab" else notebook_server
    name = f"phrases_nokernel_{frontend}.ipynb"
    server.copy_fixture("phrases.ipynb", name)
    nb = NotebookPage(page, server, name).open()
    nb.eval("return panel.sessionContext.ready.then(() => panel.sessionContext.shutdown());")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.sessionContext"
                           ".session?.kernel")
    nb.command("mechnb:open-phrases")
    panel = page.locator(".jp-mechnb-phrases")
    panel.locator(".jp-mechnb-phrases-status", has_text="phrases").wait_for()
    everything = _count(panel)  # an empty query lists the library (its first 60 phrases)
    assert everything == 60
    nb.cell(2).locator(".cm-content").click()  # the cursor at the end of cell 2 ("gap = ")
    page.keyboard.press("Control+End")
    panel.locator("input.jp-mechnb-phrases-search").fill(QUERY)
    panel.locator(".jp-mechnb-phrases-status", has_text=f"for “{QUERY}”").wait_for()
    row = panel.locator(".jp-mechnb-phrase-row", has_text=PHRASE).first
    row.wait_for()
    first = panel.locator(".jp-mechnb-phrase").evaluate_all(
        "(items) => items.slice(0, 3).map(i => i.innerText)")
    assert any(PHRASE in text for text in first), first  # the best matches come first
    row.locator("button", has_text="Insert").click()
    page.wait_for_function(
        "([i, t]) => window.jupyterapp.shell.currentWidget.content.model.cells.get(i)"
        ".sharedModel.getSource().includes(t)", arg=[2, PHRASE])
    assert source(nb.save()["cells"][2]) == "gap = " + PHRASE
    # Chinese only: the rows hold the Chinese phrase
    panel.locator("select.jp-mechnb-phrases-lang").select_option("zh")
    panel.locator("input.jp-mechnb-phrases-search").fill("由此可见")
    panel.locator(".jp-mechnb-phrase-zh", has_text="由此可见").first.wait_for()
    assert panel.locator(".jp-mechnb-phrase-en").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phrases-nokernel-{frontend}.png"))
