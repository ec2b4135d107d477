"""Role badges, the set-role / clear-role commands, the findings panel and export from the UI."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from .conftest import ARTIFACTS, FIXTURES, Server
from .notebook_page import NotebookPage, source

# tests/browser/fixtures/seeded_defect.ipynb: cell 4 is theorem thm:main with no interpretation
# after it (MECH003); cells 1-7 carry roles, cell 0 (the title heading) has none.
SEEDED = "seeded_defect.ipynb"
THEOREM_CELL = 4


def test_badges_show_role_and_label(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture(SEEDED, "badges.ipynb")
    nb = NotebookPage(page, lab_server, "badges.ipynb").open()
    badge = nb.cell(THEOREM_CELL).locator(".jp-mechnb-badge")
    badge.wait_for()
    assert badge.inner_text() == "theorem · thm:main"
    assert nb.cell(1).locator(".jp-mechnb-badge").inner_text() == "context"
    assert nb.cell(0).locator(".jp-mechnb-badge").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "badges-jupyterlab.png"))


def test_set_role_from_cell_context_menu_writes_metadata(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture(SEEDED, "set_role.ipynb")
    nb = NotebookPage(page, lab_server, "set_role.ipynb").open()
    nb.select(0)
    nb.cell(0).click(button="right")
    page.locator(".lm-Menu-item", has_text="Set mechnb Role…").click()
    dialog = page.locator(".jp-Dialog")
    field = dialog.locator("input").first  # type to filter; the list is a datalist
    field.wait_for()
    values = dialog.locator("datalist option").evaluate_all(
        "options => options.map(o => o.value || o.textContent)")
    assert sum(v.startswith("title — ") for v in values) == 1, values
    # the pre-filled role and its purpose are shown whole, not cut at the field's edge
    assert field.input_value()  # the current role, pre-filled
    assert field.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), field.input_value()
    field.fill("tit")  # the one role that starts with it
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "set-role-dialog.png"))
    dialog.locator(".jp-mod-accept").click()
    label_dialog = page.locator(".jp-Dialog", has_text="Label for this title")
    label_dialog.locator("input").fill("")
    label_dialog.locator(".jp-mod-accept").click()
    nb.cell(0).locator(".jp-mechnb-badge", has_text="title").wait_for()

    # the same command with arguments, as the palette or a keyboard shortcut would run it
    nb.select(3)
    nb.command("mechnb:set-role", {"role": "lens", "label": "sec:lens"})
    nb.cell(3).locator(".jp-mechnb-badge", has_text="lens · sec:lens").wait_for()
    nb.select(7)
    nb.command("mechnb:clear-role")
    nb.cell(7).locator(".jp-mechnb-badge").wait_for(state="detached")

    cells = nb.save()["cells"]
    assert cells[0]["metadata"] == {"mechnb": {"role": "title"}, "tags": ["mech:title"]}
    assert cells[3]["metadata"] == {"mechnb": {"role": "lens", "label": "sec:lens"},
                                    "tags": ["mech:lens"]}
    assert cells[7]["metadata"] == {}
    assert cells[THEOREM_CELL]["metadata"]["mechnb"] == {"role": "theorem", "label": "thm:main"}


@pytest.mark.parametrize("frontend", ["lab", "notebook"])
def test_check_panel_lists_findings_and_selects_cell(
        page: Any, lab_server: Server, notebook_server: Server, frontend: str) -> None:
    server = lab_server if frontend == "lab" else notebook_server
    name = f"check_{frontend}.ipynb"
    server.copy_fixture(SEEDED, name)
    nb = NotebookPage(page, server, name).open()
    nb.select(0)
    page.locator(".jp-mechnb-check-button").first.click()
    finding = page.locator(".jp-mechnb-finding", has_text="MECH003")
    finding.wait_for()
    assert "theorem thm:main" in finding.inner_text()
    assert finding.get_attribute("data-cell-index") == str(THEOREM_CELL)
    # people see 1-based cell numbers, as in JupyterLab's status bar (DESIGN §2a)
    assert finding.locator(".jp-mechnb-finding-where").inner_text() == f"cell {THEOREM_CELL + 1}"
    assert page.locator(".jp-mechnb-findings-header").inner_text().startswith(name)
    finding.click()
    page.wait_for_function(
        "(i) => window.jupyterapp.shell.currentWidget.content.activeCellIndex === i",
        arg=THEOREM_CELL)
    active = nb.notebook.locator(".jp-Cell.jp-mod-active")
    assert "previous-token head forms before the induction head" in active.inner_text()
    if frontend == "notebook":
        page.screenshot(path=str(ARTIFACTS / "findings-notebook7.png"))


def test_export_from_ui_writes_tex(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture(SEEDED, "export_me.ipynb")
    nb = NotebookPage(page, lab_server, "export_me.ipynb").open()
    tex = lab_server.root / "build" / "export_me" / "export_me.tex"
    assert not tex.exists()
    nb.command("mechnb:export-paper", {"pdf": False})
    page.locator(".Toastify__toast", has_text="Wrote build/export_me/export_me.tex").wait_for()
    text = tex.read_text("utf-8")
    assert "\\label{thm:main}" in text
    assert "previous-token head forms before the induction head" in text
    assert source(nb.on_disk()["cells"][THEOREM_CELL]).startswith("**Theorem.**")


def test_mech_check_output_rows_select_their_cell(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect_magic.ipynb", "check_magic.ipynb")
    nb = NotebookPage(page, lab_server, "check_magic.ipynb").open()
    nb.run(8)  # %load_ext mechnb / %mech check
    row = nb.cell(8).locator(f"[data-mechnb-cell-index='{THEOREM_CELL}']",
                             has_text="MECH003").first
    row.wait_for()
    row.click()
    page.wait_for_function(
        "(i) => window.jupyterapp.shell.currentWidget.content.activeCellIndex === i",
        arg=THEOREM_CELL)
    # the rows number cells as the notebook shows them: a cell inserted above (not saved) moves
    # the theorem to cell 6, and its row says so (the kernel numbered the saved file)
    theorem_id = nb.cells()[THEOREM_CELL]["id"]
    number = page.locator(f".mechnb-cell-number[data-mechnb-cell-id='{theorem_id}']").first
    assert number.inner_text() == f"cell {THEOREM_CELL + 1}"
    nb.eval("panel.content.model.sharedModel.insertCell(0, {cell_type: 'markdown',"
            " source: 'A new first cell.'}); return 1;")
    page.wait_for_function("(n) => [...document.querySelectorAll('.mechnb-cell-number')]"
                           ".some(s => s.textContent === n)", arg=f"cell {THEOREM_CELL + 2}")
    assert number.inner_text() == f"cell {THEOREM_CELL + 2}"


@pytest.mark.tex
def test_export_from_notebook7_writes_tex_and_pdf(page: Any, notebook_server: Server) -> None:
    """The command's default (PDF when latexmk + XeLaTeX exist), in Notebook 7's notifications."""
    if not (shutil.which("latexmk") and shutil.which("xelatex")):
        pytest.skip("TeX Live is not installed (`make tex`)")
    notebook_server.copy_fixture(SEEDED, "export_nb7.ipynb")
    nb = NotebookPage(page, notebook_server, "export_nb7.ipynb").open()
    nb.command("mechnb:export-paper")
    out = "build/export_nb7/export_nb7"
    page.locator(".Toastify__toast", has_text=f"Wrote {out}.tex and {out}.pdf").wait_for(
        timeout=120_000)
    assert (notebook_server.root / f"{out}.pdf").read_bytes().startswith(b"%PDF")
    assert "\\label{thm:main}" in (notebook_server.root / f"{out}.tex").read_text("utf-8")


def test_findings_refresh_when_the_fix_is_saved(page: Any, lab_server: Server) -> None:
    """Fix the seeded defect (an interpretation after the theorem), save: MECH003 is gone."""
    lab_server.copy_fixture(SEEDED, "fix_me.ipynb")
    nb = NotebookPage(page, lab_server, "fix_me.ipynb").open()
    nb.select(THEOREM_CELL)
    page.locator(".jp-mechnb-check-button").first.click()
    page.locator(".jp-mechnb-finding", has_text="MECH003").wait_for()

    nb.select(THEOREM_CELL)
    page.keyboard.press("b")  # new cell below the theorem
    page.keyboard.press("m")  # … as markdown
    page.keyboard.press("Enter")
    page.keyboard.type("In words, the copying circuit is built in two stages.")
    page.keyboard.press("Escape")
    nb.command("mechnb:set-role", {"role": "interpretation"})
    nb.save()
    page.locator(".jp-mechnb-finding", has_text="MECH003").wait_for(state="detached")
    assert page.locator(".jp-mechnb-findings-header").inner_text().startswith(
        "fix_me.ipynb: 0 error(s)")
    cells = nb.on_disk()["cells"]
    assert cells[THEOREM_CELL + 1]["metadata"]["mechnb"] == {"role": "interpretation"}


def test_moves_side_bar_follows_the_active_abstract_cell(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture(SEEDED, "moves.ipynb")
    nb = NotebookPage(page, lab_server, "moves.ipynb").open()
    nb.select(1)
    nb.command("mechnb:show-moves")
    # the panel follows the active cell (debounced): cell 1 is the context, not the abstract
    page.locator(".jp-mechnb-moves .jp-mechnb-moves-note", has_text="not the abstract").wait_for()
    # make cell 0 the abstract, with text that must be shown, not parsed, by the panel
    nb.select(0)
    nb.command("mechnb:set-role", {"role": "abstract", "label": ""})
    nb.eval("panel.content.widgets[0].model.sharedModel.setSource(arg); return true;",
            "Induction heads <img src=x onerror=alert(1)> copy tokens. How they form "
            "remains unclear.")
    sentences = page.locator(".jp-mechnb-moves-sentence")
    sentences.nth(1).wait_for()
    assert sentences.count() == 2
    assert sentences.nth(0).get_attribute("data-moves") == "context"
    assert "<img src=x onerror=alert(1)>" in sentences.nth(0).inner_text()
    assert page.locator(".jp-mechnb-moves img").count() == 0
    assert sentences.nth(1).get_attribute("data-moves") == "gap"
    missing = page.locator(".jp-mechnb-moves-missing > li[data-move='contribution']")
    assert missing.locator(".jp-mechnb-moves-phrase").count() == 2
    # Insert: the suggestion goes into the abstract as a new sentence, its first slot selected
    phrase = missing.locator(".jp-mechnb-moves-phrase > span").first.inner_text()
    missing.locator(".jp-mechnb-moves-insert").first.click()
    page.wait_for_function(
        "(p) => window.jupyterapp.shell.currentWidget.content.widgets[0].model.sharedModel"
        ".getSource().endsWith(' ' + p)", arg=phrase)
    if "[" in phrase:
        selected = nb.eval("const e = panel.content.widgets[0].editor; const s = e.getSelection();"
                           "const src = e.model.sharedModel.getSource();"
                           "return src.slice(e.getOffsetAt(s.start), e.getOffsetAt(s.end));")
        assert selected.startswith("[") and selected.endswith("]")
    # an unsaved edit updates the panel (debounced), without saving the notebook
    nb.eval("panel.content.widgets[0].model.sharedModel.setSource(arg); return true;",
            "Induction heads copy tokens. How they form remains unclear. Experiments on "
            "GPT-2 confirm the prediction.")
    page.locator(".jp-mechnb-moves-sentence[data-moves='validation']").wait_for()
    assert page.locator(".jp-mechnb-moves-missing > li[data-move='validation']").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "moves-sidebar.png"))


def test_check_panel_puts_errors_first_and_summarises_template_slots(
        page: Any, lab_server: Server) -> None:
    import json

    from mechnb.templates import scaffold_notebook

    target = lab_server.root / "fresh_scaffold.ipynb"
    target.write_text(json.dumps(scaffold_notebook("dynamics")), "utf-8")
    nb = NotebookPage(page, lab_server, "fresh_scaffold.ipynb").open()
    nb.select(0)
    page.locator(".jp-mechnb-check-button").first.click()
    # a cell still as the template inserted it is a note (MECH025 info): Notes start folded
    page.locator(".jp-mechnb-findings-group[data-group='info']").click()
    summary = page.locator(".jp-mechnb-slot-summary > summary")
    summary.wait_for()
    assert summary.count() == 1
    assert "unfilled template slots in" in summary.inner_text()
    assert "first: [" in summary.inner_text()
    # counted as the text report counts them: every slot, not one per cell's finding
    from mechnb.checker import check
    from mechnb.checker.report import slot_summary

    slots = [f for f in check(target) if f.code == "MECH025"]
    expected = slot_summary(slots).split(" — ")[0]
    assert summary.inner_text().split(" — ")[0] == expected, (summary.inner_text(), expected)
    # the slots are listed only when the summary is opened; errors come before everything
    severities = page.locator(".jp-mechnb-findings-list > li > .jp-mechnb-finding").evaluate_all(
        "(els) => els.map(e => e.className.split('jp-mechnb-severity-')[1])")
    assert severities and severities[0] == "error"
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert not page.locator(".jp-mechnb-slot-summary ul").is_visible()


def test_check_marks_the_cells_and_a_finding_puts_the_cursor_at_its_line(
        page: Any, lab_server: Server) -> None:
    nb_json = json.loads((FIXTURES / SEEDED).read_text("utf-8"))
    nb_json["cells"][7]["source"] = ("Our analysis covers two-layer models.\n"
                                     "As Figure 2 shows, it holds.")
    (lab_server.root / "marked.ipynb").write_text(json.dumps(nb_json), "utf-8")
    nb = NotebookPage(page, lab_server, "marked.ipynb").open()
    nb.select(0)
    page.locator(".jp-mechnb-check-button").first.click()
    page.locator(".jp-mechnb-finding", has_text="MECH003").wait_for()
    # errors and warnings mark their cells (class and hover text); the rest stay plain
    assert "mechnb-finding-error" in nb.cell(THEOREM_CELL).get_attribute("class")
    assert "MECH003 error" in nb.cell(THEOREM_CELL).get_attribute("title")
    assert "mechnb-finding-warning" in nb.cell(7).get_attribute("class")
    assert "mechnb-finding" not in (nb.cell(3).get_attribute("class") or "")
    # a finding with a line and column: the cell is selected and the cursor put there
    page.locator(".jp-mechnb-finding", has_text="MECH023").first.click()
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex === 7")
    page.wait_for_timeout(300)
    where = nb.eval("const e = panel.content.activeCell.editor;"
                    "return [panel.content.mode, e.getCursorPosition()];")
    assert where == ["edit", {"line": 1, "column": 3}], where
    # a later check that finds nothing there removes the cell's mark (the others stay)
    nb.eval("panel.content.model.sharedModel.getCell(7)"
            ".setSource('Our analysis covers two-layer attention-only models.');")
    nb.select(0)
    page.locator(".jp-mechnb-check-button").first.click()
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.content.widgets[7].node.classList"
        ".contains('mechnb-finding-warning')")
    assert "mechnb-finding-error" in nb.cell(THEOREM_CELL).get_attribute("class")
