"""Run the closing-loop checks in a forked child of the ``mechnb export`` process.

The child works while the parent writes the ``.tex`` and compiles the PDF (TeX runs in other
processes), so on two CPUs the checks cost an export with ``--pdf`` next to nothing in time.

Only for the ``mechnb export`` process (single-threaded, fresh). The child imports the rules
and the moves analyser, the parent never does (its imports stay those of rendering and writing).
The export renders before it forks: the child inherits that rendering (``judged.remember``), so
its TeX gate judges it instead of rendering every cell a second time, and whatever the rendering
computed and cached. Never used inside a kernel (forking a process with threads is unsafe);
``MECHNB_NO_FORK=1`` or a platform without ``os.fork`` runs the checks in-process instead, with
the same result.
"""

from __future__ import annotations

import gc
import json
import os

from ..findings import Finding
from ..notebook import Paper


class BackgroundChecks:
    """``paper_findings(paper)`` computed in a child process; ``result()`` collects it."""

    def __init__(self, paper: Paper, fork: bool = True) -> None:
        self.paper = paper
        self._pid: int | None = None
        self._fd: int | None = None
        self._result: list[Finding] | None = None
        if not fork or not hasattr(os, "fork") or os.environ.get("MECHNB_NO_FORK"):
            return
        read_fd, write_fd = os.pipe()
        # The child's garbage collector must not walk (and so copy, page by page) every object
        # it shares with the parent: they are frozen out of its reach first.
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through the pipe
            status = 1
            try:  # whatever happens, the child never returns into the parent's code
                os.close(read_fd)
                try:
                    from .api import paper_findings

                    payload = json.dumps([f.to_json() for f in paper_findings(paper)])
                    status = 0
                except BaseException:  # the parent redoes the work and reports the error
                    payload = "null"
                with os.fdopen(write_fd, "w", encoding="utf-8") as fh:
                    fh.write(payload)  # a parent that stopped (an error) reads nothing
            finally:
                os._exit(status)
        gc.unfreeze()
        os.close(write_fd)
        self._pid, self._fd = pid, read_fd

    def result(self) -> list[Finding]:
        """The findings (in-process when the child could not deliver them)."""
        if self._result is None:
            self._result = self._collect()
        return self._result

    def cancel(self) -> None:
        """Stop the child when its findings are no longer wanted (the export failed)."""
        if self._pid is not None:
            import signal

            try:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            except OSError:
                pass
            self._pid = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _collect(self) -> list[Finding]:
        if self._fd is not None and self._pid is not None:
            with os.fdopen(self._fd, "r", encoding="utf-8") as fh:
                payload = fh.read()
            _, status = os.waitpid(self._pid, 0)
            self._fd = self._pid = None
            if status == 0:
                try:
                    data = json.loads(payload)
                    if isinstance(data, list):
                        return [Finding.from_json(d) for d in data]
                except (ValueError, KeyError, TypeError):
                    pass
        from .api import paper_findings

        return paper_findings(self.paper)
