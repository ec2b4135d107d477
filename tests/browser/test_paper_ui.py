"""Starting and setting up a paper from the UI (issue 22): the Launcher card and File › New entry
of ``mechnb:new-paper``, and the ``mechnb:paper-settings`` dialog, in a real JupyterLab."""

from __future__ import annotations

import json
import os
from typing import Any

from .conftest import Server
from .notebook_page import NotebookPage


def _lab(page: Any, server: Server) -> None:
    workspace = "t" + os.urandom(4).hex()
    page.goto(f"{server.url}lab/workspaces/{workspace}?reset&token={server.token}")
    page.locator(".jp-Launcher").first.wait_for(timeout=60_000)


def test_new_paper_from_the_launcher(page: Any, lab_server: Server) -> None:
    before = set(lab_server.root.glob("*.ipynb"))
    _lab(page, lab_server)
    page.locator(".jp-LauncherCard", has_text="Mechanism paper").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator("select[name=type]").select_option("failure")
    dialog.locator("select[name=lang]").select_option("zh")
    dialog.locator("input[name=title]").fill("注意力头何时失效")
    dialog.get_by_role("button", name="Create").click()
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=60_000)
    created = set(lab_server.root.glob("*.ipynb")) - before
    assert [p.name for p in created] == ["注意力头何时失效.ipynb"]
    nb = json.loads(created.pop().read_text("utf-8"))
    meta = nb["metadata"]["mechnb"]
    assert (meta["paper_type"], meta["lang"]) == ("failure", "zh")
    assert meta["title"] == "注意力头何时失效"
    roles = {c["metadata"].get("mechnb", {}).get("role") for c in nb["cells"]}
    assert {"abstract", "gap", "lens", "limitations"} <= roles
    # the same title again: a second notebook, the first one untouched
    first = (lab_server.root / "注意力头何时失效.ipynb").read_bytes()
    path = page.evaluate("() => window.jupyterapp.commands.execute('mechnb:new-paper', "
                         "{type: 'failure', lang: 'zh', title: '注意力头何时失效'})")
    assert path == "注意力头何时失效-2.ipynb"
    assert (lab_server.root / "注意力头何时失效.ipynb").read_bytes() == first


def test_new_paper_is_in_file_new(page: Any, lab_server: Server) -> None:
    _lab(page, lab_server)
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="New").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text="Mechanism Paper…").wait_for()
    page.keyboard.press("Escape")


def test_paper_settings_write_the_metadata(page: Any, lab_server: Server) -> None:
    lab_server.copy_fixture("theorem_magic.ipynb", "settings.ipynb")
    nb = NotebookPage(page, lab_server, "settings.ipynb").open()
    open_settings = ("() => { window.jupyterapp.commands.execute('mechnb:paper-settings'); }")
    page.evaluate(open_settings)  # not awaited: the command resolves when the dialog closes
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input[name=title]").fill("Induction heads form in order")
    dialog.locator("textarea[name=authors]").fill(
        "Ada Example; University of Somewhere; ada@example.org\nBo Sample")
    dialog.locator("input[name=bibliography]").fill("refs.bib")
    dialog.locator("select[name=engine]").select_option("xelatex")
    dialog.get_by_role("button", name="Apply").click()
    meta = nb.save()["metadata"]["mechnb"]
    assert meta["title"] == "Induction heads form in order"
    assert meta["authors"] == [{"name": "Ada Example", "affiliation": "University of Somewhere",
                                "email": "ada@example.org"}, "Bo Sample"]
    assert (meta["bibliography"], meta["engine"]) == ("refs.bib", "xelatex")
    # opened again, the dialog shows what is set; emptying a field removes it
    page.evaluate(open_settings)
    assert dialog.locator("input[name=title]").input_value() == "Induction heads form in order"
    dialog.locator("select[name=engine]").select_option("")
    dialog.get_by_role("button", name="Apply").click()
    assert "engine" not in nb.save()["metadata"]["mechnb"]


def test_new_paper_is_in_notebook7_tree_new_menu(page: Any, notebook_server: Server) -> None:
    """Notebook 7's file tree: New › Mechanism Paper… creates the paper in the folder shown."""
    (notebook_server.root / "drafts").mkdir(exist_ok=True)
    page.goto(f"{notebook_server.url}tree/drafts?token={notebook_server.token}")
    # the tree shows the folder once its browser has gone there; New before that creates
    # in the root, as Notebook 7's own "Notebook" entries do (CI once clicked too early)
    page.locator(".jp-BreadCrumbs", has_text="drafts").wait_for()
    page.locator(".jp-DropdownMenu .lm-MenuBar-itemLabel", has_text="New").click()
    entries = page.locator(".lm-Menu-itemLabel").all_inner_texts()
    assert "Mechanism Paper…" in entries, entries
    # after the kernels' Notebook entries, before Terminal / Console / files
    assert entries.index("Mechanism Paper…") < entries.index("New Folder"), entries
    with page.context.expect_page() as opened:  # Notebook 7 opens documents in a new tab
        page.locator(".lm-Menu-itemLabel", has_text="Mechanism Paper…").click()
        dialog = page.locator(".jp-Dialog")
        dialog.locator("select[name=type]").select_option("dynamics")
        dialog.locator("input[name=title]").fill("Tree menu paper")
        dialog.get_by_role("button", name="Create").click()
    opened.value.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    created = notebook_server.root / "drafts" / "Tree-menu-paper.ipynb"  # in the folder shown
    nb = json.loads(created.read_text("utf-8"))
    assert nb["metadata"]["mechnb"]["paper_type"] == "dynamics"
    opened.value.close()
