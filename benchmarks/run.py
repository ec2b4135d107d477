"""Run every ``benchmarks/bench_*.py`` and print one table (``make bench``).

A benchmark module defines ``run()`` returning rows ``(name, value)`` (strings), or
``run(report)`` calling ``report(name, value)`` for each row. ``python benchmarks/run.py export``
runs only the modules whose name contains ``export``.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def discover(selected: Iterable[str] = ()) -> list[Path]:
    """The benchmark modules, in name order (only those matching ``selected``, if given)."""
    names = list(selected)
    return [p for p in sorted(HERE.glob("bench_*.py"))
            if not names or any(n in p.stem for n in names)]


def load(path: Path) -> ModuleType:
    """Import a benchmark module from its file."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def collect(module: ModuleType) -> list[tuple[str, str]]:
    """Rows of one module, whichever hook style it uses."""
    rows: list[tuple[str, str]] = []
    hook: Callable[..., object] = module.run
    if inspect.signature(hook).parameters:
        hook(lambda name, value: rows.append((str(name), str(value))))
    else:
        rows += [(str(a), str(b)) for a, b in hook() or ()]  # type: ignore[attr-defined]
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks and print the table; exit code 1 if one of them crashed."""
    table: list[tuple[str, list[tuple[str, str]], float]] = []
    failed = 0
    for path in discover(argv if argv is not None else sys.argv[1:]):
        print(f"running {path.stem} …", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            rows = collect(load(path))
        except Exception:  # a broken benchmark must not hide the others' numbers
            traceback.print_exc()
            rows = [("FAILED", "see the traceback above")]
            failed += 1
        table.append((path.stem, rows, time.perf_counter() - t0))
    width = max([len(name) for _, rows, _ in table for name, _ in rows] + [40])
    print()
    for stem, rows, took in table:
        print(f"== {stem} ({took:.1f} s)")
        for name, value in rows:
            print(f"  {name:<{width}}  {value}")
        print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
