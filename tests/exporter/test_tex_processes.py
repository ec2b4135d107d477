"""TeX processes never outlive mechnb, never run unbounded, leave no temporary files, and the
server runs at most two exports at once (issue 21, process hygiene).

The endless compile is a raw LaTeX cell with ``\\loop\\iftrue\\repeat`` (exported with
``--trust``: the user vouches for it); the processes are found by the unique name of the
notebook in their command line, through ``/proc`` (Linux).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from tornado import web

from mechnb.exporter.processes import describe_stop, limit_seconds
from mechnb.serverext import ExportQueue

from .conftest import needs_tex

LINUX = sys.platform.startswith("linux")
pytestmark = [pytest.mark.tex, needs_tex(),
              pytest.mark.skipif(not LINUX, reason="reads /proc (Linux)")]

TEX_NAMES = ("latexmk", "pdflatex", "xelatex", "lualatex", "bwrap", "perl")


def _notebook(folder: Path, raw: str) -> Path:
    stem = "endless_" + uuid.uuid4().hex[:10]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "Loop"}},
          "cells": [{"cell_type": "markdown", "id": "m", "metadata": {}, "source": "Text."},
                    {"cell_type": "raw", "id": "r", "metadata": {"format": "text/latex"},
                     "source": raw}]}
    path = folder / f"{stem}.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    return path


def _tex_processes(stem: str) -> list[int]:
    """Processes of TeX (or latexmk, bwrap) whose command line names ``stem``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(stem.encode() in a for a in argv) and any(
                n.encode() in Path(argv[0].decode("utf-8", "replace")).name.encode()
                for n in TEX_NAMES):
            found.append(int(entry.name))
    return found


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "TMPDIR": str(tmp), **extra}


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_kill_9_of_export_leaves_no_tex_process(tmp_path: Path, sandbox: str) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = _notebook(tmp_path, "\\loop\\iftrue\\repeat")
    stem = path.stem
    proc = subprocess.Popen(
        [sys.executable, "-m", "mechnb", "export", str(path), "--pdf", "--engine", "pdflatex",
         "--trust"], env=_env(tmp, MECHNB_SANDBOX=sandbox), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        assert _wait_for(lambda: any("pdflatex" in (Path(f"/proc/{p}/cmdline").read_bytes()
                                                    .split(b"\0")[0].decode())
                                     for p in _tex_processes(stem)), 60), \
            "pdflatex never started"
        running = _tex_processes(stem)
        # the CPU limit is on every TeX process (RLIMIT_CPU, inherited through latexmk)
        limits = Path(f"/proc/{running[-1]}/limits").read_text()
        cpu = next(line for line in limits.splitlines() if line.startswith("Max cpu time"))
        assert cpu.split()[3] == str(int(limit_seconds()) + 1), cpu
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert _wait_for(lambda: not _tex_processes(stem), 30), _tex_processes(stem)
        # the watchdog also removed the build folder TeX was writing in
        assert _wait_for(lambda: not list(tmp.glob("mechnb-tex-*")), 30), list(tmp.iterdir())
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _tex_processes(stem):
            os.kill(pid, signal.SIGKILL)


def test_the_time_limit_stops_an_endless_compile(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = _notebook(tmp_path, "\\loop\\iftrue\\repeat")
    done = subprocess.run(
        [sys.executable, "-m", "mechnb", "export", str(path), "--pdf", "--engine", "pdflatex",
         "--trust"], env=_env(tmp, MECHNB_TEX_TIMEOUT="4"), capture_output=True, text=True,
        timeout=300)
    assert "stopped after 4 s, the time limit of one compile" in done.stderr, done.stderr
    assert "MECHNB_TEX_TIMEOUT" in done.stderr
    assert not _tex_processes(path.stem)
    assert list(tmp.glob("mechnb-tex-*")) == []


@pytest.mark.parametrize("raw", ["\\textbf{fine}", "\\undefinedmacro"], ids=["ok", "tex-error"])
def test_no_temporary_folder_is_left_behind(tmp_path: Path, raw: str) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = _notebook(tmp_path, raw)
    done = subprocess.run(
        [sys.executable, "-m", "mechnb", "export", str(path), "--pdf", "--engine", "pdflatex",
         "--trust"], env=_env(tmp), capture_output=True, text=True, timeout=300)
    assert (done.returncode == 0) is (raw == "\\textbf{fine}"), done.stderr
    assert list(tmp.glob("mechnb-tex-*")) == []


def test_the_limit_can_be_set_on_the_command_line(tmp_path: Path) -> None:
    path = _notebook(tmp_path, "\\loop\\iftrue\\repeat")
    done = subprocess.run(
        [sys.executable, "-m", "mechnb", "export", str(path), "--pdf", "--engine", "pdflatex",
         "--trust", "--tex-timeout", "3"], capture_output=True, text=True, timeout=300)
    assert "stopped after 3 s, the time limit of one compile" in done.stderr, done.stderr


def test_a_bad_limit_is_a_clear_error(tmp_path: Path) -> None:
    path = _notebook(tmp_path, "\\textbf{fine}")
    done = subprocess.run(
        [sys.executable, "-m", "mechnb", "export", str(path), "--pdf", "--trust"],
        env={**os.environ, "MECHNB_TEX_TIMEOUT": "soon"}, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip() == ("mechnb export: MECHNB_TEX_TIMEOUT='soon' is not a positive "
                                   "number of seconds")


def test_stop_reasons_name_the_limit() -> None:
    assert describe_stop(-signal.SIGKILL, 120).startswith("stopped after 120 s")
    assert "CPU time" in (describe_stop(-signal.SIGXCPU, 120) or "")
    assert describe_stop(1, 120) is None


def test_the_server_runs_two_exports_queues_four_and_refuses_the_rest() -> None:
    async def scenario() -> tuple[list[int], int, list[int]]:
        queue = ExportQueue(slots=2, queue=4)
        started: list[int] = []

        async def export(n: int) -> None:
            position = await queue.enter()
            started.append(position)
            await asyncio.sleep(0.05)
            queue.leave()

        tasks = [asyncio.create_task(export(n)) for n in range(6)]
        await asyncio.sleep(0)  # all six have arrived: two run, four wait
        waiting = len(queue.waiting)
        with pytest.raises(web.HTTPError) as busy:
            await queue.enter()
        assert busy.value.status_code == 503 and "busy" in (busy.value.log_message or "")
        await asyncio.gather(*tasks)
        assert queue.running == 0 and queue.waiting == []
        return started, waiting, [t for t in started]

    # in a thread of its own: other tests of the session may leave an event loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        started, waiting, _ = pool.submit(asyncio.run, scenario()).result(timeout=60)
    assert waiting == 4
    assert sorted(started) == [0, 0, 1, 2, 3, 4]  # the position each was told on arrival
