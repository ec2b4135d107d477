"""Submission bundles: an arXiv tarball and an Overleaf zip, each proven to compile.

* ``arxiv`` — ``<stem>-arxiv.tar.gz``: the one top-level ``.tex``, the ``.bbl`` (arXiv does not
  run BibTeX; it comes from running BibTeX once here), the figures in their flat folder, local
  style files. Checked by unpacking it into an empty directory and running pdfLaTeX twice, without
  BibTeX and without shell escape: a TeX error, an undefined reference or citation, or ``??`` in
  the PDF text fails the bundle (nothing is written but the check's log).
* ``overleaf`` — ``<stem>-overleaf.zip``: the sources, the ``.bib`` and a ``latexmkrc`` naming the
  engine. Checked by unpacking it into an empty directory and running latexmk with only that rc.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import ExportError
from ..findings import Finding, Severity
from ..tex.markers import line_cells, token_index
from .api import ExportResult
from .codes import export_finding
from .document import one_line
from .engines import ENGINES, pdftex_findings
from .errors import LatexmkMissingError
from .latex import data_text, fill
from .pdf import compile_pdf, parse_log, run_tex
from .writer import atomic_write

BUNDLE_KINDS = ("arxiv", "overleaf")
TIMEOUT: float | None = None
"""Limit of each TeX run of a bundle check (``None``: ``processes.limit_seconds()``)."""
_PATH_COMMAND_RE = re.compile(
    r"\\(?:includegraphics|input|include|bibliography|addbibresource|graphicspath|"
    r"lstinputlisting|verbatiminput|includepdf)\*?(?:\[[^\]\n]*\])?\{\s*\{?\s*"
    r"(/|~|[A-Za-z]:[\\/]|\.\./)")
_UNDEFINED_SUMMARY = ("There were undefined references", "There were undefined citations",
                      "Citation(s) may have changed")


class BundleKindError(ExportError):
    """A bundle kind that is not one of ``BUNDLE_KINDS``."""


@dataclass
class BundleResult:
    """A bundle and how its check went."""

    kind: str
    path: Path | None
    """The bundle, or ``None`` when its check failed (then nothing was written but the log)."""
    findings: list[Finding] = field(default_factory=list)
    log: Path | None = None
    """The check's TeX log, kept next to the output when the check failed."""
    seconds: float = 0.0
    """Time spent building and checking."""

    @property
    def ok(self) -> bool:
        """The bundle was written (its check passed)."""
        return self.path is not None


def _need(*programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        raise LatexmkMissingError(
            f"bundles need {', '.join(missing)} (TeX Live); install them with `make tex`")


def _pdflatex(name: str) -> list[str]:
    # "./name": never read as an option
    return ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
            "-file-line-error", f"./{name}"]


# --------------------------------------------------------------------------- contents


def _absolute_paths(result: ExportResult) -> list[Finding]:
    """Paths in the ``.tex`` that lead outside the bundle (absolute, ``~``, ``..``)."""
    out = []
    for n, line in enumerate(result.latex.split("\n"), 1):
        m = _PATH_COMMAND_RE.search(line)
        if m:
            out.append(export_finding(
                "bundle-absolute-path", f"{m.group(0)}… points outside the bundle; keep every "
                "file the paper uses next to the notebook and refer to it relatively",
                result.rendered.cell_at(n)))
    return out


def _safe_name(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return (bool(parts) and not PurePosixPath(name).is_absolute() and ".." not in parts
            and not any(p.startswith(".") for p in parts) and len(parts) <= 2)


def _sources(result: ExportResult, stem: str, *, with_bib: bool) -> dict[str, bytes]:
    """The paper's own files by bundle path: the ``.tex`` and its resources (figures, styles)."""
    files = {f"{stem}.tex": result.latex.encode("utf-8")}
    for rel, blob in result.resources.items():
        if rel.endswith(".bib") and not with_bib:
            continue
        files[rel] = blob
    return files


def _write_tree(root: Path, files: Mapping[str, bytes]) -> None:
    for rel, blob in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)


def _tar_gz(files: Mapping[str, bytes]) -> bytes:
    """A reproducible ``.tar.gz`` (sorted, no owner, fixed times)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(files[name]), 0o644, 0
            tar.addfile(info, io.BytesIO(files[name]))
    return gzip.compress(raw.getvalue(), mtime=0)


def _zip(files: Mapping[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name])
    return raw.getvalue()


def unpack(archive: Path, target: Path) -> list[str]:
    """Unpack a bundle into ``target`` (regular files with safe relative names only)."""
    names: list[str] = []
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if info.is_dir() or not _safe_name(info.filename):
                    raise ValueError(f"unsafe member {info.filename!r} in {archive.name}")
                _write_tree(target, {info.filename: zf.read(info)})
                names.append(info.filename)
        return names
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or not _safe_name(member.name):
                raise ValueError(f"unsafe member {member.name!r} in {archive.name}")
            data = tar.extractfile(member)
            assert data is not None
            _write_tree(target, {member.name: data.read()})
            names.append(member.name)
    return names


# --------------------------------------------------------------------------- checks


def _log_findings(result: ExportResult, workdir: Path, stem: str,
                  sources: Mapping[int, str]) -> tuple[list[Finding], str]:
    log_path = workdir / f"{stem}.log"
    from .pdf import read_log

    log = (read_log(log_path) or b"").decode("utf-8", "replace")
    tokens = token_index(result.paper.cells)
    return parse_log(log, f"{stem}.tex", line_cells(result.latex, tokens), sources,
                     tokens, result.latex), log


def _question_marks(pdf: Path) -> bool:
    """``??`` in the PDF's text (pdftotext, when installed), i.e. a reference TeX left open."""
    exe = shutil.which("pdftotext")
    if exe is None:
        return False
    try:
        proc = subprocess.run([exe, "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                              timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return b"??" in proc.stdout


def check_arxiv(archive: Path, result: ExportResult, stem: str,
                keep_log: Path | None = None) -> list[Finding]:
    """Unpack ``archive`` into an empty directory and compile it as arXiv does (pdfLaTeX twice,
    no BibTeX, no shell escape); the findings that fail it (none when it is sound)."""
    sources = {c.index: c.source for c in result.paper.cells}
    with tempfile.TemporaryDirectory(prefix="mechnb-arxiv-check-") as tmp:
        work = Path(tmp)
        unpack(archive, work)
        code = 0
        for _ in range(2):
            code = run_tex(_pdflatex(f"{stem}.tex"), work, timeout=TIMEOUT)
            if code != 0:
                break
        findings, log = _log_findings(result, work, stem, sources)
        pdf = work / f"{stem}.pdf"
        problems = [f for f in findings if f.severity is Severity.ERROR]
        if code != 0 or not pdf.exists():
            problems.append(export_finding(
                "bundle-check-failed", f"the arXiv bundle does not compile with pdfLaTeX "
                f"(exit code {code})"))
        elif any(s in log for s in _UNDEFINED_SUMMARY) and not problems:
            problems.append(export_finding(
                "bundle-check-failed", "pdfLaTeX reports undefined references or citations "
                "in the arXiv bundle"))
        elif _question_marks(pdf):
            problems.append(export_finding(
                "bundle-check-failed", "the PDF compiled from the arXiv bundle shows '??' "
                "(a reference or citation TeX could not resolve)"))
        if problems and keep_log is not None:
            atomic_write(keep_log, log.encode("utf-8"))
        return problems


def check_overleaf(archive: Path, result: ExportResult, stem: str,
                   keep_log: Path | None = None) -> list[Finding]:
    """Unpack ``archive`` into an empty directory and run latexmk with only its ``latexmkrc``."""
    sources = {c.index: c.source for c in result.paper.cells}
    with tempfile.TemporaryDirectory(prefix="mechnb-overleaf-check-") as tmp:
        work = Path(tmp)
        unpack(archive, work)
        code = run_tex(["latexmk", "-norc", "-r", "./latexmkrc", "-interaction=nonstopmode",
                        "-halt-on-error", "-no-shell-escape", "-file-line-error"], work,
                       timeout=TIMEOUT)
        findings, log = _log_findings(result, work, stem, sources)
        problems = [f for f in findings if f.severity is Severity.ERROR]
        if code != 0 or not (work / f"{stem}.pdf").exists():
            problems.append(export_finding(
                "bundle-check-failed", f"the Overleaf project does not compile with latexmk "
                f"and its latexmkrc ({result.engine}, exit code {code})"))
        if problems and keep_log is not None:
            atomic_write(keep_log, log.encode("utf-8"))
        return problems


# --------------------------------------------------------------------------- builders


def _bbl(result: ExportResult, stem: str, files: Mapping[str, bytes]
         ) -> tuple[bytes | None, list[Finding]]:
    """The ``.bbl``: the paper compiled once with pdfLaTeX and BibTeX (``compile_pdf``, in its
    private folder), keeping only the ``.bbl``."""
    if "\\bibliography{" not in result.latex:
        return None, []
    sources = {c.index: c.source for c in result.paper.cells}
    with tempfile.TemporaryDirectory(prefix="mechnb-arxiv-build-") as tmp:
        tex_path = Path(tmp) / f"{stem}.tex"
        compiled = compile_pdf(tex_path, engine="pdflatex", latex=result.latex,
                               resources={k: v for k, v in files.items()
                                          if k != f"{stem}.tex"},
                               keep=(".bbl",), sources=sources,
                               cells=token_index(result.paper.cells))
        problems = [f for f in compiled.findings if f.severity is Severity.ERROR]
        if compiled.pdf is None or problems:
            return None, problems or [export_finding(
                "bundle-check-failed", f"pdfLaTeX failed on the paper (exit code "
                f"{compiled.returncode})")]
        bbl = compiled.files.get(".bbl")
        if bbl is None:
            return None, [export_finding(
                "bundle-without-bbl", "BibTeX wrote no .bbl; check the .bib named by "
                "metadata.mechnb.bibliography")]
        return bbl.read_bytes(), []


def build_arxiv(result: ExportResult, out_dir: Path, stem: str) -> BundleResult:
    """``<stem>-arxiv.tar.gz`` in ``out_dir``, written only if it passes ``check_arxiv``."""
    _need("pdflatex", "bibtex")
    sources = {c.index: c.source for c in result.paper.cells}
    problems = pdftex_findings(result.rendered, sources) + _absolute_paths(result)
    if problems:
        return BundleResult("arxiv", None, problems)
    full = _sources(result, stem, with_bib=True)
    bbl, problems = _bbl(result, stem, full)
    if problems:
        return BundleResult("arxiv", None, problems)
    files = _sources(result, stem, with_bib=False)
    if bbl is not None:
        files[f"{stem}.bbl"] = bbl
    bad = sorted(name for name in files if not _safe_name(name))
    if bad:
        return BundleResult("arxiv", None, [export_finding(
            "bundle-absolute-path", f"files outside one flat folder cannot go into the bundle: "
            f"{', '.join(bad)}")])
    return _write_checked("arxiv", _tar_gz(files), out_dir / f"{stem}-arxiv.tar.gz",
                          check_arxiv, result, stem)


def latexmkrc(result: ExportResult, stem: str) -> str:
    """The Overleaf project's ``latexmkrc``: the engine and the main file."""
    engine = ENGINES[result.engine]
    return fill(data_text("latexmkrc"), {
        "generated_by": f"Generated by mechnb from {one_line(result.paper.display_name)}.",
        "engine": engine.name, "pdf_mode": str(engine.pdf_mode), "main": f"{stem}.tex"},
        "latexmkrc")


def build_overleaf(result: ExportResult, out_dir: Path, stem: str) -> BundleResult:
    """``<stem>-overleaf.zip`` in ``out_dir``, written only if it passes ``check_overleaf``."""
    _need("latexmk", result.engine)
    problems = _absolute_paths(result)
    if problems:
        return BundleResult("overleaf", None, problems)
    files = _sources(result, stem, with_bib=True)
    files["latexmkrc"] = latexmkrc(result, stem).encode("utf-8")
    return _write_checked("overleaf", _zip(files), out_dir / f"{stem}-overleaf.zip",
                          check_overleaf, result, stem)


def _write_checked(kind: str, archive: bytes, target: Path,
                   check: Callable[..., list[Finding]], result: ExportResult,
                   stem: str) -> BundleResult:
    """Check ``archive`` as a private candidate file; write it to ``target`` only if it passes
    (the check's log is kept beside the target when it does not)."""
    with tempfile.TemporaryDirectory(prefix=f"mechnb-{kind}-") as tmp:
        candidate = Path(tmp) / target.name
        candidate.write_bytes(archive)
        log = target.with_name(f"{stem}-{kind}-check.log")
        problems = check(candidate, result, stem, keep_log=log)
        if problems:
            return BundleResult(kind, None, problems, log)
        atomic_write(target, archive)
    with contextlib.suppress(OSError):
        if not log.is_symlink():
            log.unlink(missing_ok=True)  # an earlier failure's log: this bundle builds now
    return BundleResult(kind, target)


BUILDERS: dict[str, Callable[[ExportResult, Path, str], BundleResult]] = {
    "arxiv": build_arxiv,
    "overleaf": build_overleaf,
}
"""Bundle kind → builder."""


def build_bundle(result: ExportResult, kind: str, out_dir: Path) -> BundleResult:
    """Build and check the ``kind`` bundle of an exported result in ``out_dir``."""
    from .document import safe_stem

    start = time.perf_counter()
    stem = safe_stem(result.paper.path.stem if result.paper.path else "paper")
    out_dir.mkdir(parents=True, exist_ok=True)
    bundle = BUILDERS[kind](result, out_dir, stem)
    bundle.seconds = time.perf_counter() - start
    return bundle


def build_bundles(result: ExportResult, kinds: Sequence[str], out_dir: Path, *,
                  trust: bool = False, progress: Callable[[str], None] | None = None
                  ) -> list[BundleResult]:
    """Build each bundle of ``kinds`` once (the CLI's and ``%mech export``'s ``--bundle``).

    A bundle is compiled, so the TeX gate applies as for ``--pdf``: without ``trust``,
    ``UntrustedTexError`` before anything is built. The bundles' findings join ``result``'s.
    """
    if not kinds:
        return []
    unknown = [k for k in kinds if k not in BUILDERS]
    if unknown:
        raise BundleKindError(f"unknown bundle {unknown[0]!r}; choose one of "
                              f"{', '.join(BUILDERS)}")
    if not trust:
        from .api import refuse_untrusted

        refuse_untrusted(result, engine=result.engine)
    bundles = []
    for kind in dict.fromkeys(kinds):
        if progress:
            progress(f"building the {kind} bundle …")
        bundles.append(build_bundle(result, kind, out_dir))
        result.findings.extend(bundles[-1].findings)
    return bundles
