"""Export speed, whole processes from the command line (DESIGN.md §6).

For generated notebooks of 100, 400, 1600 and 6400 cells (half markdown with math, a quarter
code with text output, a quarter with image outputs) it times, side by side:

* ``mechnb export NB --no-cache`` (cold: every cell rendered) and ``mechnb export NB`` again
  (warm: the render cache of the previous export), best of 3 fresh processes each; both include
  running the checks,
* ``jupyter nbconvert --to latex NB`` (one process; only up to ``MECHNB_BENCH_NBCONVERT_MAX``
  cells, default 1600, because it takes minutes beyond that),
* the floor: a Python process that only ``json.load``s the notebook (best of 3),
* the parser floor: a process that also parses every markdown cell with markdown-it-py as
  mechnb configures it (``PARSER_FLOOR``, best of 3) — a bound no export can beat,

and prints the ratios. Then, for 400, 1600 and 6400 cells, the cold export and the floor again
without bytecode caching (``PYTHONDONTWRITEBYTECODE=1`` and an empty ``PYTHONPYCACHEPREFIX``:
every module compiled from source, as in CI and container setups that run so).
Targets: ≥ 20× faster than nbconvert, within 10× of the floor at every size, linear.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SIZES, write

BIN = Path(sys.executable).parent
FLOOR = "import json, sys\nwith open(sys.argv[1], encoding='utf-8') as f:\n    json.load(f)\n"
PARSER_FLOOR = (
    "import json, sys\n"
    "from mechnb.tex.markdown import parser\n"
    "md = parser()\n"
    "with open(sys.argv[1], encoding='utf-8') as f:\n"
    "    nb = json.load(f)\n"
    "for c in nb['cells']:\n"
    "    if c['cell_type'] == 'markdown':\n"
    "        s = c['source']\n"
    "        md.parse(s if isinstance(s, str) else ''.join(s))\n")
"""What any export or check costs at least: the floor plus markdown-it-py (the parser the
product is built on, configured as mechnb configures it) parsing every markdown cell once, and
nothing else: no rendering, no rule. The gate judges the TeX that is compiled (DESIGN.md §2a),
so a check renders every markdown cell too. Where this alone is over a target's ratio, the
target cannot be met with that parser."""


NO_BYTECODE_SIZES = (400, 1600, 6400)


def no_bytecode_env(cache_dir: Path) -> dict[str, str]:
    """The environment of a process that compiles every module from source (no ``.pyc`` read
    or written): ``PYTHONDONTWRITEBYTECODE=1`` and a ``PYTHONPYCACHEPREFIX`` with nothing in it."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(cache_dir)}


def wall(cmd: list[str], repeats: int = 3, cwd: Path | None = None,
         env: dict[str, str] | None = None) -> float:
    """Best wall time (seconds) of ``repeats`` runs of ``cmd``; raises if it fails."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
        took = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        best = min(best, took)
    return best


def measure(n: int, root: Path, nbconvert: bool) -> dict[str, float]:
    """Seconds for mechnb, the floor and (optionally) nbconvert on the ``n``-cell notebook."""
    nb = write(n, root / f"bench_{n}.ipynb")
    out: dict[str, float] = {}
    out["floor"] = wall([sys.executable, "-c", FLOOR, str(nb)])
    out["parser"] = wall([sys.executable, "-c", PARSER_FLOOR, str(nb)])
    export = [str(BIN / "mechnb"), "export", str(nb), "-o", str(root / f"out{n}"), "--force"]
    out["mechnb"] = wall([*export, "--no-cache"])  # cold: every cell rendered
    wall(export, repeats=1)  # prime the render cache
    out["warm"] = wall(export)  # re-export of an unchanged notebook
    if nbconvert and shutil.which("pandoc"):  # nbconvert --to latex converts markdown with pandoc
        out["nbconvert"] = wall([str(BIN / "jupyter"), "nbconvert", "--to", "latex", str(nb),
                                 "--output-dir", str(root / f"nbc{n}")], repeats=1)
    return out


def run(report: Callable[[str, str], None]) -> None:
    """Rows: per size, the three times and the two ratios; then the growth factor."""
    limit = int(os.environ.get("MECHNB_BENCH_NBCONVERT_MAX", "1600"))
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="mechnb-bench-") as tmp:
        for n in SIZES:
            r = results[n] = measure(n, Path(tmp), nbconvert=n <= limit)
            line = (f"mechnb {r['mechnb'] * 1e3:5.0f} ms cold ({r['mechnb'] / r['floor']:4.1f}x "
                    f"floor), {r['warm'] * 1e3:5.0f} ms warm ({r['warm'] / r['floor']:4.1f}x) | "
                    f"floor {r['floor'] * 1e3:4.0f} ms | markdown-it-py parse alone "
                    f"{r['parser'] * 1e3:4.0f} ms ({r['parser'] / r['floor']:4.1f}x floor)")
            if n <= limit and "nbconvert" not in r:
                line += " | nbconvert not run: it needs pandoc (apt-get install pandoc)"
            if "nbconvert" in r:
                line += (f" | nbconvert {r['nbconvert']:6.2f} s "
                         f"({r['nbconvert'] / r['mechnb']:5.1f}x faster)")
            report(f"export {n:>5} cells", line)
        for n in NO_BYTECODE_SIZES:
            env = no_bytecode_env(Path(tmp) / "nopyc")
            nb = Path(tmp) / f"bench_{n}.ipynb"
            floor = wall([sys.executable, "-c", FLOOR, str(nb)], env=env)
            cold = wall([str(BIN / "mechnb"), "export", str(nb), "-o", str(Path(tmp) / f"nb{n}"),
                         "--force", "--no-cache"], env=env)
            report(f"export {n:>5} cells, no .pyc",
                   f"mechnb {cold * 1e3:5.0f} ms cold ({cold / floor:4.1f}x floor) | "
                   f"floor {floor * 1e3:4.0f} ms")
    first, last = SIZES[0], SIZES[-1]
    growth = results[last]["mechnb"] / results[first]["mechnb"]
    report(f"growth {first}→{last} cells ({last // first}x cells)", f"{growth:.1f}x time (cold)")
    report("machine load average (1 min) / CPUs", f"{os.getloadavg()[0]:.1f} / {os.cpu_count()}")
    report("targets", "≥ 20x faster than nbconvert (400 cells); ≤ 10x the json.load floor at "
           "every size, with and without .pyc; “markdown-it-py parse alone” is a process that only "
           "reads the notebook and parses its markdown cells: no export can be faster")


if __name__ == "__main__":
    run(lambda name, value: print(f"{name:<40} {value}"))
