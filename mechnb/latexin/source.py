"""A LaTeX paper's files read as one text, with the way back to file, line and column.

``load_source`` finds the main file (a folder with several ``\\documentclass`` files: the one
with ``\\begin{document}``, preferring ``main.tex``), then replaces every ``\\input``,
``\\include``, ``\\subfile``, ``\\import`` and ``\\subimport`` outside comments by the file it
names, resolved as TeX resolves it (the current file's folder — the main file's, a subfile's, an
``\\import``'s — then the main file's folder; ``.tex`` added when missing). A subfile's own
preamble is left out. A file that TeX reads with other rules than a paper's text — generated
graphics (``.pgf``), a file that changes catcodes (``\\catcode``), a file whose braces do not
balance — is not read into the text: its ``\\input`` stays as written (``Source.kept`` lists it,
so the import copies it), and a problem names it when it was not plain graphics. Every
character of the flattened text maps back to the file and offset it came from (``Source.locate``);
text put in by a substitution (an expanded macro) maps to where the macro was.

Every file is read through ``paper_paths.read_confined``: symbolic links resolved, confined to
the main file's folder, regular files only (a FIFO or a device is refused unread, never waited
on) and at most ``paper_paths.file_limit()`` bytes; the files read stop at ``MAX_TEXT`` bytes in
all. A refused input is a problem naming the file, not an exception.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..paper_paths import file_limit, read_confined, read_regular, resolve_in_folder
from ..tex.comments import comment_start, mask_comments

MAX_TEXT = 8 * 1024 * 1024
"""Bytes the reader takes from a paper's files in all (and from any one of them); an input that
would go past it is not read (a problem says so)."""
MAX_DEPTH = 20
"""Nested inputs followed before the reader stops (a file that inputs itself)."""
_INPUT = re.compile(
    r"\\(?:(import|subimport|includefrom|subincludefrom)\s*\{([^{}\n]*)\}\s*\{([^{}\n]*)\}"
    r"|(input|include|subfile)(?![A-Za-z@])\s*"
    r"(?:\{([^{}\n]*)\}|(?<=t)[ \t]+([A-Za-z0-9_./-]+\.tex)))")
_DOCUMENTCLASS = re.compile(r"(?m)^[^%\n]*\\documentclass(?![A-Za-z])")
_BEGIN_DOC = re.compile(r"\\begin\s*\{document\}")
_END_DOC = re.compile(r"\\end\s*\{document\}")


@dataclass(frozen=True)
class Problem:
    """Something in the sources the reader could not follow (an input file that is missing)."""

    file: Path
    offset: int
    message: str
    slug: str = "input-not-found"
    """``input-not-found``, or ``file-refused`` for a file that is not read on purpose."""


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    """Offset of the piece in the flattened text."""
    file: int
    """Index into ``Source.files``."""
    offset: int
    """Offset in that file."""
    exact: bool = True
    """False for substituted text: every character maps to ``offset``."""


@dataclass
class Source:
    """The flattened text of a paper and the map back to its files."""

    text: str
    files: list[Path]
    texts: list[str]
    pieces: list[_Piece]
    problems: list[Problem] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    """Input files left as ``\\input`` (not read into the text): generated graphics, files that
    change catcodes or leave braces open. TeX reads them; the import copies them."""
    _starts: list[int] = field(default_factory=list, repr=False)
    _lines: dict[int, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._starts = [p.start for p in self.pieces]

    @property
    def main(self) -> Path:
        """The main file."""
        return self.files[0]

    def origin(self, at: int) -> tuple[int, int]:
        """``(file index, offset in that file)`` of flattened offset ``at``."""
        k = max(bisect.bisect_right(self._starts, at) - 1, 0)
        piece = self.pieces[k]
        delta = at - piece.start if piece.exact else 0
        return piece.file, min(piece.offset + delta, len(self.texts[piece.file]))

    def line_col(self, file: int, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset`` in file ``file``."""
        starts = self._lines.get(file)
        if starts is None:
            text = self.texts[file]
            starts = self._lines[file] = [0] + [m.end() for m in re.finditer("\n", text)]
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def locate(self, at: int) -> tuple[Path, int, int]:
        """``(file, line, column)`` of flattened offset ``at``."""
        file, offset = self.origin(at)
        line, col = self.line_col(file, offset)
        return self.files[file], line, col

    def substitute(self, spans: Iterable[tuple[int, int, str]]) -> Source:
        """This source with each ``(start, end, replacement)`` span replaced (sorted, disjoint);
        replacement text maps to where the span began."""
        out: list[str] = []
        pieces: list[_Piece] = []
        cursor = 0
        length = 0

        def keep(a: int, b: int) -> None:
            nonlocal length
            if b <= a:
                return
            k = max(bisect.bisect_right(self._starts, a) - 1, 0)
            while k < len(self.pieces) and self.pieces[k].start < b:
                p = self.pieces[k]
                end = self.pieces[k + 1].start if k + 1 < len(self.pieces) else len(self.text)
                lo, hi = max(a, p.start), min(b, end)
                if lo < hi:
                    shift = lo - p.start if p.exact else 0
                    pieces.append(_Piece(length + lo - a, p.file, p.offset + shift, p.exact))
                k += 1
            out.append(self.text[a:b])
            length += b - a

        for start, end, replacement in spans:
            keep(cursor, start)
            file, offset = self.origin(start)
            if replacement:
                pieces.append(_Piece(length, file, offset, False))
                out.append(replacement)
                length += len(replacement)
            cursor = end
        keep(cursor, len(self.text))
        # pieces were added with offsets relative to each kept range; fix their starts
        fixed: list[_Piece] = []
        for p in pieces:
            if fixed and fixed[-1].start == p.start:
                fixed[-1] = p
            else:
                fixed.append(p)
        return Source("".join(out), self.files, self.texts, fixed or [_Piece(0, 0, 0)],
                      list(self.problems), list(self.kept))


def decode(data: bytes) -> str:
    """A source file's bytes as text (UTF-8; a Latin-1 file is read as Latin-1)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path) -> str:
    """The text of the file the user named (a regular file of at most ``file_limit()`` bytes,
    else ``paper_paths.UnsafeFileError``, an ``OSError``)."""
    return decode(read_regular(path, min(file_limit(), MAX_TEXT)))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def read_in_paper(root: Path, name: str, limit: int = MAX_TEXT
                  ) -> tuple[Path | None, bytes | None, str]:
    """``(path, bytes, "")`` of the file ``name`` (relative to ``root``, the main file's folder)
    when ``paper_paths.read_confined`` reads it (at most ``limit`` bytes, and never more than
    ``file_limit()``), else ``(path or None, None, why)``: ``why`` completes "``\\input{x}`` …"
    or "the figure x …"."""
    resolved, data, why = read_confined(root, name, max(0, min(file_limit(), limit)))
    if data is not None:
        return resolved, data, ""
    why = (why or "cannot be read").removesuffix("; not read")
    if resolved is None:
        if why.startswith("lies outside"):
            return None, None, "names a file outside the paper's folder; it is not read"
        return None, None, f"{why}; it is not read"
    return resolved, None, f"is not read ({why})"


def find_main(folder: Path) -> Path:
    """The main ``.tex`` file of ``folder``: the one with ``\\documentclass`` and
    ``\\begin{document}`` (``main.tex`` first, then the shortest name). Files that are not
    regular, too large, or lead outside ``folder`` are not candidates."""
    candidates = []
    for path in sorted(folder.rglob("*.tex")):
        _path, data, _why = read_confined(folder, str(Path.cwd() / path),
                                          min(file_limit(), MAX_TEXT))
        if data is None:
            continue
        text = decode(data)
        if _DOCUMENTCLASS.search(text) and _BEGIN_DOC.search(text):
            candidates.append(path)
    if not candidates:
        raise FileNotFoundError(f"{folder}: no .tex file with \\documentclass and "
                                "\\begin{document}")
    return min(candidates, key=lambda p: (p.name != "main.tex", len(p.relative_to(folder).parts),
                                          p.name.startswith(("supp", "appendix")),
                                          len(p.name), str(p)))


def _resolve(base: Path, name: str) -> Path | None:
    """The file ``\\input{name}`` names: ``name`` or ``name.tex`` that is a file; else one that
    exists but is not a folder (a FIFO, a device: refused when read); else ``None``."""
    name = name.strip().strip('"')
    if not name or "\x00" in name:
        return None
    candidates = (base / name, base / (name + ".tex"))
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    for candidate in candidates:
        if candidate.exists() and not candidate.is_dir():
            return candidate
    return None


_OPAQUE_SUFFIXES = (".pgf", ".pgf_tex", ".pdf_tex")
"""Generated graphics code (matplotlib's PGF backend, Inkscape): TeX reads it, mechnb need not."""
_CATCODE = re.compile(r"\\catcode(?![A-Za-z@])")


def opaque_reason(path: Path, text: str) -> str | None:
    """Why the input file ``path`` (holding ``text``) is kept as ``\\input`` rather than read
    into the paper's text: ``""`` for generated graphics (nothing to report), a reason for a file
    that changes catcodes or whose braces do not balance (read as text, it would swallow the rest
    of the paper), else ``None`` (read it)."""
    if path.suffix.lower() in _OPAQUE_SUFFIXES:
        return ""
    masked = mask_comments(text)
    if _CATCODE.search(masked):
        return "changes catcodes (\\catcode), so mechnb cannot read it as TeX would"
    depth = 0
    for m in re.finditer(r"\\.|[{}]", masked, re.S):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth < 0:
                break
    if depth != 0:
        return "leaves braces unbalanced as mechnb reads it"
    return None


def _body_span(text: str) -> tuple[int, int]:
    """The document body of a subfile (its own preamble left out), else the whole text."""
    begin = _BEGIN_DOC.search(text)
    if begin is None or comment_start(text, begin.start()) is not None:
        return 0, len(text)
    end = _END_DOC.search(text, begin.end())
    return begin.end(), end.start() if end else len(text)


def load_source(path: str | Path) -> Source:
    """The paper at ``path`` (a main ``.tex`` file or a folder) with its inputs in place."""
    path = Path(path)
    main = find_main(path) if path.is_dir() else path
    root = main.parent
    files: list[Path] = []
    texts: list[str] = []
    pieces: list[_Piece] = []
    problems: list[Problem] = []
    kept: list[Path] = []
    out: list[str] = []
    length = 0

    def add_file(p: Path, text: str) -> int:
        files.append(p)
        texts.append(text)
        return len(files) - 1

    def emit(file: int, start: int, end: int) -> None:
        nonlocal length
        if end > start:
            pieces.append(_Piece(length, file, start))
            out.append(texts[file][start:end])
            length += end - start

    def walk(file: int, start: int, end: int, base: Path, stack: tuple[Path, ...]) -> None:
        nonlocal length
        cursor = start
        text, masked = texts[file], mask_comments(texts[file])
        for m in _INPUT.finditer(text, start, end):
            if masked[m.start()] != "\\":
                continue  # in a comment
            command = m.group(1) or m.group(4)
            folder = base
            if m.group(1):
                name = m.group(3)
                sub = m.group(2).strip()
                folder = (root if command in ("import", "includefrom") else base) / sub
                if Path(sub).is_absolute():
                    folder = Path(sub)
            else:
                name = m.group(5) if m.group(5) is not None else m.group(6)
            target = _resolve(folder, name)
            if target is None and command in ("input", "include", "subfile") and \
                    folder != root:  # TeX's order: the current file's folder, then the main one
                target = _resolve(root, name)
            if target is None:
                if not name.endswith((".bbl", ".sty", ".cls", ".pdf", ".png", ".tikz")):
                    problems.append(Problem(files[file], m.start(),
                                            f"\\{command}{{{name}}}: file not found next to "
                                            f"the main file; its text is not read"))
                continue
            if target.suffix not in (".tex", "", ".tikz", ".pgf", ".txt"):
                continue
            where, _why = resolve_in_folder(root, str(Path.cwd() / target))
            if where is not None and (where in stack or len(stack) >= MAX_DEPTH):
                problems.append(Problem(files[file], m.start(),
                                        f"\\{command}{{{name}}} inputs a file already being read "
                                        f"(or nests deeper than {MAX_DEPTH}); skipped"))
                continue
            data: bytes | None = None
            if where is not None and total[0] + _size(where) > MAX_TEXT:  # not read at all
                why = (f": the paper's files come to more than {MAX_TEXT} bytes; it is not "
                       "read")
            else:
                where, data, why = read_in_paper(root, str(Path.cwd() / target),
                                                 MAX_TEXT - total[0])
                why = " " + why
            if where is None or data is None:
                problems.append(Problem(files[file], m.start(), f"\\{command}{{{name}}}{why}",
                                        "file-refused"))
                continue
            total[0] += len(data)
            content = decode(data)
            why_opaque = opaque_reason(target, content)
            if why_opaque is not None:  # TeX reads it; the text keeps the \input as written
                if why_opaque and target not in kept:  # one finding per file
                    problems.append(Problem(target, 0, f"{target.name} {why_opaque}; "
                                            f"\\{command}{{{name}}} is kept as written "
                                            "(TeX reads the file; mechnb does not take it apart)",
                                            "parse-error"))
                if target not in kept:
                    kept.append(target)
                continue
            emit(file, cursor, m.start())
            child = add_file(target, content)
            # a subfile, or a file that is a document of its own (standalone, docmute): its
            # body, as those packages read it
            lo, hi = _body_span(texts[child]) if command == "subfile" or \
                _DOCUMENTCLASS.search(texts[child]) else (0, len(texts[child]))
            if command == "include":
                out.append("\n")  # \include starts a new page: a paragraph break at least
                pieces.append(_Piece(length, file, m.start(), False))
                length += 1
            new_base = (target.parent if command in ("import", "subimport", "subfile",
                                                      "includefrom", "subincludefrom")
                        else base)
            walk(child, lo, hi, new_base, (*stack, where))
            pieces.append(_Piece(length, file, m.end()))
            cursor = m.end()
        emit(file, cursor, end)

    first = add_file(main, read_text(main))
    total = [len(texts[first])]  # bytes (about) read so far
    walk(first, 0, len(texts[first]), root, (main.resolve(),))
    if not pieces:
        pieces.append(_Piece(0, first, 0))
    return Source("".join(out), files, texts, _dedupe(pieces), problems, kept)


def _dedupe(pieces: list[_Piece]) -> list[_Piece]:
    out: list[_Piece] = []
    for p in pieces:
        if out and out[-1].start == p.start:
            out[-1] = p
        else:
            out.append(p)
    return out


