"""Issue 38's server endpoints over HTTP against a real JupyterLab server: the word count, the
completion data, the argument map as JSON, and the old build folder tidied when the contents
API renames a notebook."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser.conftest import Server, start_server, stop_server
from hardening.test_server_gate import _call

DESK = Path(__file__).resolve().parents[1] / "fixtures" / "desk"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server("lab", tmp_path_factory.mktemp("jupyter-desk"))
    yield server
    stop_server(server)


def test_word_count_completions_and_map_data(server: Server) -> None:
    folder = server.root / "desk"
    folder.mkdir()
    for name in ("counted.ipynb", "refs.bib", "argmap_two_statements.ipynb"):
        shutil.copy(DESK / name, folder / name)
    status, count = _call(server, "mechnb/wordcount?path=desk/counted.ipynb")
    assert status == 200
    assert count["total"] == {"words": 51, "cjk": 13} and count["lang"] == "en"
    assert [p["title"] for p in count["parts"]][:3] == ["Title", "Abstract", "Introduction"]
    status, found = _call(server, "mechnb/completions?path=desk/counted.ipynb")
    assert status == 200
    assert [x["label"] for x in found["labels"]] == ["sec:intro", "thm:main", "app:proofs"]
    assert found["citations"][0]["title"] == "In-context Learning and Induction Heads"
    status, graph = _call(server, "mechnb/argmap?path=desk/argmap_two_statements.ipynb"
                                  "&format=json")
    assert status == 200 and {"stages", "nodes", "edges"} <= set(graph)
    assert _call(server, "mechnb/argmap?path=desk/counted.ipynb&format=png")[0] == 400
    assert _call(server, "mechnb/wordcount?path=../x.ipynb")[0] in (403, 404)


def test_renaming_a_notebook_removes_its_old_build_folder(server: Server) -> None:
    from mechnb.exporter import export

    folder = server.root / "renamed"
    folder.mkdir()
    shutil.copy(DESK / "counted.ipynb", folder / "draft.ipynb")
    shutil.copy(DESK / "refs.bib", folder / "refs.bib")
    export(folder / "draft.ipynb")
    old_build = folder / "build" / "draft"
    assert (old_build / "draft.tex").is_file()
    status, _ = _call(server, "api/contents/renamed/draft.ipynb",
                      {"path": "renamed/final.ipynb"}, "PATCH")
    assert status == 200 and (folder / "final.ipynb").is_file()
    # the server's contents event reaches the extension's listener after the reply: wait for
    # it (a bound on waiting, not a timing assertion)
    deadline = time.monotonic() + 30
    while old_build.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not old_build.exists()
    assert (folder / "refs.bib").is_file() and (folder / "final.ipynb").is_file()
