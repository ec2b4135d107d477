"""Check speed (DESIGN.md §6): ``mechnb check`` must stay within 5× of the json.load floor.

For the generated notebooks of ``generate.py`` (half markdown with math, a quarter code with
text output, a quarter with image outputs) it times, side by side:

* ``mechnb check NB --format json`` as a whole process (best of 5), cold (an empty user cache
  each time) and again on the unchanged notebook (the renderings the previous check kept),
* the floor: a Python process that only ``json.load``s the notebook (best of 5),
* the parser floor: a process that also parses every markdown cell with markdown-it-py as
  mechnb configures it (best of 5). The gate judges the TeX an export compiles (DESIGN.md §2a),
  so a check renders every markdown cell: no check process can be faster than this,
* both again without bytecode caching (no ``.pyc`` read or written) at 400, 1600, 6400 cells,
* in process: ``check(path)`` (read + all rules) and ``check(paper)`` (rules only), best of 5,
  reported per cell,
* in process, after a check: the same notebook with one markdown and one code cell edited (what
  the Jupyter server's check on save costs; the process's render cache and parsed code cells
  keep the rest).

Runs under ``benchmarks/run.py`` (``make bench``) or alone: ``python benchmarks/bench_check.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_export import NO_BYTECODE_SIZES, PARSER_FLOOR, no_bytecode_env
from generate import write

SIZES = (100, 400, 1600, 6400)
FLOOR = "import json, sys\nwith open(sys.argv[1], encoding='utf-8') as f:\n    json.load(f)\n"


TARGET = 5.0
"""``mechnb check`` within this many times the floor (DESIGN.md §6)."""


def wall(cmd: list[str], repeats: int = 5, env: dict[str, str] | None = None) -> float:
    """Best wall time of ``cmd``; exit codes 0 and 1 (findings) are both a normal run."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        took = time.perf_counter() - t0
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        best = min(best, took)
    return best


def best_of(fn: Callable[[], object], repeats: int = 5) -> float:
    """Best time of ``fn()`` in this process."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


_EDITS = [0]


def _cold(fn: Callable[[], object]) -> object:
    """``fn()`` with this process's render cache and per-cell memos emptied first."""
    from mechnb.memo import clear_all

    clear_all()
    return fn()


def _recheck_after_an_edit(nb: Path, edited: Path) -> float:
    """Seconds to check ``nb`` with one markdown and one code cell changed, in this process
    after a check of it (the server's check on save: only the changed cells are rendered and
    parsed again)."""
    import json

    from mechnb.checker import check

    check(nb)
    data = json.loads(nb.read_text("utf-8"))
    _EDITS[0] += 1
    for kind, extra in (("markdown", f"\n\nEdit {_EDITS[0]}: one more sentence."),
                        ("code", f"\nedit_{_EDITS[0]} = 1")):
        cell = next(c for c in data["cells"][len(data["cells"]) // 2:] if c["cell_type"] == kind)
        cell["source"] = "".join(cell["source"]) + extra
    edited.write_text(json.dumps(data), "utf-8")
    t0 = time.perf_counter()
    check(edited)
    return time.perf_counter() - t0


def _cache_env(folder: Path) -> dict[str, str]:
    """The environment of a ``mechnb check`` process whose user cache is ``folder``."""
    return {**os.environ, "XDG_CACHE_HOME": str(folder)}


def run(report: Callable[[str, str], None]) -> None:
    """Rows per size: process times, the ratio to the floor, in-process time per cell."""
    from mechnb.checker import check
    from mechnb.notebook import read_paper

    per_cell: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in SIZES:
            nb = write(n, root / f"bench_{n}.ipynb")
            floor = wall([sys.executable, "-c", FLOOR, str(nb)])
            parser = wall([sys.executable, "-c", PARSER_FLOOR, str(nb)])
            command = [sys.executable, "-m", "mechnb", "check", str(nb), "--format", "json"]
            # cold: every process with an empty user cache (nothing kept from an earlier check)
            whole = min(wall(command, repeats=1, env=_cache_env(root / f"cold-{n}-{i}"))
                        for i in range(5))
            warm_env = _cache_env(root / f"warm-{n}")
            wall(command, repeats=1, env=warm_env)  # the renderings `mechnb check` keeps
            kept = wall(command, env=warm_env)
            paper = read_paper(nb)
            findings = len(check(paper))
            with_read = best_of(partial(_cold, partial(check, nb)))
            rules_only = best_of(partial(_cold, partial(check, paper)))
            per_cell[n] = with_read / n
            warm = min(_recheck_after_an_edit(nb, root / f"edited_{n}.ipynb") for _ in range(5))
            report(f"check {n} cells: process / floor",
                   f"{whole * 1000:.0f} ms / {floor * 1000:.0f} ms = {whole / floor:.1f}x "
                   f"(target <= {TARGET:g}x)")
            report(f"check {n} cells: markdown-it-py parse alone / floor",
                   f"{parser * 1000:.0f} ms / {floor * 1000:.0f} ms = {parser / floor:.1f}x (a "
                   f"process that reads the notebook and parses its markdown, nothing more)")
            report(f"check {n} cells: process again, unchanged / floor",
                   f"{kept * 1000:.0f} ms / {floor * 1000:.0f} ms = {kept / floor:.1f}x (the "
                   f"renderings the previous `mechnb check` kept in the user's cache)")
            report(f"check {n} cells: in-process read+check",
                   f"{with_read * 1000:.1f} ms = {with_read / n * 1e6:.0f} us/cell "
                   f"(rules only {rules_only / n * 1e6:.0f} us/cell; {findings} findings)")
            report(f"check {n} cells: warm re-check, 2 cells edited",
                   f"{warm * 1000:.1f} ms = {warm / n * 1e6:.0f} us/cell (a long-lived process, "
                   f"e.g. the server's check on save; cold in-process: {with_read * 1000:.0f} ms)")
        for n in NO_BYTECODE_SIZES:
            env = no_bytecode_env(root / "nopyc")
            nb = root / f"bench_{n}.ipynb"
            floor = wall([sys.executable, "-c", FLOOR, str(nb)], env=env)
            whole = wall([sys.executable, "-m", "mechnb", "check", str(nb), "--format", "json"],
                         env=env)
            report(f"check {n} cells, no .pyc: process / floor",
                   f"{whole * 1000:.0f} ms / {floor * 1000:.0f} ms = {whole / floor:.1f}x "
                   f"(target <= {TARGET:g}x)")
    report("check linearity: us/cell 6400 vs 100",
           f"{per_cell[SIZES[-1]] * 1e6:.0f} vs {per_cell[SIZES[0]] * 1e6:.0f}")


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:<45} {value}"))
