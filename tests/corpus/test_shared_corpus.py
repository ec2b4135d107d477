"""Real notebooks nobody here wrote: the 156 of ``../shared/corpus/notebooks`` (set-a, set-b).

Interpretability and LLM code, Chinese courses, math lectures, training logs with tqdm bars and
rich tables, R / Julia / MATLAB kernels, a Korean notebook, nbformat 3.0–4.5 (provenance in each
set's ``corpus.tsv``). They are read from there, never copied into the project; what is expected
of them is the project's own data, ``tests/fixtures/corpus/shared_known.json``.

Every notebook goes through the real ``mechnb export --pdf`` CLI, with and without
``--include-code``, with the default engine and no approval, two processes at a time. Asserted:
no traceback, the notebook's bytes unchanged, a ``.tex`` for each, no compile stopped by its time
limit, the XeLaTeX fallbacks (MECH820) exactly the listed ones, and at least 98 % PDFs (all of
them today). The prose-only mode takes every sixth notebook (the with-code mode, which runs all
of them, goes through the same text and more): about five minutes with code, under one without,
on two cores; skipped where ``../shared`` is absent.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from .corpus import REPO, CorpusNotebook, export_all

# a hang guard twice the suite's: these export a hundred notebooks or more each, and on two
# CPUs shared by four workers one took 16 minutes (7 alone)
pytestmark = [pytest.mark.corpus, pytest.mark.tex, pytest.mark.timeout(2400)]

SHARED = REPO.parent / "shared" / "corpus" / "notebooks"
KNOWN = REPO / "tests" / "fixtures" / "corpus" / "shared_known.json"
MIN_COMPILE_RATE = 0.98


def shared_notebooks() -> list[CorpusNotebook]:
    paths = sorted(SHARED.glob("set-*/nb/*.ipynb"))
    if not paths:
        pytest.skip(f"the shared corpus is not at {SHARED}")
    out = []
    for path in paths:
        data = path.read_bytes()
        out.append(CorpusNotebook(str(path.relative_to(SHARED)), data,
                                  hashlib.sha256(data).hexdigest()))
    return out


@pytest.mark.parametrize("code", [True, False], ids=["with-code", "prose-only"])
def test_shared_corpus_exports_and_compiles(tmp_path: Path, code: bool,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    nbs = shared_notebooks()
    known = json.loads(KNOWN.read_text("utf-8"))
    assert len(nbs) == known["count"], "the shared corpus changed: update shared_known.json"
    if not code:
        nbs = nbs[::6]  # a fixed sixth: the with-code mode exports every notebook
    outcomes = export_all(nbs, tmp_path, pdf=True, code=code)
    for o in outcomes:
        assert "Traceback" not in o.stderr, f"{o.key}: {o.stderr}"
        assert o.unchanged, f"{o.key}: the notebook was modified"
        assert o.tex, f"{o.key}: no .tex written: {o.stderr}"
        assert "the time limit of one compile" not in o.stderr, o.key
        assert "of CPU time, the limit" not in o.stderr, o.key
    failed = {o.key: o.stderr.strip().splitlines()[-1:] for o in outcomes if not o.pdf}
    rate = 1 - len(failed) / len(outcomes)
    with capsys.disabled():
        print(f"\nshared corpus ({'with' if code else 'without'} code): {len(outcomes)} "
              f"notebooks, {len(outcomes) - len(failed)} compiled ({rate:.1%}), "
              f"{sum(o.seconds for o in outcomes):.0f} s of CLI time")
        for key, last in sorted(failed.items()):
            print(f"  not compiled: {key}: {last}")
    unexpected = sorted(set(failed) - set(known["uncompilable"]))
    assert not unexpected, f"newly failing (add a reason to shared_known.json or fix): {unexpected}"
    fell_back = sorted(o.key for o in outcomes if "MECH820" in o.stderr)
    run = {nb.key for nb in nbs}
    expected = sorted(k for k, v in known["falls_back_to_xelatex"].items()
                      if k in run and (code or not v.get("code_only")))
    assert fell_back == expected, "list the XeLaTeX fallbacks (MECH820) in shared_known.json"
    assert rate >= MIN_COMPILE_RATE
