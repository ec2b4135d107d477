"""The kernel end of the bridge to the JupyterLab / Notebook 7 extension: a comm, target ``mechnb``.

At ``%load_ext mechnb`` the kernel registers the comm target (for frontends that connect later) and
opens a comm to every connected frontend. A frontend that has the extension answers ``hello`` with
its kernel-connection client id (the ``session`` of the messages it sends). From then on a magic run
*by that client* can ask it to insert cells, insert text at the cursor or open a side-bar widget.

Every message names the session of the request being handled (the execute_request of the magic's
cell, or the comm message of a widget click) and frontends ignore messages for other sessions, so
with real-time collaboration only the client that ran the cell acts. Messages are fire-and-forget:
the kernel cannot read replies while the cell is still running.

Only the standard-library and the ``comm`` package are imported here (ipykernel has already
imported ``comm``), so loading the bridge costs nothing measurable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__

TARGET = "mechnb"
"""Comm target name, the same in the kernel and in the frontend extension."""

PROTOCOL = 1
"""Bumped when the message format changes; the frontend ignores versions it does not know."""


@dataclass
class _Client:
    """A frontend kernel connection that answered ``hello``."""

    comm: Any
    """The comm its ``hello`` arrived on (kernel- or frontend-opened)."""
    capabilities: frozenset[str]
    """What it can do: ``insert_cells``, ``insert_text``, ``open_sidebar``, ``select_cell``."""
    version: str
    """The extension's version (the frontend package.json version)."""


@dataclass
class _Hub:
    """Bridge state of one kernel shell: the clients that answered and the comms it opened."""

    clients: dict[str, _Client] = field(default_factory=dict)
    comms: list[Any] = field(default_factory=list)
    opened_in: str | None = None
    """The msg_id of the request that opened the bridge (the cell that ran ``%load_ext``)."""


_HUBS: dict[int, _Hub] = {}


def _parent(shell: Any) -> Mapping[str, Any]:
    """The message being handled (execute_request, or comm_msg of a widget event)."""
    kernel = getattr(shell, "kernel", None)
    getter = getattr(kernel, "get_parent", None) or getattr(shell, "get_parent", None)
    parent = getter() if callable(getter) else getattr(shell, "parent_header", None)
    return parent if isinstance(parent, Mapping) else {}


def current_session(shell: Any) -> str | None:
    """The session id of the client whose request the kernel is handling, if any."""
    header = _parent(shell).get("header")
    session = header.get("session") if isinstance(header, Mapping) else None
    return session if isinstance(session, str) and session else None


def _current_cell_id(shell: Any) -> str | None:
    try:
        from .context import current_cell_id
    except ImportError:  # the lead's module has not landed in this checkout
        meta = _parent(shell).get("metadata")
        cell_id = meta.get("cellId") if isinstance(meta, Mapping) else None
        return cell_id if isinstance(cell_id, str) else None
    return current_cell_id(shell)


class Bridge:
    """The extension in the client that ran the current cell (see :func:`active_bridge`)."""

    def __init__(self, client: _Client, session: str) -> None:
        self._client = client
        self.session = session
        """The client's session id; every message carries it."""

    @property
    def capabilities(self) -> frozenset[str]:
        """What the frontend said it can do."""
        return self._client.capabilities

    def _send(self, method: str, **payload: Any) -> bool:
        if method not in self._client.capabilities:
            return False
        try:
            self._client.comm.send({"protocol": PROTOCOL, "method": method,
                                    "session": self.session, **payload})
        except Exception:  # a closed comm or a dead socket: the caller falls back
            return False
        return True

    def insert_cells(self, cells: Sequence[Mapping[str, Any]], after_cell_id: str | None) -> bool:
        """Insert ``cells`` (``CellSpec.to_message()`` dicts) directly below ``after_cell_id``.

        The frontend falls back to the active cell when that id is unknown or ``None``.
        """
        return self._send("insert_cells", cells=[dict(c) for c in cells],
                          after_cell_id=after_cell_id)

    def insert_text(self, text: str) -> bool:
        """Insert ``text`` at the cursor of the active cell's editor."""
        return self._send("insert_text", text=text)

    def open_sidebar(self, widget: Any, title: str = "mechnb") -> bool:
        """Show the ipywidgets ``widget`` in the right side bar (one side-bar slot per title)."""
        model_id = getattr(widget, "model_id", None)
        if not isinstance(model_id, str):
            return False
        return self._send("open_sidebar", model_id=model_id, title=title)

    def select_cell(self, cell_id: str) -> bool:
        """Make the cell with nbformat id ``cell_id`` the active cell and scroll to it."""
        return self._send("select_cell", cell_id=cell_id)


def _on_hello(hub: _Hub, comm: Any, msg: Mapping[str, Any]) -> None:
    content = msg.get("content")
    data = content.get("data") if isinstance(content, Mapping) else None
    if not isinstance(data, Mapping) or data.get("method") != "hello":
        return
    header = msg.get("header")
    session = header.get("session") if isinstance(header, Mapping) else None
    if not isinstance(session, str) or not session:
        session = data.get("client_id")
    if not isinstance(session, str) or not session:
        return
    caps = data.get("capabilities")
    hub.clients[session] = _Client(
        comm=comm,
        capabilities=frozenset(c for c in caps if isinstance(c, str)) if isinstance(caps, list)
        else frozenset(),
        version=str(data.get("version", "")),
    )


def _wire(hub: _Hub, comm: Any) -> None:
    comm.on_msg(lambda msg: _on_hello(hub, comm, msg))

    def closed(_msg: Any) -> None:
        for session in [s for s, c in hub.clients.items() if c.comm is comm]:
            del hub.clients[session]

    comm.on_close(closed)


def install(shell: Any) -> bool:
    """Set the bridge up in an IPython kernel (idempotent); ``False`` outside a Jupyter kernel.

    Registers the ``mechnb`` comm target (frontends that connect later open a comm to it) and
    opens a comm to the frontends connected now; those with the extension answer ``hello``.
    """
    if getattr(shell, "kernel", None) is None:
        return False
    key = id(shell)
    if key in _HUBS:
        return True
    try:
        import comm as comm_pkg

        manager = comm_pkg.get_comm_manager()
        hub = _Hub()

        def opened_by_frontend(comm: Any, msg: dict[str, Any]) -> None:
            _wire(hub, comm)
            _on_hello(hub, comm, msg)

        manager.register_target(TARGET, opened_by_frontend)
        opened = comm_pkg.create_comm(target_name=TARGET,
                                      data={"protocol": PROTOCOL, "method": "connect",
                                            "version": __version__})
    except Exception:  # no usable comm machinery: every insertion falls back
        return False
    _wire(hub, opened)
    hub.comms.append(opened)
    hub.opened_in = _msg_id(shell)
    _HUBS[key] = hub
    return True


def _msg_id(shell: Any) -> str | None:
    header = _parent(shell).get("header")
    msg_id = header.get("msg_id") if isinstance(header, Mapping) else None
    return msg_id if isinstance(msg_id, str) and msg_id else None


def awaiting_answer(shell: Any) -> bool:
    """True in the cell that ran ``%load_ext mechnb`` while no frontend has answered yet: the
    kernel cannot read the extension's ``hello`` until the cell ends (the one-cell Quickstart).
    A frontend with the extension then adopts the cells shown as output (``insert_when_done``)."""
    hub = _HUBS.get(id(shell))
    return (hub is not None and not hub.clients and hub.opened_in is not None
            and hub.opened_in == _msg_id(shell))


def uninstall(shell: Any) -> None:
    """Close the bridge's comms (``%unload_ext mechnb``)."""
    hub = _HUBS.pop(id(shell), None)
    if hub is None:
        return
    for comm in hub.comms:
        with contextlib.suppress(Exception):  # already closed by the frontend
            comm.close()
    with contextlib.suppress(Exception):  # nothing registered
        import comm as comm_pkg

        comm_pkg.get_comm_manager().targets.pop(TARGET, None)


def active_bridge(shell: Any) -> Bridge | None:
    """The bridge to the client that sent the current request, if its extension said ``hello``.

    ``None`` (so the caller falls back) outside a kernel, before the frontend answered (the cell
    that ran ``%load_ext``), and for clients without the extension.
    """
    hub = _HUBS.get(id(shell))
    if hub is None:
        install(shell)
        return None
    session = current_session(shell)
    client = hub.clients.get(session) if session else None
    return Bridge(client, session) if client is not None and session is not None else None


def insert_below_current(shell: Any, cells: Sequence[Mapping[str, Any]]) -> bool:
    """Insert ``cells`` below the running cell through the bridge; ``False`` means fall back."""
    bridge = active_bridge(shell)
    return bridge is not None and bridge.insert_cells(cells, _current_cell_id(shell))


on_load = install
"""Called by ``mechnb.magics.register`` at ``%load_ext mechnb``."""

on_unload = uninstall
"""For ``%unload_ext mechnb``."""
