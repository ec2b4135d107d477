"""How much ``%load_ext mechnb`` adds to a kernel, measured with ``python -X importtime``.

Runs a fresh interpreter that builds an IPython shell (as a kernel already has one), then loads
the extension; reports the wall time of ``%load_ext mechnb`` and the cumulative import time of
every module it pulled in, plus the first ``%mech theorem`` (which loads the templates).
"""

from __future__ import annotations

import statistics
import subprocess
import sys

LOAD_ONLY = r"""
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.run_line_magic("load_ext", "mechnb")
"""

SCRIPT = r"""
import time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
import sys
before = set(sys.modules)
t0 = time.perf_counter()
shell.run_line_magic("load_ext", "mechnb")
t1 = time.perf_counter()
from mechnb.kernel.magics import run_mech
from mechnb.kernel import insertion
insertion.insert_cells = lambda cells, shell: insertion.InsertResult("fallback", tuple(cells))
t2 = time.perf_counter()
run_mech(shell, "theorem --label thm:x")
t3 = time.perf_counter()
print("RESULT", (t1 - t0) * 1e3, (t3 - t2) * 1e3, len(set(sys.modules) - before), flush=True)
"""


def measure(repeats: int = 7) -> dict[str, float]:
    """Median over fresh processes: load_ext ms, first-template ms, import-time ms, modules."""
    load, first, imports, modules = [], [], [], []
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, "-c", SCRIPT],
                              capture_output=True, text=True, check=True)
        line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT"))
        _, a, b, n = line.split()
        load.append(float(a))
        first.append(float(b))
        modules.append(float(n))
        # importtime lines: "import time: self [us] | cumulative | imported package";
        # top-level entries (no indentation) of mechnb are what load_ext imported.
        proc = subprocess.run([sys.executable, "-X", "importtime", "-c", LOAD_ONLY],
                              capture_output=True, text=True, check=True)
        cumulative = 0
        for row in proc.stderr.splitlines():
            parts = row.split("|")
            if len(parts) == 3 and parts[2].startswith(" mechnb"):
                cumulative += int(parts[1])
        imports.append(cumulative / 1e3)
    return {"load_ext_ms": statistics.median(load),
            "first_template_ms": statistics.median(first),
            "mechnb_import_ms": statistics.median(imports),
            "new_modules": statistics.median(modules)}


def run() -> list[tuple[str, str]]:
    """Rows for the benchmark report."""
    m = measure()
    return [("%load_ext mechnb (wall, median of 7 processes)", f"{m['load_ext_ms']:.1f} ms"),
            ("  of which mechnb imports (-X importtime)", f"{m['mechnb_import_ms']:.1f} ms"),
            ("  modules newly imported", f"{m['new_modules']:.0f}"),
            ("first %mech theorem (loads templates)", f"{m['first_template_ms']:.1f} ms"),
            ("target", "<= 30 ms added by %load_ext")]


if __name__ == "__main__":
    for name, value in run():
        print(f"{name:<50} {value}")
