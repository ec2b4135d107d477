"""The paper preview: the saved notebook's PDF, rebuilt fast, with SyncTeX both ways.

``build(notebook)`` renders the notebook as ``mechnb export`` does, lets the TeX gate decide
(DESIGN §2a: refused TeX never compiles, needs-review TeX only once approved with ``mechnb
trust``), and compiles in a private temporary folder — in the bubblewrap sandbox where one works,
with the limits of ``processes.run`` — with SyncTeX on. What the next build and the SyncTeX
queries need (the PDF, ``.aux``, ``.bbl``, ``.out``, ``.synctex.gz``, log and ``.tex``) is kept
in this user's cache, ``$XDG_CACHE_HOME/mechnb/preview/<hash of the notebook's path>/`` (mode
0700), every file's hash sealed in ``state.json`` like the other records; nothing is written
beside the notebook, so the security model of ``export --pdf`` is unchanged.

**Fast rebuilds.** When an earlier build of the same notebook with the same engine, template
files and bibliography left its ``.aux``/``.bbl``, they are copied into the new build folder
and the engine runs once. If that pass writes the same ``.aux`` (and ``.out``) back, labels,
page numbers and citations did not change and the PDF is final; otherwise latexmk runs the full
cycle (BibTeX, reruns) in the same folder.

**SyncTeX.** ``source_at`` turns a point of a PDF page into the notebook cell (by the cell-id
markers of the ``.tex``, so moved cells are found) and, where the text allows, the line of that
cell; ``place_of`` turns a cell into a page and a box. Both call TeX Live's ``synctex`` program
on the cached build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import files
from ..errors import ExportError
from ..findings import Finding, Severity
from ..notebook import Paper, read_paper
from ..tex.markers import MARKER_RE, line_cells, resolve, token_index
from . import passes
from .document import safe_stem
from .pdf import (
    COMMON_ARGS,
    ENGINES,
    _read_regular,
    _write_private,
    missing_glyphs,
    parse_log,
)

KEPT = (".aux", ".bbl", ".out")
"""Files a build leaves for the next one (read back by TeX)."""
STORED = (".pdf", ".log", ".tex", ".synctex.gz", *KEPT)
"""Everything a build keeps in the cache."""
_AFFECTS_PASSES = (".bib", ".bst", ".cls", ".sty", ".bbx", ".cbx")
"""Resources whose change needs the full cycle (a new ``.bbl``, other macros)."""
SYNCTEX_TIMEOUT = 20.0
_FMT = ".fmt"

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@dataclass
class PreviewResult:
    """What one preview build did."""

    status: str
    """``ok`` (a new PDF), ``failed`` (TeX stopped: the PDF is the last good one, if any),
    ``blocked`` (the TeX gate stopped the build), ``cancelled`` (a newer build took over)."""
    findings: list[Finding] = field(default_factory=list)
    passes: str = ""
    """``one``, ``two`` or ``three`` (TeX passes on the previous ``.aux`` until it stood still),
    ``full`` (latexmk) or empty."""
    seconds: float = 0.0
    engine: str = ""
    message: str = ""
    version: str | None = None
    """SHA-256 of the PDF now in the cache (``None``: no PDF yet)."""
    built_at: float | None = None
    """When that PDF was built (seconds since the epoch)."""

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "findings": [f.to_json() for f in self.findings],
                "passes": self.passes, "seconds": round(self.seconds, 3), "engine": self.engine,
                "message": self.message, "version": self.version, "built_at": self.built_at}


def state_dir(notebook: str | os.PathLike[str]) -> Path:
    """The cache folder of ``notebook``'s preview (created, mode 0700)."""
    return files.notebook_cache_dir("preview", notebook)


def _lock(folder: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(folder), threading.Lock())


# ------------------------------------------------------------------------------- the record
def _sealed_bytes(state: Mapping[str, Any]) -> bytes:
    return json.dumps({k: v for k, v in state.items() if k != "seal"},
                      sort_keys=True).encode("utf-8")


def load_state(folder: Path) -> dict[str, Any] | None:
    """The sealed record of the last build in ``folder`` (``None``: none, or not this user's)."""
    data = _read_regular(folder / "state.json")
    if data is None:
        return None
    try:
        state = json.loads(data)
    except ValueError:
        return None
    if not isinstance(state, dict) or not files.is_sealed(_sealed_bytes(state),
                                                          state.get("seal")):
        return None
    return state


def stored(folder: Path, state: Mapping[str, Any], suffix: str) -> bytes | None:
    """The bytes of a stored output if they are still what the record says."""
    hashes = state.get("files")
    if not isinstance(hashes, dict) or suffix not in hashes:
        return None
    data = _read_regular(folder / f"preview{suffix}")
    if data is None or hashlib.sha256(data).hexdigest() != hashes[suffix]:
        return None
    return data


def _save_state(folder: Path, state: dict[str, Any]) -> None:
    mac = files.seal(_sealed_bytes(state))
    if mac is None:  # no per-user key: the record could never be trusted again
        return
    files.atomic_write(folder / "state.json",
                       json.dumps({**state, "seal": mac}, ensure_ascii=False).encode("utf-8"))


def _resource_digest(resources: Mapping[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(resources):
        if rel.lower().endswith(_AFFECTS_PASSES):
            h.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(resources[rel]).digest())
    return h.hexdigest()


# ------------------------------------------------------------------------------- the build
def _blocked(paper: Paper, message: str) -> list[Finding]:
    """The gate's findings that stop the build: refused TeX (MECH022) and unapproved content
    (MECH079), at their cells."""
    from ..checker import dangerous_tex
    from ..checker.document import Document
    from ..checker.rules import RULES_BY_CODE

    found = list(dangerous_tex(paper))
    rule = RULES_BY_CODE["MECH079"]
    found += list(rule.check(Document(paper), rule))
    if not found:
        found.append(Finding(code="MECH079", name="tex-needs-review", severity=Severity.WARNING,
                             message=message))
    return found


def build(notebook: str | os.PathLike[str], *, cancel: threading.Event | None = None,
          progress: Callable[[str], None] | None = None,
          timeout: float | None = None) -> PreviewResult:
    """Build the preview PDF of the saved ``notebook`` (see the module's description)."""
    from .api import UntrustedTexError, refuse_untrusted, render
    from .context import RenderCache, cache_disabled

    started = time.perf_counter()
    path = Path(notebook)
    paper = read_paper(path)
    folder = state_dir(path)
    with _lock(folder):
        cache = RenderCache() if cache_disabled() else RenderCache.load(folder)
        result = render(paper, cache=cache)
        previous = load_state(folder)
        version = previous.get("version") if previous else None
        built_at = previous.get("built_at") if previous else None
        try:
            refuse_untrusted(result, engine=result.engine)
        except UntrustedTexError as exc:
            return PreviewResult("blocked", _blocked(paper, str(exc)), engine=result.engine,
                                 message=str(exc), seconds=time.perf_counter() - started,
                                 version=version, built_at=built_at)
        with contextlib.suppress(OSError):
            cache.save(folder)
        if cancel is not None and cancel.is_set():
            return PreviewResult("cancelled", version=version, built_at=built_at)
        engine = result.engine
        stem = safe_stem(path.stem)
        sources = {c.index: c.source for c in paper.cells}
        tokens = token_index(paper.cells)
        resources_key = _resource_digest(result.resources)
        latex = passes.mark(result.latex)
        # the judged text, plus the one line of mechnb's own that marks the format's end
        if latex != result.latex and latex.replace(passes.DUMP_LINE, "", 1) != result.latex:
            raise AssertionError("the preview compiles other TeX than the gate judged")
        fmt_key = passes.format_key(latex, engine, resources_key)
        reuse = (previous is not None and previous.get("engine") == engine
                 and previous.get("resources") == resources_key)
        workdir = Path(tempfile.mkdtemp(prefix="mechnb-preview-"))
        try:
            _write_private(workdir, "preview.tex", latex.encode("utf-8"))
            for rel, data in result.resources.items():
                _write_private(workdir, rel, data)
            before: dict[str, bytes] = {}
            if reuse and previous is not None:
                for suffix in KEPT:
                    kept = stored(folder, previous, suffix)
                    if kept is not None:
                        before[suffix] = kept
                        _write_private(workdir, "preview" + suffix, kept)
            done, code = "", 0
            if ".aux" in before:
                fmt = _format(folder, previous, fmt_key)
                if fmt is not None:
                    _write_private(workdir, f"{passes.FORMAT_NAME}.fmt", fmt)
                if progress:
                    progress("TeX passes on the previous build's .aux")
                code, done, from_format = _quick_passes(workdir, engine, timeout, cancel,
                                                        before, fmt is not None)
                if fmt is not None and not from_format and previous is not None:
                    # TeX could not load it (a TeX Live update?): not tried again
                    previous["format"] = {**previous["format"], "usable": False}
            if not done and not (cancel is not None and cancel.is_set()):
                if progress:
                    progress(f"latexmk {ENGINES[engine]} (full cycle)")
                code = _latexmk(workdir, engine, timeout, cancel, progress)
                done = "full"
            if cancel is not None and cancel.is_set():
                return PreviewResult("cancelled", version=version, built_at=built_at,
                                     engine=engine)
            log_text = (_read_regular(workdir / "preview.log") or b"").decode("utf-8", "replace")
            line_map = line_cells(result.latex, tokens)
            compiled = parse_log(log_text, "preview.tex", line_map, sources, tokens,
                                 result.latex)
            if engine != "pdflatex":
                compiled += missing_glyphs(log_text, result.latex, line_map, sources)
            _rename_preview(compiled, stem)
            pdf = _read_regular(workdir / "preview.pdf")
            ok = code == 0 and pdf is not None
            outputs = {s: _read_regular(workdir / f"preview{s}") for s in STORED} if ok else {
                ".log": log_text.encode("utf-8")}
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        findings = [f for f in result.findings if f.severity is not Severity.INFO] + compiled
        if not ok:
            if code != 0 and not any(f.name == "tex-error" for f in compiled):
                from .codes import export_finding
                from .processes import describe_stop, limit_seconds

                why = describe_stop(code, limit_seconds(timeout)) or f"exit code {code}"
                findings.append(export_finding("tex-error", f"the preview build failed ({why})"))
            _store_failure(folder, previous, log_text)
            return PreviewResult("failed", findings, done, time.perf_counter() - started,
                                 engine, "TeX stopped; the preview shows the last PDF that built",
                                 version, built_at)
        hashes: dict[str, str] = {}
        for suffix, output in outputs.items():
            if output is None:
                continue
            files.atomic_write(folder / f"preview{suffix}", output)
            hashes[suffix] = hashlib.sha256(output).hexdigest()
        version = hashes[".pdf"]
        built_at = time.time()
        state = {"engine": engine, "resources": resources_key, "files": hashes,
                 "version": version, "built_at": built_at, "stem": stem, "tokens": tokens,
                 "failed": False}
        if previous is not None and isinstance(previous.get("format"), dict):
            state["format"] = previous["format"]
        _save_state(folder, state)
        if fmt_key is not None and _format_wanted(state, fmt_key):
            _make_format_later(folder, fmt_key, dict(result.resources), engine, timeout)
        return PreviewResult("ok", findings, done, time.perf_counter() - started, engine,
                             version=version, built_at=built_at)


def _rename_preview(findings: list[Finding], stem: str) -> None:
    """Messages name the paper's ``.tex``, not the build's internal ``preview.tex``."""
    for n, f in enumerate(findings):
        if "preview." in f.message:
            findings[n] = Finding(f.code, f.name, f.severity,
                                  f.message.replace("preview.", f"{stem}."), f.cell, f.line,
                                  f.column, f.labels, f.cell_id, f.file)


def _store_failure(folder: Path, previous: Mapping[str, Any] | None, log: str) -> None:
    """Keep the last good build; note that the newest one failed (its log beside it)."""
    with contextlib.suppress(OSError):
        files.atomic_write(folder / "failed.log", log.encode("utf-8"))
    if previous is not None:
        with contextlib.suppress(OSError):
            _save_state(folder, {**{k: v for k, v in previous.items() if k != "seal"},
                                 "failed": True})


# ------------------------------------------------------------------------------- the format
_MAKING: dict[str, threading.Thread] = {}
_MAKING_GUARD = threading.Lock()


def _format(folder: Path, state: Mapping[str, Any] | None, key: str | None) -> bytes | None:
    """The checked format for ``key`` kept in ``folder`` (``None``: none, or not usable)."""
    record = state.get("format") if state is not None and key is not None else None
    if not isinstance(record, dict) or record.get("key") != key or not record.get("usable"):
        return None
    data = _read_regular(folder / f"preview{_FMT}")
    if data is None or hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return None
    return data


def _format_wanted(state: Mapping[str, Any], key: str) -> bool:
    """Whether ``key`` still needs a format (none tried yet for this preamble)."""
    record = state.get("format")
    return not (isinstance(record, dict) and record.get("key") == key)


def _make_format_later(folder: Path, key: str, resources: dict[str, bytes], engine: str,
                       timeout: float | None) -> None:
    """Make and check the format for ``key`` in a thread of its own (it holds the folder's
    lock, so a build that comes meanwhile waits for it and then uses it)."""
    with _MAKING_GUARD:
        running = _MAKING.get(str(folder))
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(target=_make_format, name="mechnb-preview-format",
                                  args=(folder, key, resources, engine, timeout), daemon=True)
        _MAKING[str(folder)] = thread
        thread.start()


def settle(timeout: float | None = None) -> None:
    """Wait for the formats being made (tests and benchmarks call it before they clean up)."""
    with _MAKING_GUARD:
        threads = list(_MAKING.values())
    for thread in threads:
        thread.join(timeout)


def _make_format(folder: Path, key: str, resources: Mapping[str, bytes], engine: str,
                 timeout: float | None) -> None:
    """Dump the preamble of the last build, then check the format: one pass from it over that
    build's ``.aux`` must lay out every box as the build did (``passes.layout``)."""
    with _lock(folder):
        state = load_state(folder)
        if state is None or state.get("failed") or not _format_wanted(state, key):
            return
        wanted = {s: stored(folder, state, s) for s in (".tex", ".synctex.gz", *KEPT)}
        tex, synctex = wanted[".tex"], wanted[".synctex.gz"]
        if tex is None or synctex is None:
            return
        workdir = Path(tempfile.mkdtemp(prefix="mechnb-format-"))
        try:
            _write_private(workdir, "preview.tex", tex)
            for rel, data in resources.items():
                _write_private(workdir, rel, data)
            fmt = passes.make_format(workdir, engine, timeout)
            usable = False
            if fmt is not None:
                for suffix in KEPT:
                    if wanted[suffix] is not None:
                        _write_private(workdir, "preview" + suffix, wanted[suffix] or b"")
                code = passes.tex_pass(workdir, engine, timeout, None, from_format=True)
                made = _read_regular(workdir / "preview.synctex.gz")
                laid_out = passes.layout(synctex)
                usable = (code == 0 and made is not None and laid_out is not None
                          and passes.layout(made) == laid_out)
        except (OSError, ExportError):  # a format only saves time: builds go on without one
            fmt, usable = None, False
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        record: dict[str, Any] = {"key": key, "usable": usable}
        try:
            if usable and fmt is not None:
                files.atomic_write(folder / f"preview{_FMT}", fmt)
                record["sha256"] = hashlib.sha256(fmt).hexdigest()
            _save_state(folder, {**{k: v for k, v in state.items() if k != "seal"},
                                 "format": record})
        except OSError:
            return


def _quick_passes(workdir: Path, engine: str, timeout: float | None,
                  cancel: threading.Event | None, before: Mapping[str, bytes],
                  from_format: bool) -> tuple[int, str, bool]:
    """TeX passes on the previous build's ``.aux`` until it comes back unchanged: the exit code,
    how many passes (``one``, ``two``, ``three``), or ``""`` when the full cycle must run (the
    citations changed, so the ``.bbl`` must be made again, or the ``.aux`` kept moving), and
    whether the passes could start from the format."""
    inputs = {s: before.get(s) for s in (".aux", ".out")}
    for n, name in enumerate(("one", "two", "three"), 1):
        code = passes.tex_pass(workdir, engine, timeout, cancel, from_format=from_format)
        if code != 0 and from_format and not _tex_error_in_log(workdir):
            from_format = False  # the format itself failed: without it
            code = passes.tex_pass(workdir, engine, timeout, cancel)
        if code != 0 or (cancel is not None and cancel.is_set()):
            return code, name, from_format
        outputs = {s: _read_regular(workdir / f"preview{s}") for s in (".aux", ".out")}
        if outputs == inputs:
            return code, name, from_format  # labels, pages and citations stood still: final
        if n == 3 or not passes.same_bibliography(inputs[".aux"], outputs[".aux"]):
            return code, "", from_format
        inputs = outputs
    return 0, "", from_format


_TEX_ERROR = re.compile(rb"^(?:\S+:\d+: |! )", re.M)
"""An error TeX reports (``file:line:`` with -file-line-error, or ``! ``); a format TeX cannot
load says ``---! …`` or "Fatal format file error" instead."""


def _tex_error_in_log(workdir: Path) -> bool:
    return _TEX_ERROR.search(_read_regular(workdir / "preview.log") or b"") is not None


def _latexmk(workdir: Path, engine: str, timeout: float | None, cancel: threading.Event | None,
             progress: Callable[[str], None] | None) -> int:
    from .errors import LatexmkMissingError

    latexmk = shutil.which("latexmk")
    if latexmk is None or shutil.which(engine) is None:
        raise LatexmkMissingError(f"the preview needs latexmk and {engine} (TeX Live); install "
                                  "them with `make tex`")
    argv = [latexmk, ENGINES[engine], "-synctex=1", *COMMON_ARGS, "./preview.tex"]
    return passes.run_tex(workdir, argv, timeout, cancel, progress)


# ------------------------------------------------------------------------------- SyncTeX
@dataclass(frozen=True)
class Place:
    """A box of the PDF: page (1-based), left/top/width/height in PDF points from the top-left."""

    page: int
    x: float
    y: float
    width: float
    height: float


class _Query:
    """The cached build of one notebook, unpacked into a private folder for ``synctex``."""

    def __init__(self, notebook: str | os.PathLike[str]) -> None:
        self.folder = state_dir(notebook)
        self.state = load_state(self.folder)
        self.tmp: Path | None = None

    def __enter__(self) -> _Query | None:
        if self.state is None:
            return None
        needed = {s: stored(self.folder, self.state, s) for s in (".pdf", ".synctex.gz", ".tex")}
        if any(v is None for v in needed.values()):
            return None
        self.tex = (needed[".tex"] or b"").decode("utf-8", "replace")
        self.tmp = Path(tempfile.mkdtemp(prefix="mechnb-synctex-"))
        for suffix, data in needed.items():
            (self.tmp / f"preview{suffix}").write_bytes(data or b"")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def synctex(self, *args: str) -> list[dict[str, str]]:
        """Run ``synctex`` and parse its ``Key:value`` records (one dict per result)."""
        program = shutil.which("synctex")
        if program is None or self.tmp is None:
            return []
        try:
            out = subprocess.run([program, *args], cwd=self.tmp, capture_output=True, text=True,
                                 timeout=SYNCTEX_TIMEOUT, check=False,
                                 stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        records: list[dict[str, str]] = []
        inside = False
        for line in out.splitlines():
            if line.startswith("SyncTeX result begin"):
                inside = True
                continue
            if line.startswith("SyncTeX result end"):
                break
            if not inside or ":" not in line:
                continue
            key, value = line.split(":", 1)
            if key in ("Output", "Page", "Input") or not records:
                if key in ("Output", "Input") and records and key not in records[-1]:
                    records[-1][key] = value
                    continue
                records.append({})
            records[-1][key] = value
        return records

    def input_name(self) -> str:
        """The ``.tex`` path as TeX recorded it in the ``.synctex.gz``."""
        found = self.synctex("edit", "-o", f"1:72:72:{self.tmp}/preview.pdf")
        for record in found:
            if "Input" in record:
                return record["Input"]
        return "preview.tex"


def _tokens(state: Mapping[str, Any], paper: Paper | None) -> dict[str, int]:
    """Marker token → cell index: the current notebook's (moved cells), else the build's."""
    if paper is not None:
        return token_index(paper.cells)
    tokens = state.get("tokens")
    return {str(k): int(v) for k, v in tokens.items()} if isinstance(tokens, dict) else {}


_WORD = re.compile(r"[^\W\d_]{3,}|[\u3400-\u9fff]{2}")


def best_line(source: str, tex_line: str) -> int | None:
    """The 1-based line of ``source`` sharing the most words with ``tex_line`` (``None``: no
    line shares one) — a markdown line and its LaTeX differ in markup, not in words."""
    wanted = set(_WORD.findall(tex_line))
    if not wanted:
        return None
    best, best_score = None, 0
    for n, text in enumerate(source.split("\n"), 1):
        score = len(wanted & set(_WORD.findall(text)))
        if score > best_score:
            best, best_score = n, score
    return best


def source_at(notebook: str | os.PathLike[str], page: int, x: float, y: float,
              paper: Paper | None = None) -> dict[str, Any] | None:
    """The cell (0-based ``cell``, ``cell_id``) and, where the text allows, the 1-based
    ``line`` of it that produced the point (``x``, ``y`` in PDF points from the page's top-left)
    of ``page``; ``None`` when the point is outside any cell's text (title, bibliography)."""
    with _Query(notebook) as q:
        if q is None or q.tmp is None or q.state is None:
            return None
        found = q.synctex("edit", "-o", f"{page}:{x:.2f}:{y:.2f}:{q.tmp}/preview.pdf")
        lines = [int(r["Line"]) for r in found if r.get("Line", "").lstrip("-").isdigit()]
        tex_lines = q.tex.split("\n")
        tokens = _tokens(q.state, paper)
        cells = line_cells(q.tex, tokens)
        for line in lines:
            if 1 <= line <= len(cells) and cells[line - 1] is not None:
                cell = cells[line - 1]
                assert cell is not None
                out: dict[str, Any] = {"cell": cell, "tex_line": line, "line": None,
                                       "cell_id": None}
                if paper is not None and 0 <= cell < len(paper.cells):
                    out["cell_id"] = paper.cells[cell].id
                    out["line"] = best_line(paper.cells[cell].source, tex_lines[line - 1])
                return out
    return None


def place_of(notebook: str | os.PathLike[str], cell: int,
             paper: Paper | None = None, line: int | None = None) -> Place | None:
    """Where cell ``cell`` (0-based; with ``line``, that line of it where the text allows)
    landed in the PDF of the last build; ``None`` when it is not in the PDF."""
    with _Query(notebook) as q:
        if q is None or q.tmp is None or q.state is None:
            return None
        tokens = _tokens(q.state, paper)
        tex_lines = q.tex.split("\n")
        owners = line_cells(q.tex, tokens)
        candidates = [n for n, owner in enumerate(owners, 1) if owner == cell
                      and not MARKER_RE.match(tex_lines[n - 1]) and tex_lines[n - 1].strip()]
        if not candidates:
            return None
        if line is not None and paper is not None and 0 <= cell < len(paper.cells):
            wanted = paper.cells[cell].source.split("\n")
            if 1 <= line <= len(wanted):
                words = set(_WORD.findall(wanted[line - 1]))
                scored = sorted(candidates, key=lambda n: -len(
                    words & set(_WORD.findall(tex_lines[n - 1]))))
                candidates = scored[:1] + candidates
        name = q.input_name()
        if line is None:
            return _cell_box(q, name, candidates)
        for n in candidates[:40]:
            for record in q.synctex("view", "-i", f"{n}:0:{name}", "-o",
                                    f"{q.tmp}/preview.pdf"):
                box = _record_box(record)
                if box is not None:
                    return box
    return None


def _record_box(record: Mapping[str, str]) -> Place | None:
    """The box of one ``synctex view`` record (its baseline ``v``, height ``H``, depth ``D``)."""
    try:
        page = int(record["Page"])
        h, v = float(record["h"]), float(record["v"])
        w, height = float(record.get("W", 0)), float(record.get("H", 0))
        depth = float(record.get("D", 0) or 0)
    except (KeyError, ValueError):
        return None
    return Place(page, h, v - height, w, height + max(depth, 0.0))


CELL_BOX_LINES = 12
"""At most this many of a cell's ``.tex`` lines are asked for (first, last, evenly between)."""


def _cell_box(q: Any, name: str, lines: list[int]) -> Place | None:
    """The box around the whole of a cell on the page where it starts: the union of the boxes
    of its ``.tex`` lines on that page (a theorem's every line, not only its first)."""
    if len(lines) > CELL_BOX_LINES:
        step = (len(lines) - 1) / (CELL_BOX_LINES - 1)
        lines = sorted({lines[round(i * step)] for i in range(CELL_BOX_LINES)})
    boxes: list[Place] = []
    for n in lines:
        for record in q.synctex("view", "-i", f"{n}:0:{name}", "-o", f"{q.tmp}/preview.pdf"):
            box = _record_box(record)
            if box is not None and (not boxes or box.page == boxes[0].page):
                boxes.append(box)
    if not boxes:
        return None
    left = min(b.x for b in boxes)
    top = min(b.y for b in boxes)
    right = max(b.x + b.width for b in boxes)
    bottom = max(b.y + b.height for b in boxes)
    return Place(boxes[0].page, left, top, right - left, bottom - top)


def pdf_bytes(notebook: str | os.PathLike[str]) -> tuple[bytes, Mapping[str, Any]] | None:
    """The last good preview PDF of ``notebook`` and its record (``None``: none built yet)."""
    folder = state_dir(notebook)
    state = load_state(folder)
    if state is None:
        return None
    data = stored(folder, state, ".pdf")
    return None if data is None else (data, state)


def resolve_token(token: str, paper: Paper) -> int | None:
    """The cell a marker token names in ``paper`` (for callers holding a token)."""
    return resolve(token, token_index(paper.cells))
