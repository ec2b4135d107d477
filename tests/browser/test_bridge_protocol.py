"""The bridge protocol against a real IPython kernel, with jupyter_client standing in for browsers.

Two clients share one kernel (as in real-time collaboration). Only the client that ran the cell,
and only if its extension said ``hello``, gets the cells; the other sees the fallback output.
"""

from __future__ import annotations

import os
import queue
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.kernel


@pytest.fixture
def kernel(tmp_path: Any) -> Iterator[Any]:
    from jupyter_client.manager import start_new_kernel
    from jupyter_client.session import Session

    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}
    km, client_a = start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path))
    # a second browser tab: its own session id (and so its own socket identity)
    client_b = km.client(session=Session(key=km.session.key,
                                         signature_scheme=km.session.signature_scheme))
    assert client_b.session.session != client_a.session.session
    client_b.start_channels()
    client_b.wait_for_ready(timeout=30)
    yield km, client_a, client_b
    client_b.stop_channels()
    client_a.stop_channels()
    km.shutdown_kernel(now=True)


def _run(client: Any, code: str, cell_id: str) -> list[dict[str, Any]]:
    """Execute ``code`` as JupyterLab does (``cellId`` in the metadata); return its iopub msgs."""
    msg = client.session.msg("execute_request", {
        "code": code, "silent": False, "store_history": True, "user_expressions": {},
        "allow_stdin": False, "stop_on_error": True}, metadata={"cellId": cell_id})
    client.shell_channel.send(msg)
    msg_id = msg["header"]["msg_id"]
    out = []
    while True:
        reply = client.get_iopub_msg(timeout=30)
        if reply["parent_header"].get("msg_id") != msg_id:
            continue
        out.append(reply)
        if reply["msg_type"] == "status" and reply["content"]["execution_state"] == "idle":
            return out


def _drain(client: Any) -> None:
    while True:
        try:
            client.get_iopub_msg(timeout=0.3)
        except queue.Empty:
            return


def _hello(client: Any, comm_id: str) -> None:
    """Answer the kernel's comm like the extension does."""
    client.shell_channel.send(client.session.msg("comm_msg", {
        "comm_id": comm_id, "data": {"protocol": 1, "method": "hello",
                                     "client_id": client.session.session, "version": "test",
                                     "capabilities": ["insert_cells", "insert_text"]}}))


def test_only_the_client_that_ran_the_cell_gets_the_cells(kernel: Any) -> None:
    _km, a, b = kernel
    msgs = _run(a, "%load_ext mechnb", "cell-load")
    opens = [m for m in msgs if m["msg_type"] == "comm_open"]
    assert [m["content"]["target_name"] for m in opens] == ["mechnb"]
    _drain(b)
    _hello(a, opens[0]["content"]["comm_id"])  # a has the extension, b has not

    msgs = _run(a, "%mech theorem --label thm:z", "cell-magic-a")
    inserts = [m["content"]["data"] for m in msgs if m["msg_type"] == "comm_msg"]
    assert len(inserts) == 1
    data = inserts[0]
    assert data["method"] == "insert_cells"
    assert data["session"] == a.session.session
    assert data["after_cell_id"] == "cell-magic-a"
    roles = [c["metadata"]["mechnb"]["role"] for c in data["cells"]]
    assert roles[:2] == ["theorem", "interpretation"]
    assert data["cells"][0]["metadata"]["mechnb"]["label"] == "thm:z"
    # a sees one line saying what was inserted, never the fallback (the cells as output)
    shown_a = [m["content"] for m in msgs if m["msg_type"] == "display_data"]
    assert [d["data"].keys() for d in shown_a] == [{"text/plain"}], "no fallback for a"
    assert "2 cell(s) inserted below" in shown_a[0]["data"]["text/plain"]

    _drain(a)
    msgs = _run(b, "%mech theorem --label thm:w", "cell-magic-b")
    assert not [m for m in msgs if m["msg_type"] == "comm_msg"], "b never said hello"
    shown = [m for m in msgs if m["msg_type"] == "display_data"]
    assert shown and "thm:w" in shown[0]["content"]["data"]["text/plain"]


def test_frontend_opened_comm_after_reload(kernel: Any) -> None:
    """A client connecting after ``%load_ext`` opens the comm itself and then gets its cells."""
    _km, a, b = kernel
    _run(a, "%load_ext mechnb", "cell-load")
    _drain(b)
    b.shell_channel.send(b.session.msg("comm_open", {
        "comm_id": "b-comm", "target_name": "mechnb",
        "data": {"protocol": 1, "method": "hello", "client_id": b.session.session,
                 "version": "test", "capabilities": ["insert_cells"]}}))
    msgs = _run(b, "%mech lemma --label lem:q", "cell-b")
    inserts = [m for m in msgs if m["msg_type"] == "comm_msg"]
    assert len(inserts) == 1
    assert inserts[0]["content"]["comm_id"] == "b-comm"
    assert inserts[0]["content"]["data"]["session"] == b.session.session
    assert inserts[0]["content"]["data"]["cells"][0]["metadata"]["mechnb"]["label"] == "lem:q"
