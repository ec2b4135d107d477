"""Drive a real IPython kernel (jupyter_client) the way JupyterLab does."""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any

from jupyter_client.manager import KernelManager


@dataclass
class Execution:
    """What one execute_request produced."""

    reply: dict[str, Any]
    outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def payload(self) -> list[dict[str, Any]]:
        return list(self.reply["content"].get("payload", []))

    @property
    def displays(self) -> list[dict[str, Any]]:
        return [o for o in self.outputs if o["msg_type"] in ("display_data", "execute_result")]


class Kernel:
    """A started kernel with an ``execute`` that sends ``cellId`` like JupyterLab."""

    def __init__(self, km: KernelManager) -> None:
        self.km = km
        self.client = km.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def execute(self, code: str, cell_id: str = "cell-under-test") -> Execution:
        content = {"code": code, "silent": False, "store_history": True,
                   "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
        msg = self.client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        self.client.shell_channel.send(msg)
        msg_id = msg["header"]["msg_id"]
        outputs: list[dict[str, Any]] = []
        while True:
            try:
                out = self.client.get_iopub_msg(timeout=60)
            except queue.Empty:
                raise AssertionError(f"kernel gave no output for {code!r}") from None
            if out["parent_header"].get("msg_id") != msg_id:
                continue
            kind = out["msg_type"]
            if kind == "status" and out["content"]["execution_state"] == "idle":
                break
            if kind in ("display_data", "execute_result", "stream", "error"):
                outputs.append({"msg_type": kind, **out["content"]})
        while True:
            reply = self.client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                return Execution(reply=reply, outputs=outputs)


