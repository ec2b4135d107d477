"""The server extension's own gate (issue 32, "Server"), over HTTP against real Jupyter servers.

- Compiling is a ``write`` action: a user who may only read the contents gets 403 for a preview
  build (and export), and still gets the preview PDF already built.
- Hidden files and folders are refused as Jupyter's contents API refuses them (404), unless
  ``ContentsManager.allow_hidden`` is set.
- A preview build or an export that holds a slot past the limit (``MECHNB_SLOT_TIMEOUT``, small
  here) is stopped, frees it and answers 504, even when it is stuck reading a FIFO.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser.conftest import Server, start_server, stop_server

NOTEBOOKS = Path(__file__).resolve().parents[1] / "fixtures" / "exporter" / "notebooks"
SLOT_LIMIT = 0.5
"""Seconds a preview or export may hold a slot on the writer's server (``MECHNB_SLOT_TIMEOUT``);
a first preview build of ``all_roles_en`` (latexmk with BibTeX) takes about 1.6 s."""

READ_ONLY_CONFIG = '''
from typing import Any

from jupyter_server.auth.authorizer import Authorizer


class ContentsReadOnly(Authorizer):
    """May read the contents (and use everything else), never write them."""

    def is_authorized(self, handler: Any, user: Any, action: str, resource: str) -> bool:
        return not (resource == "contents" and action == "write")


c = get_config()  # noqa: F821
c.ServerApp.authorizer_class = ContentsReadOnly
c.ContentsManager.allow_hidden = True
'''


def _tex() -> bool:
    return bool(shutil.which("latexmk") and shutil.which("pdflatex"))


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose user may read but not write the contents; hidden files allowed."""
    base = tmp_path_factory.mktemp("jupyter-reader")
    config = base / "reader_config.py"
    config.write_text(READ_ONLY_CONFIG)
    server = start_server("lab", base, config=config)
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def writer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with Jupyter's default authorizer and hidden files, and a small slot limit."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MECHNB_SLOT_TIMEOUT", str(SLOT_LIMIT))
        server = start_server("lab", tmp_path_factory.mktemp("jupyter-writer"))
    yield server
    stop_server(server)


def _call(server: Server, path: str, data: Any = None, method: str | None = None
          ) -> tuple[int, Any]:
    """The status and the JSON (or bytes) of a request to the server, with its token."""
    req = urllib.request.Request(
        f"{server.url}{path}", method=method or ("POST" if data is not None else "GET"),
        data=None if data is None else json.dumps(data).encode())
    req.add_header("Authorization", f"token {server.token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read()
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def _notebook(folder: Path, name: str = "paper.ipynb", source: str = "title_from_heading.ipynb"
              ) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(NOTEBOOKS / source, folder / name)
    return folder / name


# ------------------------------------------------------------------------- compiling is "write"
def test_a_reader_cannot_compile_but_gets_the_preview_already_built(
        reader: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = _notebook(reader.root, "ro.ipynb")
    before = sorted(p.name for p in reader.root.iterdir())
    assert _call(reader, "mechnb/preview", {"path": "ro.ipynb"})[0] == 403
    assert _call(reader, "mechnb/export", {"path": "ro.ipynb", "pdf": True})[0] == 403
    assert _call(reader, "mechnb/export", {"path": "ro.ipynb", "bundle": "arxiv"})[0] == 403
    assert _call(reader, "mechnb/trust", {"path": "ro.ipynb", "digests": []})[0] == 403
    assert _call(reader, "mechnb/new-paper", {"type": "dynamics"})[0] == 403
    # reading is allowed: the check runs, the preview is simply not built yet
    assert _call(reader, "mechnb/check?path=ro.ipynb")[0] == 200
    status, reply = _call(reader, "mechnb/preview?path=ro.ipynb")
    assert (status, reply["message"]) == (404, "no preview of ro.ipynb yet")
    assert sorted(p.name for p in reader.root.iterdir()) == before
    if not _tex():
        pytest.skip("TeX Live is not installed (`make tex`): the built-PDF half needs it")
    # someone who may write builds it (here: mechnb itself, as the server's user) ...
    from mechnb.exporter.preview import build, settle

    monkeypatch.setenv("XDG_CACHE_HOME", str(reader.root.parent / "xdg-cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(reader.root.parent / "xdg-data"))
    try:
        assert build(nb).status == "ok"
    finally:
        settle(60)  # the preamble format it makes in the background
    # ... and the reader gets that PDF
    status, pdf = _call(reader, "mechnb/preview?path=ro.ipynb")
    assert status == 200 and pdf.startswith(b"%PDF")


# ------------------------------------------------------------------------- hidden paths
HIDDEN = [".hidden/paper.ipynb", "visible/.paper.ipynb", "visible/../.hidden/paper.ipynb",
          "link.ipynb"]
"""A hidden folder, a hidden file, a hidden folder reached through ``..``, and a visible symlink
to a notebook in a hidden folder."""


def _plant_hidden(root: Path) -> None:
    _notebook(root / ".hidden")
    _notebook(root / "visible", ".paper.ipynb")
    with contextlib.suppress(FileExistsError):
        (root / "link.ipynb").symlink_to(root / ".hidden" / "paper.ipynb")


def test_hidden_notebooks_are_refused_like_the_contents_api(writer: Server) -> None:
    _plant_hidden(writer.root)
    # what Jupyter answers for them
    assert _call(writer, "api/contents/.hidden/paper.ipynb")[0] == 404
    assert _call(writer, "api/contents/visible/.paper.ipynb")[0] == 404
    for rel in HIDDEN:
        answers = {
            "check": _call(writer, f"mechnb/check?path={rel}"),
            "argmap": _call(writer, f"mechnb/argmap?path={rel}"),
            "trust": _call(writer, f"mechnb/trust?path={rel}"),
            "synctex": _call(writer, f"mechnb/synctex?path={rel}&cell=0"),
            "preview GET": _call(writer, f"mechnb/preview?path={rel}"),
            "preview": _call(writer, "mechnb/preview", {"path": rel}),
            "export": _call(writer, "mechnb/export", {"path": rel, "pdf": False}),
            "approve": _call(writer, "mechnb/trust", {"path": rel, "digests": []}),
        }
        assert {k: v[0] for k, v in answers.items()} == dict.fromkeys(answers, 404), rel
        assert {v[1]["message"] for v in answers.values()} == {f"no notebook at {rel}"}
    # no new paper in a hidden folder (the contents API answers 400 to creating one)
    status, reply = _call(writer, "mechnb/new-paper", {"type": "dynamics", "dir": ".hidden"})
    assert status == 400 and "hidden" in reply["message"]
    assert sorted(p.name for p in (writer.root / ".hidden").iterdir()) == ["paper.ipynb"]
    assert not (writer.root / "visible" / "build").exists()
    # outside the root stays 403, for building too
    assert _call(writer, "mechnb/preview", {"path": "../x.ipynb"})[0] == 403


def test_hidden_notebooks_are_served_when_jupyter_allows_hidden_files(reader: Server) -> None:
    _plant_hidden(reader.root)
    assert _call(reader, "api/contents/.hidden/paper.ipynb")[0] == 200
    for rel in HIDDEN:
        status, findings = _call(reader, f"mechnb/check?path={rel}")
        assert (rel, status, type(findings)) == (rel, 200, list)


# ------------------------------------------------------------------------- slots on a time limit
def _post_previews(server: Server, paths: list[str]) -> list[tuple[int, Any, float]]:
    """POST a preview of each path at once: (status, reply, seconds) of each."""
    def one(rel: str) -> tuple[int, Any, float]:
        started = time.monotonic()
        status, reply = _call(server, "mechnb/preview", {"path": rel})
        return status, reply, time.monotonic() - started

    with concurrent.futures.ThreadPoolExecutor(len(paths)) as pool:
        futures = []
        for rel in paths:
            futures.append(pool.submit(one, rel))
            time.sleep(0.1)  # in this order
        return [f.result(timeout=60) for f in futures]


def _assert_timed_out(status: int, reply: Any) -> None:
    assert status == 504, reply
    assert "took longer than 0.5 s" in reply["message"]
    assert "its slot freed" in reply["message"]


def test_previews_stuck_on_a_fifo_free_their_slots(writer: Server) -> None:
    folder = writer.root / "fifo"
    for name in ("a", "b", "c"):
        _notebook(folder, f"{name}.ipynb", "all_roles_en.ipynb")
    shutil.copyfile(NOTEBOOKS / "figure.png", folder / "figure.png")
    fifo = folder / "refs.bib"
    os.mkfifo(fifo)
    try:
        # a and b take both slots, c waits for one
        answers = _post_previews(writer, ["fifo/a.ipynb", "fifo/b.ipynb", "fifo/c.ipynb"])
    finally:  # let what still waits on the FIFO read its end
        for _ in range(20):
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                break
            time.sleep(0.05)
    for status, reply, seconds in answers:
        if status == 504:  # stuck on the FIFO (or still compiling) at the limit
            _assert_timed_out(status, reply)
        else:  # the FIFO refused unread: an answer, never a hang
            assert status in (200, 422), reply
        # c answers too: a and b gave their slots back although their reads never ended
        assert seconds < 3 * SLOT_LIMIT + 10


def test_a_build_past_the_slot_limit_is_stopped_with_504(writer: Server) -> None:
    if not _tex():
        pytest.skip("TeX Live is not installed (`make tex`)")
    folder = writer.root / "slow"
    _notebook(folder, "paper.ipynb", "all_roles_en.ipynb")
    for name in ("refs.bib", "figure.png"):
        shutil.copyfile(NOTEBOOKS / name, folder / name)
    for _ in range(2):  # the slot is free again for the next one
        [(status, reply, seconds)] = _post_previews(writer, ["slow/paper.ipynb"])
        _assert_timed_out(status, reply)
        assert seconds < SLOT_LIMIT + 10
    assert _call(writer, "mechnb/preview?path=slow/paper.ipynb")[0] == 404  # nothing half-built


def _processes_naming(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8",
                                                                                 "replace")
            if text in cmdline:
                found.append(cmdline)
    return found


def test_an_export_past_the_slot_limit_is_killed_with_504(writer: Server) -> None:
    nb = _notebook(writer.root / "slow-export", "paper.ipynb", "all_roles_en.ipynb")
    status, reply = _call(writer, "mechnb/export", {"path": "slow-export/paper.ipynb", "pdf": True})
    _assert_timed_out(status, reply)
    assert reply["message"].startswith("the export of paper.ipynb took longer")
    deadline = time.monotonic() + 1.5  # the export itself takes longer: it was killed
    while _processes_naming(str(nb)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_naming(str(nb)) == []


def test_new_paper_takes_a_scaffold_variant(writer: Server) -> None:
    """The Launcher's "Failure mode (mechanistic)" asks for ``failure/mechanistic``: the paper is
    of type failure with the mechanistic scaffold; an unknown variant is a 400 and writes
    nothing."""
    status, reply = _call(writer, "mechnb/new-paper", {"type": "failure/mechanistic",
                                                       "title": "A head that misfires"})
    assert status == 200, reply
    nb = json.loads((writer.root / reply["path"]).read_text("utf-8"))
    assert nb["metadata"]["mechnb"]["paper_type"] == "failure"
    labels = {c["metadata"].get("mechnb", {}).get("label") for c in nb["cells"]}
    assert {"asm:faithful", "exp:localize", "exp:seeds"} <= labels
    before = sorted(writer.root.glob("*.ipynb"))
    status, reply = _call(writer, "mechnb/new-paper", {"type": "failure/numeric"})
    assert status == 400 and "no variant 'numeric'" in reply["message"]
    assert sorted(writer.root.glob("*.ipynb")) == before
