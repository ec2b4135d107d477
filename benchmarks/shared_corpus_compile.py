"""Compile rate over the shared real-notebook corpus (``../shared/corpus/notebooks``).

Every notebook of set-a and set-b goes through the real ``mechnb export --pdf`` CLI, with and
without ``--include-code``, two processes at a time, each on a copy in a scratch folder (the
corpus is read-only). Prints the rate per mode and, for every failure, the last line of stderr.

    .venv/bin/python benchmarks/shared_corpus_compile.py [--code-only|--prose-only] [NAME ...]

Issue 23's target: every notebook that renders in JupyterLab compiles (at least 98 %).
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "corpus"))

from corpus import CorpusNotebook, Outcome, export_all  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "notebooks"


def corpus_notebooks(names: list[str]) -> list[CorpusNotebook]:
    """The shared corpus's notebooks (all, or those whose path contains one of ``names``)."""
    out = []
    for path in sorted(CORPUS.glob("set-*/nb/*.ipynb")):
        key = str(path.relative_to(CORPUS))
        if names and not any(n in key for n in names):
            continue
        data = path.read_bytes()
        out.append(CorpusNotebook(key, data, hashlib.sha256(data).hexdigest()))
    return out


def run(nbs: list[CorpusNotebook], workdir: Path, code: bool) -> list[Outcome]:
    return export_all(nbs, workdir, pdf=True, code=code)


def main(argv: list[str]) -> int:
    names = [a for a in argv if not a.startswith("--")]
    modes = [m for m, flag in ((True, "--prose-only"), (False, "--code-only")) if flag not in argv]
    nbs = corpus_notebooks(names)
    if not nbs:
        print(f"no notebooks under {CORPUS}")
        return 1
    for code in modes:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            outcomes = run(nbs, Path(tmp), code)
            took = time.perf_counter() - t0
        valid = [o for o in outcomes if o.tex or o.pdf]
        ok = [o for o in valid if o.pdf]
        label = "with code" if code else "prose only"
        print(f"{label}: {len(ok)}/{len(outcomes)} compiled "
              f"({len(ok) / len(outcomes):.1%}); {len(outcomes) - len(valid)} gave no .tex; "
              f"{took:.0f} s", flush=True)
        for o in outcomes:
            if not o.pdf:
                last = [line for line in o.stderr.strip().splitlines() if line.strip()][-3:]
                print(f"  FAIL {o.key} (rc {o.returncode}): {' | '.join(last)[:400]}")
            if not o.unchanged:
                print(f"  CHANGED {o.key}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
