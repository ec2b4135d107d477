"""``%mech phrases`` in a real IPython kernel, with the test acting as the frontend of the bridge.

The test client answers the kernel's ``mechnb`` comm with ``hello`` the way the JupyterLab
extension does, then checks that the panel is sent to the side bar and that clicking a result's
"Insert" button (a real widget comm message) makes the kernel ask the frontend to insert the text.
Without the ``hello`` the magic shows the panel inline.
"""

from __future__ import annotations

from typing import Any

import pytest
from kernel_driver import Kernel

from mechnb.phrases.lookup import search

pytestmark = pytest.mark.kernel
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def frontend(kernel: Kernel) -> Kernel:
    """The test's own client, which plays the part of the extension."""
    return kernel


def _errors(msgs: list[dict[str, Any]]) -> list[Any]:
    return [m["content"] for m in msgs if m["msg_type"] == "error"]


def _bridge_messages(msgs: list[dict[str, Any]], comm_id: str) -> list[dict[str, Any]]:
    return [m["content"]["data"] for m in msgs
            if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id]


def test_without_the_extension_the_panel_is_shown_inline(frontend: Kernel) -> None:
    frontend.execute("%load_ext mechnb")
    msgs = frontend.execute("%mech phrases closed form --lang zh").messages
    assert _errors(msgs) == []
    shown = [m for m in msgs if m["msg_type"] in ("execute_result", "display_data")]
    assert shown and WIDGET_VIEW in shown[-1]["content"]["data"]
    texts = [m["content"]["data"]["state"].get("value") for m in msgs
             if m["msg_type"] == "comm_open"
             and m["content"]["data"].get("state", {}).get("_model_name") == "TextModel"]
    assert "closed form" in texts


def test_side_bar_and_insert_through_the_bridge(frontend: Kernel) -> None:
    loaded = frontend.execute("%load_ext mechnb").messages
    (bridge_comm,) = [m["content"]["comm_id"] for m in loaded if m["msg_type"] == "comm_open"
                      and m["content"]["target_name"] == "mechnb"]
    frontend.comm_msg(bridge_comm, {"protocol": 1, "method": "hello",
                                    "client_id": frontend.session, "version": "test",
                                    "capabilities": ["insert_text", "open_sidebar"]})

    msgs = frontend.execute("%mech phrases closed form").messages
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

    again = frontend.execute("%mech phrases research question --lang zh").messages
    assert _errors(again) == []
    (reopened,) = [d for d in _bridge_messages(again, bridge_comm)
                   if d["method"] == "open_sidebar"]
    assert reopened["model_id"] == opened["model_id"]  # the side-bar panel is reused
    values = [m["content"]["data"]["state"].get("value") for m in again
              if m["msg_type"] == "comm_msg"
              and m["content"]["data"].get("method") == "update"]
    assert "research question" in values
    assert any("核心问题" in str(v) for v in values)  # the rows now show Chinese text
