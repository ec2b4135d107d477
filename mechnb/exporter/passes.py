"""The preview's TeX passes, and the precompiled preamble that makes them fast.

A pass of pdfLaTeX over a short paper spends most of its time loading packages: 0.5 of the
0.86 s of a pass over the English example paper on a 2-CPU machine. ``mylatexformat`` (TeX Live,
``texlive-latex-extra``) dumps a document's preamble into a TeX *format* once; a pass started
from that format skips the loading (0.35 s for the same pass). The preview uses it for its quick
passes only; ``mechnb export`` and the preview's full latexmk cycle never do.

- **Where the dump ends.** ``mark`` puts ``\\csname endofdump\\endcsname`` at the start of the
  ``\\title`` line (to a run without the format it is ``\\relax``; it adds no line, so SyncTeX
  lines and the cell-id markers keep their numbers). What comes from there on — title, authors,
  the body — is read on every pass, so editing it keeps the format; a change above it (packages,
  macros, the venue style, another TeX binary) needs a new one (``format_key``).
- **Checked before it is used.** A new format is made after a build, then one pass from it over
  that build's own ``.aux`` must lay out every box exactly as the build did (``layout``: the
  SyncTeX records, with file names for SyncTeX's file numbers). A format that lays out anything
  differently is recorded as unusable for that preamble and never used.
- **pdfLaTeX only.** XeTeX cannot dump a preamble that loaded OpenType fonts (fontspec, ctex):
  the Chinese papers run their passes without a format.
- ``$MECHNB_PREVIEW_FORMAT=0`` turns formats off (to compare, or to rule them out).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

from .pdf import COMMON_ARGS, TEX_ENV, _read_regular, _run

FORMAT_ENGINES = ("pdflatex",)
"""Engines whose preamble can be dumped (XeTeX cannot dump OpenType fonts)."""
FORMAT_NAME = "mechnbfmt"
"""The format's file name in a build folder (``mechnbfmt.fmt``)."""
DUMP_LINE = "\\csname endofdump\\endcsname"
_DUMP = DUMP_LINE
_BASE = {"pdflatex": "&pdflatex"}
_TAGGED = re.compile(r"([\[(hvxkg$])(\d+),")
_HEADER = ("!", "SyncTeX", "Version", "Output", "Magnification", "Unit", "X Offset", "Y Offset",
           "Content", "Postamble", "Count", "Post scriptum")


def env(workdir: Path) -> dict[str, str]:
    """The environment of a TeX run in ``workdir`` (TeX's file limits, output only there)."""
    return dict(os.environ, **TEX_ENV, TEXMFOUTPUT=str(workdir))


def command(workdir: Path, argv: list[str], environ: dict[str, str]) -> list[str]:
    """``argv`` in the bubblewrap sandbox where one works, else as it is."""
    from . import sandbox

    boxed, _ = sandbox.use_sandbox()
    return sandbox.bwrap_command(workdir, argv, environ) if boxed else argv


def run_tex(workdir: Path, argv: list[str], timeout: float | None,
            cancel: threading.Event | None,
            progress: Callable[[str], None] | None = None) -> int:
    """Run ``argv`` (a TeX program or latexmk) in ``workdir``: sandboxed where possible, within
    the limits of ``processes.run``; its exit code."""
    environ = env(workdir)
    return _run(command(workdir, argv, environ), workdir, environ, timeout, progress,
                cleanup=workdir, cancel=cancel)


def tex_pass(workdir: Path, engine: str, timeout: float | None,
             cancel: threading.Event | None, *, from_format: bool = False) -> int:
    """One run of the engine itself over ``preview.tex`` (no latexmk: it would start with a
    check pass), from the format ``mechnbfmt.fmt`` in ``workdir`` when ``from_format``."""
    program = shutil.which(engine) or engine
    argv = [program, "-synctex=1", *COMMON_ARGS[1:]]
    if from_format:
        argv.append(f"-fmt={FORMAT_NAME}")
    argv.append("./preview.tex")
    return run_tex(workdir, argv, timeout, cancel)


# ------------------------------------------------------------------------------- the format
def enabled() -> bool:
    """Formats are on unless ``$MECHNB_PREVIEW_FORMAT`` is ``0``, and mylatexformat is there."""
    return os.environ.get("MECHNB_PREVIEW_FORMAT", "1").strip() != "0" and _mylatexformat()


@functools.cache
def _mylatexformat() -> bool:
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    try:
        found = subprocess.run([kpsewhich, "mylatexformat.ltx"], capture_output=True,
                               text=True, timeout=20, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    return bool(found.stdout.strip())


def _cut(latex: str) -> int | None:
    """Where the dump ends in ``latex``: the start of the preamble's ``\\title`` line."""
    begin = latex.find("\n\\begin{document}")
    if begin < 0:
        return None
    marked = latex.rfind("\n" + _DUMP, 0, begin)
    title = marked if marked >= 0 else latex.rfind("\n\\title{", 0, begin)
    return (title if title >= 0 else begin) + 1


def mark(latex: str) -> str:
    """``latex`` with the dump point marked (the same lines; unchanged when it has none or
    is marked already)."""
    cut = _cut(latex)
    if cut is None or latex.startswith(_DUMP, cut):
        return latex
    return latex[:cut] + _DUMP + latex[cut:]


@functools.cache
def _binary(engine: str) -> str:
    program = shutil.which(engine)
    if program is None:
        return ""
    info = os.stat(program)
    return f"{os.path.realpath(program)}:{info.st_size}:{info.st_mtime_ns}"


def format_key(latex: str, engine: str, resources_key: str) -> str | None:
    """What a format for ``latex`` depends on, hashed (``None``: no format for it)."""
    if engine not in FORMAT_ENGINES or not enabled():
        return None
    cut = _cut(latex)
    if cut is None:
        return None
    h = hashlib.sha256()
    for part in (engine, _binary(engine), resources_key, latex[:cut]):
        h.update(part.encode("utf-8") + b"\0")
    return h.hexdigest()


def make_format(workdir: Path, engine: str, timeout: float | None,
                cancel: threading.Event | None = None) -> bytes | None:
    """Dump the preamble of ``workdir/preview.tex`` (marked) into ``mechnbfmt.fmt`` there;
    its bytes, or ``None`` when TeX did not make one."""
    program = shutil.which(engine) or engine
    argv = [program, "-ini", f"-jobname={FORMAT_NAME}", *COMMON_ARGS[1:], _BASE[engine],
            "mylatexformat.ltx", "./preview.tex"]
    code = run_tex(workdir, argv, timeout, cancel)
    return _read_regular(workdir / f"{FORMAT_NAME}.fmt") if code == 0 else None


def layout(synctex_gz: bytes) -> list[str] | None:
    """The boxes a build laid out, from its ``.synctex.gz``: every record, with the file's name
    (relative to the build folder) for SyncTeX's file number (the numbers differ between a run
    from a format and one without); ``None`` when the file cannot be read."""
    try:
        text = gzip.decompress(synctex_gz).decode("latin-1")
    except (OSError, EOFError, zlib.error):
        return None
    names: dict[str, str] = {}
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("Input:"):
            _, tag, name = line.split(":", 2)
            names[tag] = name.rsplit("/./", 1)[-1]  # the build folder's name differs
            continue
        if line.startswith(_HEADER):
            continue
        m = _TAGGED.match(line)
        if m:
            line = m.group(1) + names.get(m.group(2), "?") + line[m.end() - 1:]
        out.append(line)
    return out


def same_bibliography(old: bytes | None, new: bytes | None) -> bool:
    """Whether two ``.aux`` files ask BibTeX for the same thing (the same citations, database
    and style), so the ``.bbl`` still holds; never for biblatex (biber reads its ``.bcf``)."""
    def wanted(aux: bytes | None) -> set[bytes] | None:
        lines = (aux or b"").splitlines()
        if any(line.startswith(b"\\abx@aux") for line in lines):
            return None
        return {line for line in lines
                if line.startswith((b"\\citation{", b"\\bibdata{", b"\\bibstyle{"))}

    before = wanted(old)
    return before is not None and before == wanted(new)
