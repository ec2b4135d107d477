"""``%mech phrases`` in a real IPython kernel, with the test acting as the frontend of the bridge.

The test client answers the kernel's ``mechnb`` comm with ``hello`` the way the JupyterLab
extension does, then checks that the panel is sent to the side bar and that clicking a result's
"Insert" button (a real widget comm message) makes the kernel ask the frontend to insert the text.
Without the ``hello`` the magic shows the panel inline.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from mechnb.phrases.lookup import search

pytestmark = pytest.mark.kernel
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class Frontend:
    """A jupyter_client connection that records every iopub message."""

    def __init__(self, km: KernelManager) -> None:
        self.client = km.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.iopub: list[dict[str, Any]] = []

    @property
    def session(self) -> str:
        return str(self.client.session.session)

    def _drain_until_idle(self, msg_id: str) -> None:
        while True:
            try:
                msg = self.client.get_iopub_msg(timeout=60)
            except queue.Empty:
                raise AssertionError("the kernel went quiet") from None
            self.iopub.append(msg)
            if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                    and msg["content"]["execution_state"] == "idle"):
                return

    def execute(self, code: str) -> list[dict[str, Any]]:
        start = len(self.iopub)
        msg = self.client.session.msg(
            "execute_request", {"code": code, "silent": False, "store_history": False,
                                "user_expressions": {}, "allow_stdin": False,
                                "stop_on_error": True},
            metadata={"cellId": "cell-1"})
        self.client.shell_channel.send(msg)
        self._drain_until_idle(msg["header"]["msg_id"])
        return self.iopub[start:]

    def comm_msg(self, comm_id: str, data: dict[str, Any]) -> list[dict[str, Any]]:
        start = len(self.iopub)
        msg = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.client.shell_channel.send(msg)
        self._drain_until_idle(msg["header"]["msg_id"])
        return self.iopub[start:]


@pytest.fixture
def frontend(tmp_path: Path) -> Iterator[Frontend]:
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path))
    try:
        yield Frontend(km)
    finally:
        km.shutdown_kernel(now=True)


def _errors(msgs: list[dict[str, Any]]) -> list[Any]:
    return [m["content"] for m in msgs if m["msg_type"] == "error"]


def _bridge_messages(msgs: list[dict[str, Any]], comm_id: str) -> list[dict[str, Any]]:
    return [m["content"]["data"] for m in msgs
            if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id]


def test_without_the_extension_the_panel_is_shown_inline(frontend: Frontend) -> None:
    frontend.execute("%load_ext mechnb")
    msgs = frontend.execute("%mech phrases closed form --lang zh")
    assert _errors(msgs) == []
    shown = [m for m in msgs if m["msg_type"] in ("execute_result", "display_data")]
    assert shown and WIDGET_VIEW in shown[-1]["content"]["data"]
    texts = [m["content"]["data"]["state"].get("value") for m in msgs
             if m["msg_type"] == "comm_open"
             and m["content"]["data"].get("state", {}).get("_model_name") == "TextModel"]
    assert "closed form" in texts


def test_side_bar_and_insert_through_the_bridge(frontend: Frontend) -> None:
    loaded = frontend.execute("%load_ext mechnb")
    (bridge_comm,) = [m["content"]["comm_id"] for m in loaded if m["msg_type"] == "comm_open"
                      and m["content"]["target_name"] == "mechnb"]
    frontend.comm_msg(bridge_comm, {"protocol": 1, "method": "hello",
                                    "client_id": frontend.session, "version": "test",
                                    "capabilities": ["insert_text", "open_sidebar"]})

    msgs = frontend.execute("%mech phrases closed form")
    assert _errors(msgs) == []
    (opened,) = [d for d in _bridge_messages(msgs, bridge_comm) if d["method"] == "open_sidebar"]
    assert opened["session"] == frontend.session and opened["title"] == "Phrases"
    outputs = [m for m in msgs if m["msg_type"] in ("execute_result", "display_data")]
    assert "side bar" in outputs[-1]["content"]["data"]["text/plain"]
    models = {m["content"]["comm_id"]: dict(m["content"]["data"]["state"]) for m in msgs
              if m["msg_type"] == "comm_open" and m["content"]["target_name"] == "jupyter.widget"}
    for m in msgs:  # later state updates (the rows are filled after they are created)
        data = m["content"].get("data", {}) if m["msg_type"] == "comm_msg" else {}
        if data.get("method") == "update" and m["content"]["comm_id"] in models:
            models[m["content"]["comm_id"]].update(data["state"])
    assert opened["model_id"] in models  # the side bar shows a widget the kernel created
    insert_buttons = [cid for cid, state in models.items()
                      if state.get("_model_name") == "ButtonModel"
                      and state.get("description") == "Insert"]
    assert insert_buttons

    clicked = frontend.comm_msg(insert_buttons[0],
                                {"method": "custom", "content": {"event": "click"}})
    assert _errors(clicked) == []
    inserts = [d for d in _bridge_messages(clicked, bridge_comm) if d["method"] == "insert_text"]
    assert inserts == [{"protocol": 1, "method": "insert_text", "session": frontend.session,
                        "text": search("closed form")[0].en}]

    again = frontend.execute("%mech phrases research question --lang zh")
    assert _errors(again) == []
    (reopened,) = [d for d in _bridge_messages(again, bridge_comm)
                   if d["method"] == "open_sidebar"]
    assert reopened["model_id"] == opened["model_id"]  # the side-bar panel is reused
    values = [m["content"]["data"]["state"].get("value") for m in again
              if m["msg_type"] == "comm_msg"
              and m["content"]["data"].get("method") == "update"]
    assert "research question" in values
    assert any("核心问题" in str(v) for v in values)  # the rows now show Chinese text
