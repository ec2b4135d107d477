"""Drive a real IPython kernel (jupyter_client) the way JupyterLab does."""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any

from jupyter_client.manager import KernelManager

OUTPUT_TYPES = ("display_data", "execute_result", "stream", "error")


@dataclass
class Execution:
    """What one execute_request produced."""

    reply: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Every iopub message until the kernel went idle, as received."""
    msg_id: str = ""

    @property
    def outputs(self) -> list[dict[str, Any]]:
        """The request's outputs, as ``{"msg_type": …, **content}``."""
        return [{"msg_type": m["msg_type"], **m["content"]} for m in self.messages
                if m["parent_header"].get("msg_id") == self.msg_id
                and m["msg_type"] in OUTPUT_TYPES]

    @property
    def payload(self) -> list[dict[str, Any]]:
        return list(self.reply["content"].get("payload", []))

    @property
    def displays(self) -> list[dict[str, Any]]:
        return [o for o in self.outputs if o["msg_type"] in ("display_data", "execute_result")]


class Kernel:
    """A started kernel; ``execute`` sends ``cellId`` like JupyterLab, and the test can answer
    the kernel's comms the way the extension does (``comm_msg``)."""

    def __init__(self, km: KernelManager) -> None:
        self.km = km
        self.client = km.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    @property
    def session(self) -> str:
        """This client's session id (what the extension sends as its ``client_id``)."""
        return str(self.client.session.session)

    def _send_until_idle(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        self.client.shell_channel.send(msg)
        msg_id = msg["header"]["msg_id"]
        messages: list[dict[str, Any]] = []
        while True:
            try:
                out = self.client.get_iopub_msg(timeout=60)
            except queue.Empty:
                raise AssertionError(f"the kernel went quiet after {msg['msg_type']}") from None
            messages.append(out)
            if (out["parent_header"].get("msg_id") == msg_id and out["msg_type"] == "status"
                    and out["content"]["execution_state"] == "idle"):
                return messages

    def execute(self, code: str, cell_id: str = "cell-under-test") -> Execution:
        content = {"code": code, "silent": False, "store_history": True,
                   "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
        msg = self.client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        messages = self._send_until_idle(msg)
        msg_id = msg["header"]["msg_id"]
        while True:
            reply = self.client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                return Execution(reply=reply, messages=messages, msg_id=msg_id)

    def comm_msg(self, comm_id: str, data: dict[str, Any]) -> list[dict[str, Any]]:
        """Send a comm message as the frontend; the iopub messages until the kernel is idle."""
        msg = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        return self._send_until_idle(msg)
