"""Running TeX so that it never outlives mechnb, never runs unbounded, and leaves no files.

Every TeX run of mechnb (latexmk for ``--pdf``, pdfLaTeX/BibTeX for the arXiv and Overleaf
checks) goes through ``run``. Three mechanisms together:

1. **Its own process group with limits.** The command starts in a new session (so the whole
   tree — latexmk, pdflatex, bibtex, or bwrap and everything in its namespace — can be killed
   at once with ``killpg``), with ``RLIMIT_CPU`` set to the compile's limit (inherited by every
   process latexmk starts; the kernel sends SIGXCPU, then SIGKILL) and, on Linux, a
   parent-death signal (``PR_SET_PDEATHSIG``: the direct child gets SIGKILL when mechnb's thread
   that started it dies).
   ``RLIMIT_FSIZE`` caps every file a TeX process writes (``$MECHNB_TEX_MAX_FILE``, 256 MB by
   default): a log bomb stops with SIGXFSZ instead of filling the disk.
2. **A wall-clock limit.** A timer kills the group after ``wall`` seconds (default
   ``DEFAULT_LIMIT`` = 120 s, or ``$MECHNB_TEX_TIMEOUT``).
3. **A watchdog for every other exit.** PDEATHSIG reaches only the direct child (latexmk's own
   children, pdflatex among them, would be orphaned and run on), and no ``finally`` runs when
   mechnb is killed with SIGKILL. So each run also starts a tiny watchdog process (``python -I
   -S``, in its own session, ignoring SIGINT/SIGTERM/SIGHUP) that holds the read end of a pipe
   only mechnb writes to. When mechnb finishes normally it writes ``done`` and the watchdog
   exits; when mechnb dies in any way the kernel closes the pipe, the watchdog reads EOF, kills
   the TeX process group with SIGKILL and removes the temporary build directory.

On macOS there is no PDEATHSIG; the watchdog, the process group, the CPU and wall limits work
the same (POSIX), but only Linux is tested here. Windows is not supported by the compile path.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ..errors import ExportError

DEFAULT_LIMIT = 120.0
"""Seconds one compile may take (wall clock), and CPU seconds each of its processes may use."""
_PR_SET_PDEATHSIG = 1

_WATCHDOG = r"""
import os, shutil, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
pgid, workdir = int(sys.argv[1]), sys.argv[2]
data = b""
while True:
    try:
        chunk = os.read(0, 64)
    except InterruptedError:
        continue
    if not chunk:
        break
    data += chunk
if b"done" not in data:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)
"""


class TexLimitError(ExportError):
    """Raised for a limit that cannot be read (``$MECHNB_TEX_TIMEOUT`` not a positive number)."""


def limit_seconds(value: float | None = None) -> float:
    """The time limit of one compile: ``value``, else ``$MECHNB_TEX_TIMEOUT``, else 120 s."""
    if value is not None:
        return float(value)
    raw = os.environ.get("MECHNB_TEX_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_LIMIT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise TexLimitError(f"MECHNB_TEX_TIMEOUT={raw!r} is not a positive number of seconds")
    return seconds


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name or "libc.so.6", use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


DEFAULT_FILE_LIMIT = 256 * 1024 * 1024
"""Bytes any one file a TeX run writes may reach (the log, the PDF, a format): a run that
writes more (a log bomb) gets SIGXFSZ and stops."""


def file_limit() -> int:
    """``$MECHNB_TEX_MAX_FILE`` bytes, else ``DEFAULT_FILE_LIMIT``."""
    raw = os.environ.get("MECHNB_TEX_MAX_FILE", "").strip()
    try:
        value = int(raw) if raw else DEFAULT_FILE_LIMIT
    except ValueError:
        raise TexLimitError(f"MECHNB_TEX_MAX_FILE={raw!r} is not a number of bytes") from None
    if value <= 0:
        raise TexLimitError(f"MECHNB_TEX_MAX_FILE={raw!r} is not a positive number of bytes")
    return value


def _child_setup(cpu: int, fsize: int) -> Callable[[], None]:
    """What runs in the child between fork and exec (no Python objects shared with threads)."""
    def setup() -> None:
        os.setsid()
        if _LIBC is not None:
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return setup


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)


def run(cmd: list[str], cwd: Path, env: dict[str, str], *, wall: float | None = None,
        on_line: Callable[[str], None] | None = None, cleanup: Path | None = None,
        cancel: threading.Event | None = None) -> int:
    """Run ``cmd`` (a TeX program, latexmk or bwrap) in ``cwd`` within the limits above.

    Each output line goes to ``on_line``. Returns the exit code: negative for a signal,
    ``-SIGKILL`` when the wall-clock limit stopped it (``timed_out`` tells), ``-SIGXCPU`` or a
    TeX failure when a process ran out of CPU time. ``cleanup`` is the directory the watchdog
    removes if mechnb dies before its own ``finally`` can. Setting ``cancel`` (from another
    thread) kills the process group at once, as the wall-clock limit does.
    """
    seconds = limit_seconds(wall)
    fsize = file_limit()
    read_end, write_end = os.pipe()
    os.set_inheritable(write_end, False)
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                encoding="utf-8", errors="replace",
                                preexec_fn=_child_setup(max(1, int(seconds) + 1), fsize))
    except OSError:
        os.close(read_end)
        os.close(write_end)
        raise
    watchdog: subprocess.Popen[bytes] | None = None
    try:
        watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(proc.pid), str(cleanup or "")],
            stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True)
    except OSError:
        pass  # no watchdog: the limits and the finally below still apply
    finally:
        os.close(read_end)
    assert proc.stdout is not None
    timer = threading.Timer(seconds, _kill_group, (proc,))
    timer.daemon = True
    timer.start()
    finished = threading.Event()
    if cancel is not None:
        def watch() -> None:
            while not finished.is_set():
                if cancel.wait(0.05):
                    _kill_group(proc)
                    return
        threading.Thread(target=watch, daemon=True).start()
    try:
        for line in proc.stdout:
            if on_line is not None:
                on_line(line)
        # whatever latexmk left running in its group; latexmk is not reaped yet, so the group
        # id cannot have been reused by someone else
        _kill_group(proc)
        proc.wait()
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        finished.set()
        timer.cancel()
        with contextlib.suppress(OSError):
            os.write(write_end, b"done")
        os.close(write_end)
        if watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                watchdog.wait(timeout=10)
    return proc.returncode


def describe_stop(returncode: int, seconds: float) -> str | None:
    """Why a run stopped, when a limit stopped it (``None`` otherwise)."""
    if returncode == -signal.SIGKILL:
        return (f"stopped after {seconds:.0f} s, the time limit of one compile; raise it with "
                "MECHNB_TEX_TIMEOUT=<seconds> (or --tex-timeout)")
    if returncode == -signal.SIGXFSZ or returncode == 128 + signal.SIGXFSZ:
        return (f"stopped: a TeX process wrote a file larger than {file_limit()} bytes, the "
                "limit of one file (a runaway log?); raise it with MECHNB_TEX_MAX_FILE=<bytes>")
    if returncode == -signal.SIGXCPU:
        return (f"stopped after {seconds:.0f} s of CPU time, the limit of one TeX process; "
                "raise it with MECHNB_TEX_TIMEOUT=<seconds> (or --tex-timeout)")
    return None
