"""``--pdf``: run latexmk with XeLaTeX (no shell escape) and map the log back to cells."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..findings import Finding
from .codes import export_finding
from .errors import LatexmkMissingError
from .latex import line_cells

LATEXMK_ARGS = ("-xelatex", "-norc", "-interaction=nonstopmode", "-halt-on-error",
                "-no-shell-escape", "-file-line-error")
"""latexmk flags: XeLaTeX, no rc files, never wait for input, stop at the first error, no
``\\write18``, ``file:line:`` error messages."""

# TeX wraps log lines at 79 characters unless told otherwise; wrapped lines defeat the parser.
TEX_ENV = {"max_print_line": "10000", "error_line": "254", "half_error_line": "238",
           "openout_any": "p", "openin_any": "p"}
_PROGRESS_RE = re.compile(r"^Run number \d+ of rule '([^']+)'")
_FILE_LINE_ERROR_RE = re.compile(r"^(?:\./)?([^:\n]+\.tex):(\d+): (.*)$")
_BANG_RE = re.compile(r"^! (.*)$")
_LINE_RE = re.compile(r"^l\.(\d+) ?")
_COMMAND_RE = re.compile(r"\\[A-Za-z@]+")
_UNDEF_REF_RE = re.compile(
    r"LaTeX Warning: Reference [`']([^']+)' on page \S+ undefined on input line (\d+)")
_UNDEF_CITE_RE = re.compile(
    r"(?:Package natbib Warning|LaTeX Warning): Citation [`']([^']+)' on page \S+ undefined "
    r"on input line (\d+)")


@dataclass
class PdfResult:
    """What compiling produced."""

    pdf: Path | None
    """The PDF, or ``None`` when TeX failed."""
    log: Path
    findings: list[Finding] = field(default_factory=list)
    returncode: int = 0


def _cell_for(cells: tuple[int | None, ...], line: int) -> int | None:
    return cells[line - 1] if 1 <= line <= len(cells) else None


def locate(source: str, needle: str) -> tuple[int, int] | None:
    """1-based (line, column) of the first occurrence of ``needle`` in a cell source."""
    if not needle:
        return None
    for n, text in enumerate(source.split("\n"), 1):
        col = text.find(needle)
        if col >= 0:
            return n, col + 1
    return None


def _error_context(lines: list[str], n: int) -> str:
    """What TeX had read when it stopped: the last command of the ``l.N …`` line, if any."""
    for text in lines[n + 1:n + 12]:
        m = _LINE_RE.match(text)
        if m:
            context = text[m.end():].strip()
            commands = _COMMAND_RE.findall(context)
            return commands[-1] if commands else context[-20:].strip()
    return ""


def parse_log(log: str, tex_name: str, cells: tuple[int | None, ...],
              sources: Mapping[int, str] | None = None) -> list[Finding]:
    """TeX errors, undefined references and citations in ``log``, located at notebook cells
    (and, given the cell ``sources``, at the line of the cell where the culprit is written)."""
    findings: list[Finding] = []
    seen: set[tuple[str, str, int | None]] = set()

    def add(slug: str, message: str, line: int | None, labels: tuple[str, ...] = (),
            needle: str = "") -> None:
        cell = _cell_for(cells, line) if line else None
        key = (slug, message, cell)
        if key in seen:
            return
        seen.add(key)
        where = f" (.tex line {line})" if line else ""
        found = locate(sources.get(cell, ""), needle) if sources and cell is not None else None
        finding = export_finding(slug, message + where, cell, labels=labels)
        if found:
            finding = replace(finding, line=found[0], column=found[1])
        findings.append(finding)

    lines = log.splitlines()
    for n, text in enumerate(lines):
        m = _FILE_LINE_ERROR_RE.match(text)
        if m and Path(m.group(1)).name == tex_name:
            add("tex-error", f"TeX error: {m.group(3).strip()}", int(m.group(2)),
                needle=_error_context(lines, n))
            continue
        m2 = _BANG_RE.match(text)
        if m2 and not any(_FILE_LINE_ERROR_RE.match(p) for p in lines[max(0, n - 1):n]):
            line = next((int(x.group(1)) for x in map(_LINE_RE.match, lines[n + 1:n + 12]) if x),
                        None)
            add("tex-error", f"TeX error: {m2.group(1).strip()}", line,
                needle=_error_context(lines, n))
            continue
        if "undefined" not in text:
            continue
        r = _UNDEF_REF_RE.search(text)
        if r:
            add("undefined-reference", f"reference '{r.group(1)}' is undefined: no \\label"
                f"{{{r.group(1)}}} in the paper", int(r.group(2)), (r.group(1),),
                needle="{" + r.group(1) + "}")
            continue
        c = _UNDEF_CITE_RE.search(text)
        if c:
            add("undefined-citation", f"citation '{c.group(1)}' is not in the bibliography",
                int(c.group(2)), (c.group(1),), needle=c.group(1))
    if len(findings) > 1:  # "Emergency stop" only repeats the error before it
        findings = [f for f in findings if "Emergency stop" not in f.message]
    return findings


def compile_pdf(tex_path: Path, progress: Callable[[str], None] | None = None,
                timeout: float = 600.0, sources: Mapping[int, str] | None = None) -> PdfResult:
    """Compile ``tex_path`` with latexmk + XeLaTeX in its directory."""
    latexmk = shutil.which("latexmk")
    if latexmk is None or shutil.which("xelatex") is None:
        raise LatexmkMissingError(
            "--pdf needs latexmk and xelatex (TeX Live); install them with `make tex` or "
            "`apt-get install latexmk texlive-xetex texlive-lang-chinese`, or compile the .tex "
            "yourself")
    workdir = tex_path.parent
    env = dict(os.environ, **TEX_ENV)
    cmd = [latexmk, *LATEXMK_ARGS, tex_path.name]
    if progress:
        progress(f"compiling {tex_path.name} with latexmk -xelatex …")
    try:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                                encoding="utf-8", errors="replace")
    except OSError as exc:
        raise LatexmkMissingError(f"cannot run latexmk ({exc.strerror or exc})") from None
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            m = _PROGRESS_RE.match(line)
            if m and progress:
                progress(f"  running {m.group(1)}")
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log = workdir / (tex_path.stem + ".log")
    try:
        log_text = log.read_text("utf-8", errors="replace")
        tex_text = tex_path.read_text("utf-8")
    except OSError:
        log_text, tex_text = "", ""
    findings = parse_log(log_text, tex_path.name, line_cells(tex_text), sources)
    pdf = workdir / (tex_path.stem + ".pdf")
    failed = proc.returncode != 0
    if failed and not any(f.name == "tex-error" for f in findings):
        findings.append(export_finding(
            "tex-error", f"latexmk failed (exit code {proc.returncode}); see {log}"))
    return PdfResult(pdf=None if failed or not pdf.exists() else pdf, log=log,
                     findings=findings, returncode=proc.returncode)
