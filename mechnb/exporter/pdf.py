"""``--pdf``: run latexmk (XeLaTeX by default; no shell escape) in isolation, map the log to cells.

The compile never happens in the output directory: the ``.tex`` and its own files are written
into a fresh private temporary directory (mode 0700) under a safe name, latexmk runs there (in a
bubblewrap sandbox where one works, see ``sandbox``), and only the PDF and the log are copied
back, atomically, replacing (never writing through) whatever sits at their names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from .. import files
from ..errors import ExportError
from ..findings import Finding
from ..paper_paths import open_regular
from ..tex.markers import line_cells
from . import processes, sandbox
from .codes import export_finding
from .document import safe_stem
from .engines import CJK_FONT_ERROR_RE, UNICODE_ERROR_RE, unsupported_message
from .engines import ENGINES as TEX_ENGINES
from .errors import LatexmkMissingError
from .writer import read_sidecar, write_sidecar

ENGINES: dict[str, str] = {name: e.latexmk_flag for name, e in TEX_ENGINES.items()}
"""TeX engine → the latexmk flag that selects it (from ``engines.ENGINES``)."""

COMMON_ARGS = ("-norc", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
               "-file-line-error")
"""latexmk flags for every engine: no rc files, never wait for input, stop at the first error,
no ``\\write18``, ``file:line:`` error messages."""

LATEXMK_ARGS = (ENGINES["xelatex"], *COMMON_ARGS)
"""The default (XeLaTeX) latexmk flags."""

# TeX wraps log lines at 79 characters unless told otherwise; wrapped lines defeat the parser.
# openin/openout "p" (paranoid): TeX opens no dot files and nothing outside the build folder.
TEX_ENV = {"max_print_line": "10000", "error_line": "254", "half_error_line": "238",
           "openout_any": "p", "openin_any": "p", "shell_escape": "f"}
_PROGRESS_RE = re.compile(r"^Run number \d+ of rule '([^']+)'")
_FILE_LINE_ERROR_RE = re.compile(r"^(?:\./)?([^:\n]+\.tex):(\d+): (.*)$")
_BANG_RE = re.compile(r"^! (.*)$")
_LINE_RE = re.compile(r"^l\.(\d+) ?")
_COMMAND_RE = re.compile(r"\\[A-Za-z@]+")
_UNDEF_REF_RE = re.compile(
    r"LaTeX Warning: Reference [`']([^']+)' on page \S+ undefined on input line (\d+)")
_MISSING_CHAR_RE = re.compile(
    r"^Missing character: There is no (?P<char>.{1,8}?) \((?:U\+|\")(?P<code>[0-9A-Fa-f]{2,6})\) "
    r"in font (?P<font>[^\n]{0,200}?)!?$", re.MULTILINE)
"""XeTeX's and LuaTeX's note for a character the current font has no glyph for (LaTeX sets
``\tracinglostchars=2``, so it is logged); the character is left out of the PDF. An
OpenType font's is written ``(U+0448)``, a TeX font's (math: ``cmmi10``) ``("448)``."""
_DISPLAY_OPEN_RE = re.compile(r"\\\[|\\begin\{(?:equation|align|gather|multline|flalign|"
                              r"alignat|eqnarray)\*?\}")
_DISPLAY_CLOSE_RE = re.compile(r"\\\]|\\end\{(?:equation|align|gather|multline|flalign|"
                               r"alignat|eqnarray)\*?\}")
_INLINE_MATH_RE = re.compile(r"(?<!\\)\$[^$]*\$|\\\(.*?\\\)")
_FONT_NAME_RE = re.compile(r"^\[?\"?([^\]:;\"/]*)")
MISSING_GLYPHS_SHOWN = 6
"""Characters named one by one in a missing-glyph finding; the rest are counted."""
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
    sandboxed: bool = False
    """Whether latexmk ran in the bubblewrap sandbox."""
    files: dict[str, Path] = field(default_factory=dict)
    """Every output copied back, by suffix (``.pdf``, ``.log``, and what ``keep`` asked for)."""


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
    for text in lines[n + 1:n + 40]:  # after the macro context lines (\errorcontextlines)
        m = _LINE_RE.match(text)
        if m:
            context = text[m.end():].strip()
            commands = _COMMAND_RE.findall(context)
            return commands[-1] if commands else context[-20:].strip()
    return ""


def parse_log(log: str, tex_name: str, cells: tuple[int | None, ...],
              sources: Mapping[int, str] | None = None,
              markers: Mapping[str, int] | None = None,
              tex: str | None = None) -> list[Finding]:
    """TeX errors, undefined references and citations in ``log``, located at notebook cells
    (and, given the cell ``sources``, at the line of the cell where the culprit is written).

    Messages name cells by their 1-based number; a ``.tex`` line is given with the marker
    token it sits under (``markers``: token → cell index), which for a cell without an id
    counts from 0. An error in a definition the notebook wrote (hoisted to the preamble), or
    raised while TeX expanded a macro the notebook defines, is reported at the defining cell.
    Given the ``tex``, an error on a line of the preamble that no cell wrote shows that line."""
    findings: list[Finding] = []
    preamble = _preamble_lines(tex)
    seen: set[tuple[str, str, int | None]] = set()
    token_of = marker_tokens(markers)

    def add(slug: str, message: str, line: int | None, labels: tuple[str, ...] = (),
            needle: str = "", expanded: tuple[str, ...] = (), read: str = "") -> None:
        cell = _cell_for(cells, line) if line else None
        where = ""
        if line:
            where = f" (.tex line {line}{_in_cell(cell, token_of)})"
        if sources and slug == "tex-error":
            # a definition moved from a cell's math to the preamble, or a macro the notebook
            # defines that failed where it was used: blame the defining cell
            blamed = _defining_cell(message, sources, read if cell is None else "", expanded)
            if blamed is not None and blamed[0] != cell:
                if cell is None:  # the preamble line of a hoisted definition
                    message = f"{message} (the definition of {blamed[2]} in cell " \
                              f"{blamed[0] + 1})"
                    labels = (blamed[2], "at-definition")
                else:
                    message = f"{message} — inside {blamed[2]}, defined in cell " \
                              f"{blamed[0] + 1} and used in cell {cell + 1}"
                    labels = (blamed[2], "in-use")
                cell, needle = blamed[0], blamed[1]
            elif blamed is None and cell is not None:
                # a macro of the notebook on the line TeX stopped at: say where it is defined
                used = _defining_cell("", sources, "", tuple(
                    c[1:] for c in dict.fromkeys(_COMMAND_RE.findall(read))))
                if used is not None and used[0] != cell:
                    message = f"{message} ({used[2]} is defined in cell {used[0] + 1})"
        if slug == "tex-error" and cell is None and line and 1 <= line <= len(preamble):
            # no cell wrote it (not a notebook macro either): the paper's own preamble
            where = f" (.tex line {line}, in the preamble: `{preamble[line - 1]}`" \
                    f"{_PREAMBLE_FIX})"
        key = (slug, message, cell)
        if key in seen:
            return
        seen.add(key)
        found = locate(sources.get(cell, ""), needle) if sources and cell is not None else None
        finding = export_finding(slug, message + where, cell, labels=labels)
        if found:
            finding = replace(finding, line=found[0], column=found[1])
        findings.append(finding)

    lines = log.splitlines()
    for n, text in enumerate(lines):
        m = _FILE_LINE_ERROR_RE.match(text)
        if m and Path(m.group(1)).name == tex_name:
            u = UNICODE_ERROR_RE.search(m.group(3))
            if u:  # inputenc (pdfLaTeX) has no definition for this character
                add("pdflatex-unsupported-character", unsupported_message(u.group(1)),
                    int(m.group(2)), (f"U+{int(u.group(2), 16):04X}",), needle=u.group(1))
                continue
            f = CJK_FONT_ERROR_RE.search(m.group(3))
            if f:  # pdfLaTeX with ctex: CJKutf8 took a non-CJK character (an emoji)
                block = f"U+{f.group(1).upper()}xx"
                add("pdflatex-unsupported-character", f"pdfLaTeX cannot typeset a character "
                    f"of the block {block} (its CJK fonts have none): replace it, or export "
                    "with --engine xelatex", int(m.group(2)), (block,))
                continue
            context = _error_context(lines, n)
            add("tex-error", _name_culprit(f"TeX error: {m.group(3).strip()}", context),
                int(m.group(2)), needle=context, expanded=_expanded_macros(lines, n),
                read=_line_read(lines, n))
            continue
        m2 = _BANG_RE.match(text)
        if m2 and not any(_FILE_LINE_ERROR_RE.match(p) for p in lines[max(0, n - 1):n]):
            line = next((int(x.group(1)) for x in map(_LINE_RE.match, lines[n + 1:n + 40]) if x),
                        None)
            context = _error_context(lines, n)
            add("tex-error", _name_culprit(f"TeX error: {m2.group(1).strip()}", context), line,
                needle=context, expanded=_expanded_macros(lines, n), read=_line_read(lines, n))
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
    if len(findings) > 1:  # "Emergency stop" and "Fatal error" only repeat the error before
        findings = [f for f in findings if "Emergency stop" not in f.message
                    and "Fatal error occurred" not in f.message]
    return findings




_PREAMBLE_FIX = ("; an imported paper's preamble is its template next to the notebook "
                 "(<notebook>.template.tex): fix the line there")
_BEGIN_DOCUMENT_RE = re.compile(r"^[ \t]*\\begin\s*\{document\}", re.M)


def _preamble_lines(tex: str | None) -> list[str]:
    """The lines of ``tex`` before ``\\begin{document}``, each trimmed for a message."""
    if not tex:
        return []
    m = _BEGIN_DOCUMENT_RE.search(tex)
    if m is None:
        return []
    return [line.strip()[:100] for line in tex[:m.start()].split("\n")]


def _name_culprit(message: str, context: str) -> str:
    """``Undefined control sequence`` names the command TeX did not know (the last one it read
    on the error line)."""
    if "Undefined control sequence" in message and context.startswith("\\"):
        return f"{message.rstrip('.')}: {context} is not defined (a missing \\newcommand or " \
               "package?)"
    return message


_ALREADY_DEFINED_RE = re.compile(r"Command \\\\?([A-Za-z]+) already defined")
_DEFINES_RE = re.compile(r"\\(?:(?:re|provide)?newcommand|DeclareMathOperator|def|let)\*?"
                         r"[ \t]*\{?[ \t]*\\([A-Za-z]+)")
_EXPANSION_RE = re.compile(r"^\\([A-Za-z]+) ?(?:#\d)*->")
"""A line of TeX's error context showing a macro being expanded (``\\norm #1->\\left …``);
the templates set ``\\errorcontextlines`` when the notebook defines macros, so TeX shows them."""


def marker_tokens(markers: Mapping[str, int] | None) -> dict[int, str]:
    """Cell index → the token of its ``% mechnb:cell`` marker (its id when it has one)."""
    out: dict[int, str] = {}
    for token, index in (markers or {}).items():
        if not token.startswith("#") or index not in out:
            out[index] = token
    return out


def _in_cell(cell: int | None, token_of: Mapping[int, str]) -> str:
    """``, in cell 65 (marked % mechnb:cell #64, counted from 0)``: a ``.tex`` line's cell
    as people number it, and the marker they find above the line."""
    if cell is None:
        return ""
    token = token_of.get(cell, f"#{cell}")
    if token.startswith("#"):
        return f", in cell {cell + 1}: below `% mechnb:cell {token}`, which counts from 0"
    return f", in cell {cell + 1}: below `% mechnb:cell {token}`"


def _line_read(lines: list[str], n: int) -> str:
    """The text TeX had read of the error's line (``l.N …``)."""
    for text in lines[n + 1:n + 40]:
        m = _LINE_RE.match(text)
        if m:
            return text[m.end():]
    return ""


def _expanded_macros(lines: list[str], n: int) -> tuple[str, ...]:
    """The macros TeX was expanding when the error of line ``n`` stopped it, innermost
    first (from the context lines before ``l.N``)."""
    out = []
    for text in lines[n + 1:n + 40]:
        if _LINE_RE.match(text):
            break
        m = _EXPANSION_RE.match(text)
        if m:
            out.append(m.group(1))
    return tuple(out)


def _defining_cell(message: str, sources: Mapping[int, str], context: str = "",
                   expanded: tuple[str, ...] = ()) -> tuple[int, str, str] | None:
    """The cell that defines the macro at fault, the text to point at and the macro's name:
    the command TeX says is already defined, the definition TeX stopped in (``context``, the
    text of a preamble line), or the innermost macro TeX was expanding that the notebook
    defines (``expanded``); ``None`` if no cell defines one of them."""
    names = []
    m = _ALREADY_DEFINED_RE.search(message)
    if m is not None:
        names.append(m.group(1))
    d = _DEFINES_RE.search(context)
    if d is not None:
        names.append(d.group(1))
    names += expanded
    for name in names:
        pattern = re.compile(r"\\(?:(?:re|provide)?newcommand|DeclareMathOperator|def|let)\*?"
                             r"[ \t]*\{?[ \t]*(\\" + name + r")(?![A-Za-z])")
        for cell in sorted(sources):
            found = pattern.search(sources[cell])
            if found:
                return cell, found.group(0), "\\" + name
    return None


def missing_glyphs(log: str, tex: str, cells: tuple[int | None, ...],
                   sources: Mapping[int, str] | None = None) -> list[Finding]:
    """One ``missing-glyph`` finding per cell whose characters a font of the compile lacks.

    TeX logs a lost character without a line number, so each is traced back through the
    ``.tex`` text: every line holding it gives its cell (a notebook-level finding when it is
    only in the title or preamble), and the cell source its line and column.
    """
    if "Missing character" not in log:
        return []
    fonts: dict[str, set[str]] = {}
    in_math: set[str] = set()
    """Characters lost in a TeX font (``("448) in font cmmi10``): math fonts; traced to math."""
    for m in _MISSING_CHAR_RE.finditer(log):
        char = chr(int(m.group("code"), 16))
        name = _FONT_NAME_RE.match(m.group("font").strip())
        fonts.setdefault(char, set()).add(name.group(1).strip() if name else "?")
        if "(\"" in m.group(0):
            in_math.add(char)
    if not fonts:
        return []
    by_cell: dict[int | None, list[str]] = {}
    display = False
    for n, line in enumerate(tex.split("\n"), 1):
        opens = _DISPLAY_OPEN_RE.search(line)
        math = line if display or opens else "".join(_INLINE_MATH_RE.findall(line))
        if _DISPLAY_CLOSE_RE.search(line):
            display = False
        elif opens:
            display = True
        if line.isascii():
            continue
        for char in fonts:
            if char in (math if char in in_math else line):
                held = by_cell.setdefault(_cell_for(cells, n), [])
                if char not in held:
                    held.append(char)
    traced = {c for chars in by_cell.values() for c in chars}
    if len(traced) < len(fonts):  # spelled differently in the .tex (e.g. by a macro)
        by_cell.setdefault(None, []).extend(c for c in fonts if c not in traced)
    findings = []
    for cell, chars in sorted(by_cell.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in chars[:MISSING_GLYPHS_SHOWN])
        more = (f" and {len(chars) - MISSING_GLYPHS_SHOWN} more"
                if len(chars) > MISSING_GLYPHS_SHOWN else "")
        used = sorted({f for c in chars for f in fonts[c]})
        font_names = " / ".join(used[:3]) + (" …" if len(used) > 3 else "")
        one = len(chars) == 1
        finding = export_finding(
            "missing-glyph",
            f"{shown}{more} {'is' if one else 'are'} missing from the PDF: the font "
            f"{font_names} has no glyph for {'it' if one else 'them'} and TeX left "
            f"{'it' if one else 'them'} out; replace {'it' if one else 'them'} (words or a LaTeX "
            "symbol), or export with a template whose fonts have the glyph",
            cell, labels=tuple(f"U+{ord(c):04X}" for c in chars))
        if sources is not None and cell is not None:
            found = min((p for p in (locate(sources.get(cell, ""), c) for c in chars) if p),
                        default=None)
            if found:
                finding = replace(finding, line=found[0], column=found[1])
        findings.append(finding)
    return findings


def _safe_relative(rel: str) -> PurePosixPath:
    """``rel`` as a path that stays inside the build folder (no absolute path, no ``..``)."""
    path = PurePosixPath(rel)
    if (not rel or "\0" in rel or path.is_absolute()
            or any(part in ("", ".", "..") for part in path.parts)):
        raise ExportError(f"resource {rel!r} is not a plain relative path; not compiled")
    return path


def _write_private(workdir: Path, rel: str, data: bytes) -> None:
    """Create ``workdir/rel`` (a new file, never following a link) holding ``data``."""
    target = workdir.joinpath(*_safe_relative(rel).parts)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (a symlink is not followed), else ``None``.
    A ``.log`` is read bounded (``read_log``)."""
    if path.suffix == ".log":
        return read_log(path)
    try:
        with open_regular(path, follow=False) as (fh, _):
            return fh.read()
    except OSError:
        return None


LOG_READ_LIMIT = 4 * 1024 * 1024
"""Bytes of a TeX log mechnb reads: its head and its tail (where TeX's error is), half each."""


def read_log(path: Path, limit: int | None = None) -> bytes | None:
    """A TeX log, at most ``limit`` bytes of it (``LOG_READ_LIMIT``; ``$MECHNB_LOG_READ_LIMIT``):
    a longer one is read as its head, a line saying how much was skipped, and its tail."""
    if limit is None:
        raw = os.environ.get("MECHNB_LOG_READ_LIMIT", "")
        limit = int(raw) if raw.isdigit() and int(raw) > 0 else LOG_READ_LIMIT
    try:
        with open_regular(path, follow=False) as (fh, info):
            if info.st_size <= limit:
                return fh.read(limit)
            head = fh.read(limit // 2)
            fh.seek(info.st_size - limit // 2)
            tail = fh.read(limit // 2)
    except OSError:
        return None
    skipped = info.st_size - len(head) - len(tail)
    return head + f"\n[mechnb: {skipped} bytes of this log skipped]\n".encode() + tail


def collect_resources(tex_path: Path) -> dict[str, bytes]:
    """The regular files under ``<stem>_files/`` beside ``tex_path`` (symlinks are skipped)."""
    base = tex_path.parent / f"{tex_path.stem}_files"
    found: dict[str, bytes] = {}
    try:
        if not stat.S_ISDIR(os.lstat(base).st_mode):
            return found
    except OSError:
        return found
    for root, dirs, names in os.walk(base, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in names:
            path = Path(root) / name
            data = _read_regular(path)
            if data is not None:
                found[path.relative_to(tex_path.parent).as_posix()] = data
    return found


def _input_digest(engine: str, stem: str, text: str, blobs: Mapping[str, bytes],
                  suffixes: Sequence[str]) -> str:
    """SHA-256 of everything a compile depends on that mechnb controls."""
    h = hashlib.sha256(json.dumps([engine, stem, list(suffixes), LATEXMK_ARGS,
                                   sorted(TEX_ENV.items())]).encode())
    h.update(hashlib.sha256(text.encode("utf-8")).digest())
    for rel in sorted(blobs):
        h.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(blobs[rel]).digest())
    return h.hexdigest()


def _previous_outputs(tex_path: Path, digest: str) -> dict[str, Path] | None:
    """The outputs beside ``tex_path`` if the record says they came from ``digest`` and they
    are regular files still holding the bytes that compile wrote."""
    entry = read_sidecar(tex_path.parent).get("pdf", {})
    entry = entry.get(tex_path.name) if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or entry.get("input") != digest:
        return None
    hashes = entry.get("files")
    # a record received with the folder (or written by another user) is not this user's compile
    if not files.is_sealed(_sealed_bytes(tex_path, digest, hashes), entry.get("seal")):
        return None
    if not isinstance(hashes, dict) or ".pdf" not in hashes or ".log" not in hashes:
        return None
    found: dict[str, Path] = {}
    for suffix, expected in hashes.items():
        path = tex_path.with_name(tex_path.stem + str(suffix))
        data = _read_regular(path)
        if data is None or hashlib.sha256(data).hexdigest() != expected:
            return None
        found[str(suffix)] = path
    return found


def _sealed_bytes(tex_path: Path, digest: str, hashes: object) -> bytes:
    return json.dumps([tex_path.name, digest, hashes], sort_keys=True).encode("utf-8")


def _remember_outputs(tex_path: Path, digest: str, copied: Mapping[str, Path]) -> None:
    """Record what this compile read and wrote (best effort: only saves time next export)."""
    hashes = {}
    for suffix, path in copied.items():
        data = _read_regular(path)
        if data is None:
            return
        hashes[suffix] = hashlib.sha256(data).hexdigest()
    sidecar = read_sidecar(tex_path.parent)
    earlier = sidecar.get("pdf")
    compiled: dict[str, Any] = dict(earlier) if isinstance(earlier, dict) else {}
    mac = files.seal(_sealed_bytes(tex_path, digest, hashes))
    if mac is None:  # no per-user key: nothing would ever be reused
        return
    compiled[tex_path.name] = {"input": digest, "files": hashes, "seal": mac}
    with contextlib.suppress(OSError):
        write_sidecar(tex_path.parent, {**sidecar, "pdf": compiled})


def compile_pdf(tex_path: Path, progress: Callable[[str], None] | None = None,
                timeout: float | None = None, sources: Mapping[int, str] | None = None, *,
                engine: str = "xelatex", latex: str | None = None,
                resources: Mapping[str, bytes] | None = None, keep: Sequence[str] = (),
                sandboxed: bool | None = None, reuse: bool = True,
                cells: Mapping[str, int] | None = None) -> PdfResult:
    """Compile ``tex_path`` with latexmk in a private temporary directory.

    The build folder holds ``latex`` (default: the text of ``tex_path``) under a safe name and
    ``resources`` (relative path → bytes; default: the regular files of ``<stem>_files/``).
    The PDF, the log and the suffixes in ``keep`` (e.g. ``".bbl"``) are copied back beside
    ``tex_path``. ``engine`` is ``xelatex``, ``pdflatex`` or ``lualatex``; ``sandboxed``
    overrides ``MECHNB_SANDBOX`` (``None``: auto, ``True``: require, ``False``: off).
    With ``reuse``, when the PDF, log and kept files beside ``tex_path`` are the untouched
    outputs of a compile of the very same input, they are reused instead of compiling again.
    ``cells`` maps the ``% mechnb:cell`` marker tokens to cell indexes (TeX errors are
    reported at their cell). ``timeout`` limits the compile (wall clock, and CPU time per TeX
    process; default
    ``processes.limit_seconds()``: ``$MECHNB_TEX_TIMEOUT`` or 120 s); every TeX process dies with
    mechnb and the build folder is removed on every path (``processes.run``).
    """
    cells_by_token = cells
    if engine not in ENGINES:
        raise ExportError(f"unknown TeX engine {engine!r}; use one of {', '.join(ENGINES)}")
    latexmk = shutil.which("latexmk")
    if latexmk is None or shutil.which(engine) is None:
        raise LatexmkMissingError(
            f"--pdf needs latexmk and {engine} (TeX Live); install them with `make tex`, or "
            "compile the .tex yourself")
    use_box, how = sandbox.use_sandbox(sandboxed)
    out_dir = tex_path.parent
    text = tex_path.read_text("utf-8") if latex is None else latex
    blobs = collect_resources(tex_path) if resources is None else resources
    # a name latexmk cannot take for an option and its shell cannot expand: [A-Za-z0-9_-]
    stem = safe_stem(tex_path.stem)
    suffixes = tuple(dict.fromkeys((".pdf", ".log", *keep)))
    digest = _input_digest(engine + ("+bwrap" if use_box else ""), stem, text, blobs, suffixes)
    if reuse and (previous := _previous_outputs(tex_path, digest)) is not None:
        if progress:
            progress(f"{previous['.pdf']} is up to date (same input as its last compile)")
        log_text = (_read_regular(previous[".log"]) or b"").decode("utf-8", "replace")
        line_map = line_cells(text, cells_by_token)
        return PdfResult(pdf=previous[".pdf"], log=previous[".log"],
                         findings=parse_log(log_text, f"{stem}.tex", line_map, sources,
                                            cells_by_token, text)
                         + missing_glyphs(log_text, text, line_map, sources),
                         files=previous)
    workdir = Path(tempfile.mkdtemp(prefix="mechnb-tex-"))  # mode 0700, ours alone
    try:
        _write_private(workdir, stem + ".tex", text.encode("utf-8"))
        for rel, data in blobs.items():
            _write_private(workdir, rel, data)
        # TEXMFOUTPUT is where openout_any=p still lets TeX write by absolute path: only here
        env = dict(os.environ, **TEX_ENV, TEXMFOUTPUT=str(workdir))
        # "./name": an argument that starts with "./" is never an option (latexmk has no "--")
        argv = [latexmk, ENGINES[engine], *COMMON_ARGS, f"./{stem}.tex"]
        cmd = sandbox.bwrap_command(workdir, argv, env) if use_box else argv
        if progress:
            progress(f"compiling {tex_path.name} with latexmk {ENGINES[engine]} {how} …")
        returncode = _run(cmd, workdir, env, timeout, progress, cleanup=workdir)
        log_text = (_read_regular(workdir / f"{stem}.log") or b"").decode("utf-8", "replace")
        line_map = line_cells(text, cells_by_token)
        findings = parse_log(log_text, f"{stem}.tex", line_map, sources, cells_by_token, text)
        if engine != "pdflatex":  # pdfLaTeX stops at such characters instead (MECH825)
            findings += missing_glyphs(log_text, text, line_map, sources)
        copied = _copy_back(workdir, stem, tex_path, suffixes[1:] if returncode else suffixes)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if returncode == 0 and ".pdf" in copied:
        _remember_outputs(tex_path, digest, copied)
    log = copied.get(".log", out_dir / f"{tex_path.stem}.log")
    stopped = processes.describe_stop(returncode, processes.limit_seconds(timeout))
    if stopped is not None:
        findings.append(export_finding("tex-error", f"latexmk {stopped}; see {log}"))
    elif returncode != 0 and not any(f.name == "tex-error" for f in findings):
        findings.append(export_finding("tex-error",
                                       f"latexmk failed (exit code {returncode}); see {log}"))
    return PdfResult(pdf=copied.get(".pdf"), log=log, findings=findings, returncode=returncode,
                     sandboxed=use_box, files=copied)


def run_tex(argv: Sequence[str], workdir: Path, *, timeout: float | None = None,
            progress: Callable[[str], None] | None = None,
            sandboxed: bool | None = None, cancel: threading.Event | None = None) -> int:
    """Run a TeX program in the private folder ``workdir`` as ``compile_pdf`` runs latexmk (the
    same environment and limits, in the sandbox where one works); its exit code."""
    use_box, _ = sandbox.use_sandbox(sandboxed)
    env = dict(os.environ, **TEX_ENV, TEXMFOUTPUT=str(workdir))
    cmd = sandbox.bwrap_command(workdir, argv, env) if use_box else list(argv)
    return _run(cmd, workdir, env, timeout, progress, cleanup=None, cancel=cancel)


def _run(cmd: list[str], workdir: Path, env: dict[str, str], timeout: float | None,
         progress: Callable[[str], None] | None, *, cleanup: Path | None,
         cancel: threading.Event | None = None) -> int:
    """Run latexmk within the limits of ``processes.run``, relaying its rule runs to
    ``progress``."""
    def line(text: str) -> None:
        m = _PROGRESS_RE.match(text)
        if m and progress:
            progress(f"  running {m.group(1)}")

    try:
        return processes.run(cmd, workdir, env, wall=timeout, on_line=line, cleanup=cleanup,
                             cancel=cancel)
    except OSError as exc:
        raise LatexmkMissingError(f"cannot run latexmk ({exc.strerror or exc})") from None


def _copy_back(workdir: Path, stem: str, tex_path: Path,
               suffixes: Sequence[str]) -> dict[str, Path]:
    """Copy ``<stem><suffix>`` from the build folder to ``tex_path``'s name + suffix (atomic
    replace: a symlink planted at the destination is replaced, not followed)."""
    copied: dict[str, Path] = {}
    for suffix in dict.fromkeys(suffixes):
        data = _read_regular(workdir / f"{stem}{suffix}")
        if data is None:
            continue
        target = tex_path.with_name(tex_path.stem + suffix)
        try:
            files.atomic_write(target, data)
        except OSError as exc:
            raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
        copied[suffix] = target
    return copied
