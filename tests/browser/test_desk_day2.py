"""The writing desk, day two (issue 37), in a real JupyterLab and Notebook 7: the cell Properties
dialog, the paper's preamble, MathJax labels and references in the notebook, and collaboration as
a choice.

With ``MECHNB_SCREENSHOTS=1`` the tests also rewrite the screenshots of ``docs/guide/desk.md``
(``docs/desk-*.png``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server
from .notebook_page import NotebookPage, panel_js

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "preview" / "preview_paper.ipynb"
HAS_TEX = bool(shutil.which("pdflatex") and shutil.which("synctex"))
# a 1x1 PNG: an experiment cell's figure
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
       "AAAABJRU5ErkJggg==")


def _shot(target: Any, name: str) -> None:
    """Rewrite docs/desk-<name>.png from what the test shows (only with MECHNB_SCREENSHOTS=1)."""
    if os.environ.get("MECHNB_SCREENSHOTS") == "1":
        target.screenshot(path=str(ROOT / "docs" / f"desk-{name}.png"))


def _open(page: Any, server: Server, name: str) -> NotebookPage:
    shutil.copy(FIXTURE, server.root / name)
    return NotebookPage(page, server, name).open()


def _pdf_text(server: Server, name: str) -> str:
    url = f"{server.url}mechnb/preview?path={name}&token={server.token}"
    with urllib.request.urlopen(url, timeout=30) as response:
        pdf = response.read()
    out = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True)
    return " ".join(out.stdout.decode("utf-8").split())


def _mech(nb: NotebookPage, index: int) -> Any:
    return nb.eval("const c = panel.content.model.cells.get(arg);"
                   "return [c.getMetadata('mechnb') ?? null, c.getMetadata('tags') ?? null];",
                   index)


_PROPERTIES = "() => { window.jupyterapp.commands.execute('mechnb:cell-properties'); }"


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
def test_cell_properties_dialog_edits_caption_label_validates(page: Any,
                                                             lab_server: Server) -> None:
    nb = _open(page, lab_server, "properties.ipynb")
    nb.eval("panel.content.model.sharedModel.insertCell(6, {cell_type: 'code', metadata: {},"
            " source: 'plot_formation_times()', execution_count: 1, outputs: [{output_type:"
            " 'display_data', metadata: {}, data: {'image/png': arg, 'text/plain': 'fig'}}]});"
            "return 1;", PNG)
    nb.select(6)
    page.evaluate(_PROPERTIES)  # not awaited: the command resolves when the dialog closes
    dialog = page.locator(".jp-Dialog")
    dialog.locator("select[name=role]").wait_for()
    assert dialog.locator(".jp-Dialog-header").inner_text().strip() == "Cell 7 properties"
    apply = dialog.get_by_role("button", name="Apply")
    dialog.locator("select[name=role]").select_option("experiment")
    label = dialog.locator("input[name=label]")
    row = dialog.locator(".mechnb-form-row", has=page.locator("input[name=label]"))
    hint = row.locator("small")
    # validated as it is typed: a label another cell has, then a space
    label.fill("thm:main")
    assert hint.inner_text() == "Cell 4 already has the label “thm:main”."
    assert apply.is_disabled()
    label.fill("fig:formation time")
    assert "cannot hold a space" in hint.inner_text() and apply.is_disabled()
    label.press("Enter")  # held: the dialog stays open with what was typed
    assert dialog.is_visible() and label.input_value() == "fig:formation time"
    label.fill("fig:formation")
    assert not apply.is_disabled()
    assert "mechnb-form-error" not in (hint.get_attribute("class") or "")
    dialog.locator("textarea[name=caption]").fill(
        "Formation time against the margin $\\gamma$, validating Theorem~\\ref{thm:main}.")
    dialog.locator(".mechnb-validates-item", has_text="thm:main (cell 4)").locator(
        "input").check()
    dialog.locator("input[name=kind]").fill("controlled")
    _shot(dialog.locator(".jp-Dialog-content"), "properties")
    apply.click()
    mech, tags = _mech(nb, 6)
    assert mech == {"role": "experiment", "label": "fig:formation", "kind": "controlled",
                    "validates": ["thm:main"], "caption": "Formation time against the margin "
                    "$\\gamma$, validating Theorem~\\ref{thm:main}."}
    assert tags == ["mech:experiment"]

    # a second edit, undone from the notification: back to the first one exactly
    nb.select(6)
    page.evaluate(_PROPERTIES)
    dialog.locator("input[name=title]").fill("A title I did not want")
    dialog.get_by_role("button", name="Apply").click()
    assert _mech(nb, 6)[0]["title"] == "A title I did not want"
    page.get_by_role("alert").get_by_role("button", name="Undo").click()
    assert _mech(nb, 6) == [mech, tags]

    # the PDF shows it: the figure with its caption, the reference resolved
    saved = nb.save()
    assert saved["cells"][6]["metadata"]["mechnb"] == mech
    assert nb.command("mechnb:preview")["status"] == "ok"
    text = _pdf_text(lab_server, "properties.ipynb")
    assert "Figure 1: Formation time against the margin γ, validating Theorem 1." in text


def test_cell_properties_in_notebook7(page: Any, notebook_server: Server) -> None:
    nb = _open(page, notebook_server, "properties-nb7.ipynb")
    nb.select(3)
    page.evaluate(_PROPERTIES)
    dialog = page.locator(".jp-Dialog")
    # the dialog shows what the cell has
    assert dialog.locator("select[name=role]").input_value() == "theorem"
    assert dialog.locator("input[name=label]").input_value() == "thm:main"
    assert dialog.locator("input[name=title]").input_value() == "Formation time"
    dialog.locator("input[name=label]").fill("thm:formation")
    dialog.locator("input[name=title]").fill("Formation bound")
    dialog.get_by_role("button", name="Apply").click()
    saved = nb.save()["cells"][3]["metadata"]
    assert saved["mechnb"] == {"role": "theorem", "label": "thm:formation",
                               "title": "Formation bound"}
    assert saved["tags"] == ["mech:theorem"]


_EQUATION = ("The product rule, which the proof uses twice:\n"
             "\\begin{equation}\\label{eq:product}\n(fg)' = f'g + fg'\n\\end{equation}")
_REFS = ("By \\eqref{eq:product} and \\cref{thm:main}, the bound follows; "
         "\\cref{eq:nowhere} names no label.")


@pytest.mark.parametrize("server_name", ["lab_server", "notebook_server"])
def test_labelled_equation_edited_three_times_renders_without_error(
        page: Any, request: pytest.FixtureRequest, server_name: str) -> None:
    """MathJax keeps every \\label it has seen: re-rendering a cell whose equation has a label
    turned it red ("Label 'eq:product' multiply defined") until the page was reloaded."""
    nb = _open(page, request.getfixturevalue(server_name), f"mathjax-{server_name}.ipynb")
    nb.eval("const s = panel.content.model.sharedModel;"
            "s.insertCell(6, {cell_type: 'markdown', metadata: {}, source: arg[0]});"
            "s.insertCell(7, {cell_type: 'markdown', metadata: {}, source: arg[1]});"
            "return 1;", [_EQUATION, _REFS])
    for index in (6, 7):
        nb.select(index)
        page.keyboard.press("Shift+Enter")
    equation, refs = nb.cell(6), nb.cell(7)
    equation.locator("mjx-container").first.wait_for()
    for n in range(3):  # edited and rendered again, as a person does
        nb.select(6)
        page.keyboard.press("Enter")
        page.locator(".jp-Cell.jp-mod-active .cm-content").wait_for()
        page.keyboard.press("Control+End")
        page.keyboard.type(f" Edit {n + 1}.")
        page.keyboard.press("Shift+Enter")
        equation.locator(".jp-RenderedMarkdown", has_text=f"Edit {n + 1}.").wait_for()
        equation.locator("mjx-container").first.wait_for()
        assert equation.locator("mjx-merror").count() == 0, equation.inner_text()
        assert "multiply defined" not in equation.inner_text()
    # \eqref and \cref read as references to the notebook's cells, not "(???)" or raw TeX
    text = refs.locator(".jp-RenderedMarkdown").inner_text()
    assert "(eq:product)" in text and "Theorem thm:main" in text
    assert "???" not in text and "\\cref" not in text and "\\eqref" not in text
    missing = refs.locator(".mechnb-ref-missing")
    assert missing.inner_text() == "?? eq:nowhere"
    _shot(page.locator(f"[id='{nb.panel_id}']"), f"mathjax-{server_name.split('_')[0]}")
    refs.locator(".mechnb-ref", has_text="Theorem thm:main").click()
    page.wait_for_function(panel_js("return panel.content.activeCellIndex === 3;"))


_TIKZ = "\\usepackage{tikz}\n\\usetikzlibrary{arrows.meta}"
_FIGURE = ("\\begin{figure}[h]\\centering\n\\begin{tikzpicture}\n"
           "\\draw[-{Stealth}] (0,0) -- (2,1) node[right] {head forms};\n"
           "\\end{tikzpicture}\n\\caption{A TikZ arrow drawn in the paper.}\n\\end{figure}")
_SETTINGS = "() => { window.jupyterapp.commands.execute('mechnb:paper-settings'); }"


@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
def test_preamble_with_tikz_is_reviewed_approved_and_used_in_a_figure(
        page: Any, lab_server: Server) -> None:
    nb = _open(page, lab_server, "preamble.ipynb")
    page.evaluate(_SETTINGS)
    dialog = page.locator(".jp-Dialog")
    dialog.locator("textarea[name=preamble]").fill(_TIKZ)
    dialog.get_by_role("button", name="Apply").click()
    nb.eval("panel.content.model.sharedModel.insertCell(6, {cell_type: 'raw', "
            "metadata: {format: 'text/latex'}, source: arg}); return 1;", _FIGURE)
    assert nb.save()["metadata"]["mechnb"]["preamble"] == _TIKZ
    assert nb.command("mechnb:preview")["status"] == "blocked"
    view = page.locator(".jp-mechnb-preview")
    view.get_by_role("button", name="Review and approve (2 items)").click()
    items = dialog.locator(".jp-mechnb-trust-item")
    assert items.nth(0).inner_text().startswith("notebook metadata.mechnb.preamble: the "
                                                 "paper's preamble")
    assert items.nth(1).inner_text().startswith("cell 7: a raw LaTeX cell")
    assert dialog.locator("pre").nth(0).inner_text().strip() == _TIKZ
    _shot(dialog.locator(".jp-Dialog-content"), "preamble-review")
    dialog.get_by_role("button", name="Approve and build").click()
    page.wait_for_function("() => document.querySelector('.jp-mechnb-preview')"
                           ".dataset.state === 'ok'", timeout=60_000)
    text = _pdf_text(lab_server, "preamble.ipynb")
    assert "A TikZ arrow drawn in the paper." in text and "head forms" in text

    # Paper Settings shows the preamble's trust status
    page.evaluate(_SETTINGS)
    status = dialog.locator(".mechnb-preamble-status")
    page.wait_for_function("() => document.querySelector('.mechnb-preamble-status')"
                           ".dataset.state === 'approved'")
    assert status.inner_text().startswith("Preamble (as saved): approved")
    status.scroll_into_view_if_needed()
    _shot(dialog.locator(".jp-Dialog-content"), "preamble-settings")
    # refused content in the preamble: said refused and why, never offered for approval
    dialog.locator("textarea[name=preamble]").fill(_TIKZ + "\n\\immediate\\write18{ls}")
    assert status.get_attribute("data-state") == "changed"
    dialog.get_by_role("button", name="Apply").click()
    nb.save()
    page.wait_for_function("() => document.querySelector('.jp-mechnb-preview')"
                           ".dataset.state === 'blocked'", timeout=60_000)
    refused = view.locator(".jp-mechnb-preview-refused")
    refused.wait_for()
    assert refused.inner_text().startswith("Refused: notebook metadata.mechnb.preamble: writes "
                                           "files or runs shell commands")
    assert view.get_by_role("button", name="Review and approve").count() == 0
    page.evaluate(_SETTINGS)
    page.wait_for_function("() => document.querySelector('.mechnb-preamble-status')"
                           ".dataset.state === 'refused'")
    assert "cannot be approved" in status.inner_text()
    assert dialog.locator(".mechnb-preamble-review").count() == 0
    dialog.get_by_role("button", name="Cancel").click()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("rtc", ["", "1"])
def test_make_lab_starts_without_collaboration_unless_asked(
        page: Any, tmp_path: Path, rtc: str) -> None:
    """``make lab`` itself (its recipe, with ``install`` taken as done): collaboration is off
    unless ``RTC=1`` — no collaboration endpoint in the server, and a notebook opened in the
    page is not a shared document; with ``RTC=1`` both are on (so the test can tell)."""
    from .conftest import BIN, _free_port, _isolated_env, has_collaboration

    if rtc and not has_collaboration():
        pytest.skip("jupyter-collaboration is not installed")
    env = _isolated_env(tmp_path, disable_extension=False, rtc=True)  # make lab decides
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(FIXTURE, root / "lab.ipynb")
    port, token = _free_port(), "mechnb-test-" + os.urandom(6).hex()
    args = (f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
            f"--ServerApp.port_retries=0 --IdentityProvider.token={token} "
            "--LabApp.expose_app_in_browser=True --allow-root "
            # the collaboration server keeps its store in the working directory (the repository)
            f"--SQLiteYStore.db_path={tmp_path / 'ystore.db'}")
    log = tmp_path / "make-lab.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["make", "--no-print-directory", "-o", "install", "lab", f"VENV={BIN.parent}",
             f"RTC={rtc}", f"LAB_DIR={root}", f"LAB_ARGS={args}"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        server = None
        for _ in range(600):
            assert proc.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{url}api/status?token={token}", timeout=2):
                    server = Server("lab", url, token, root, log, proc)
                    break
            except OSError:
                page.wait_for_timeout(100)
        assert server is not None, log.read_text()
        said = "JupyterLab without real-time collaboration" in log.read_text()
        assert said == (rtc != "1")
        try:
            with urllib.request.urlopen(f"{url}api/collaboration/session/lab.ipynb"
                                        f"?token={token}", timeout=10) as response:
                endpoint = response.status
        except urllib.error.HTTPError as exc:
            endpoint = exc.code
        # PUT is the session request; a GET answers 405 where the handler exists, 404 where not
        assert (endpoint != 404) == (rtc == "1"), endpoint
        nb = NotebookPage(page, server, "lab.ipynb").open()
        assert nb.eval("return panel.context.model.collaborative;") == (rtc == "1")
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def _changed_dialog(page: Any) -> bool:
    """Whether JupyterLab shows its "File Changed: overwrite or revert?" dialog (it comes, if it
    does, within the save it answers; the save is awaited before this is asked)."""
    return page.locator(".jp-Dialog", has_text="File Changed").count() > 0


def test_with_collaboration_ctrl_s_asks_nothing_and_revert_reverts(
        page: Any, lab_server_rtc: Server) -> None:
    """With jupyter-collaboration the server autosaves the shared document; JupyterLab's own
    Ctrl+S compared the file's hash with the one it last knew and, when the autosave had written
    in between, asked "File Changed: overwrite or revert?". And Revert to Checkpoint restored
    the file but not the shared document (the restored file keeps the checkpoint's older mtime,
    so the server never saw it change), which the server then wrote back."""
    nb = _open(page, lab_server_rtc, "rtc-save.ipynb")
    original = nb.eval("return panel.content.model.cells.get(5).sharedModel.getSource();")
    page.evaluate("() => { window.__mechnbSaves = 0; }")
    nb.eval("panel.context.saveState.connect((_, s) => { if (s === 'completed')"
            " window.__mechnbSaves++; }); return 1;")
    for n, pause in enumerate((0, 400, 800, 1000, 1200, 1600)):  # across the autosave's beat
        nb.select(5)
        page.keyboard.press("Enter")
        page.locator(".jp-Cell.jp-mod-active .cm-content").wait_for()
        page.keyboard.press("Control+End")
        page.keyboard.type(f" Edit {n}.")
        page.keyboard.press("Escape")
        page.wait_for_timeout(pause)
        page.keyboard.press("Control+s")
        page.wait_for_function(f"() => window.__mechnbSaves >= {n + 1}", timeout=30_000)
        page.wait_for_function(panel_js("return !panel.context.model.dirty;"))
        assert not _changed_dialog(page), f"File Changed after edit {n} (pause {pause} ms)"
        assert f"Edit {n}." in (lab_server_rtc.root / "rtc-save.ipynb").read_text("utf-8")

    # Revert to Checkpoint: JupyterLab made one with the last Ctrl+S (the server keeps one);
    # an edit after it, written by the autosave, is undone in the page and on disk
    saved = nb.eval("return panel.content.model.cells.get(5).sharedModel.getSource();")
    assert saved == original + "".join(f" Edit {n}." for n in range(6))
    nb.select(5)
    page.keyboard.press("Enter")
    page.keyboard.press("Control+End")
    page.keyboard.type(" An edit to revert.")
    page.keyboard.press("Escape")
    path = lab_server_rtc.root / "rtc-save.ipynb"
    for _ in range(300):  # the server's autosave writes it (a second after the change)
        if "An edit to revert." in path.read_text("utf-8"):
            break
        page.wait_for_timeout(100)
    assert "An edit to revert." in path.read_text("utf-8")
    page.evaluate("() => { window.jupyterapp.commands.execute("
                  "'docmanager:restore-checkpoint'); }")
    page.locator(".jp-Dialog").get_by_role("button", name="Revert").click()
    page.wait_for_function(panel_js(
        "return !panel.content.model.cells.get(5).sharedModel.getSource()"
        ".includes('An edit to revert.');"), timeout=30_000)
    assert nb.eval("return panel.content.model.cells.get(5).sharedModel.getSource();") == saved
    assert not _changed_dialog(page)
    # the shared document is the reverted one: what the server writes is the checkpoint
    page.wait_for_function(panel_js("return !panel.context.model.dirty;"), timeout=30_000)
    assert "An edit to revert." not in path.read_text("utf-8")
    assert saved.split()[-1] in path.read_text("utf-8")
