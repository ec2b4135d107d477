"""The corpus: every notebook shipped in the sdists of nbformat, nbconvert, nbclient, jupytext.

The sdists are downloaded once with pip into a cache directory and reused; run as a script
(``python tests/corpus/corpus.py``) to export everything and print the numbers.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("nbformat==5.10.4", "nbconvert==7.16.6", "nbclient==0.10.2", "jupytext==1.17.3")
"""Pinned so the corpus (and its known failures) does not move under the test."""
CACHE = Path(os.environ.get("MECHNB_CORPUS_CACHE", REPO / "tests" / ".corpus-cache"))
KNOWN = REPO / "tests" / "fixtures" / "corpus" / "known.json"
MECHNB = Path(sys.executable).parent / "mechnb"


@dataclass(frozen=True)
class CorpusNotebook:
    """One distinct notebook of the corpus."""

    key: str
    """``<sdist>/<path inside it>`` (the first copy, when several are identical)."""
    data: bytes
    digest: str


@dataclass(frozen=True)
class Outcome:
    """What ``mechnb export --include-code --pdf`` did with one notebook."""

    key: str
    returncode: int
    stderr: str
    tex: bool
    pdf: bool
    unchanged: bool
    seconds: float


def download(cache: Path = CACHE) -> list[Path]:
    """The pinned sdists, downloaded with pip unless already in ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    paths = []
    for spec in PACKAGES:
        name, version = spec.split("==")
        path = cache / f"{name}-{version}.tar.gz"
        if not path.exists():
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "--no-binary", ":all:", "--dest", str(cache), spec],
                           check=True, capture_output=True, timeout=900)
        paths.append(path)
    return paths


def notebooks(sdists: list[Path]) -> list[CorpusNotebook]:
    """Every ``.ipynb`` member of the sdists, deduplicated by content, in a stable order."""
    seen: dict[str, CorpusNotebook] = {}
    for sdist in sdists:
        with tarfile.open(sdist) as tar:
            for member in sorted(tar.getmembers(), key=lambda m: m.name):
                if not (member.isfile() and member.name.endswith(".ipynb")):
                    continue
                handle = tar.extractfile(member)
                if handle is None:
                    continue
                data = handle.read()
                digest = hashlib.sha256(data).hexdigest()
                if digest not in seen:
                    seen[digest] = CorpusNotebook(member.name, data, digest)
    return sorted(seen.values(), key=lambda n: n.key)


def is_json(nb: CorpusNotebook) -> bool:
    """Whether the notebook is valid JSON (some test suites ship broken ones on purpose)."""
    try:
        json.loads(nb.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return True


def export(nb: CorpusNotebook, workdir: Path, *, pdf: bool, extra: tuple[str, ...] = (),
           code: bool = True) -> Outcome:
    """Run the real CLI on a copy of ``nb`` (same file name) inside ``workdir`` (with
    ``--include-code`` unless ``code`` is false)."""
    folder = workdir / (nb.digest[:16] + "".join(extra).replace("-", "_") + ("" if code else "_nc"))
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / Path(nb.key).name
    src.write_bytes(nb.data)
    out = folder / "out"
    start = time.perf_counter()
    proc = subprocess.run([str(MECHNB), "export", str(src), "-o", str(out),
                           *(["--include-code"] if code else []),
                           *(["--pdf"] if pdf else []), *extra],
                          capture_output=True, text=True, timeout=300, cwd=folder)
    seconds = time.perf_counter() - start
    return Outcome(nb.key, proc.returncode, proc.stderr,
                   # the output is named after a sanitised stem ("Empty Cell" → "Empty-Cell")
                   tex=any(out.glob("*.tex")), pdf=any(out.glob("*.pdf")),
                   unchanged=src.read_bytes() == nb.data, seconds=seconds)


def export_all(nbs: list[CorpusNotebook], workdir: Path, *, pdf: bool, code: bool = True,
               workers: int = 2) -> list[Outcome]:
    """``export`` over every notebook, ``workers`` processes at a time, in input order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda nb: export(nb, workdir, pdf=pdf, code=code), nbs))


def known() -> dict[str, dict[str, Any]]:
    """``known.json``: invalid-JSON notebooks and known-uncompilable ones, each with a reason."""
    data: dict[str, dict[str, Any]] = json.loads(KNOWN.read_text("utf-8"))
    return data


if __name__ == "__main__":  # pragma: no cover - measuring helper
    import tempfile

    t0 = time.perf_counter()
    all_nbs = notebooks(download())
    print(f"{len(all_nbs)} notebooks, {time.perf_counter() - t0:.1f} s to get them")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        results = export_all([n for n in all_nbs if is_json(n)] if "--json-only" in sys.argv
                             else all_nbs, Path(tmp), pdf="--pdf" in sys.argv)
        print(f"{time.perf_counter() - t0:.1f} s")
        for r in results:
            flag = ("ok " if r.pdf else "tex" if r.tex else "ERR")
            last = r.stderr.strip().splitlines()[-1:] if r.returncode else []
            print(f"{flag} {r.returncode} {r.seconds:5.1f}s {r.key} {last}")
        shutil.rmtree(tmp, ignore_errors=True)
