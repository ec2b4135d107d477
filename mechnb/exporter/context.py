"""The render context (what rendering a cell collects) and the per-cell render cache.

This module stays light: markdown-it is imported only when a piece of markdown is not in the
cache. The cache (``.mechnb-export-cache.json`` in the output directory) maps a hash of
(markdown text, rendering mode, renderer version) to the LaTeX and the side effects rendering
had (labels, citations, findings), so re-exporting an edited notebook only re-renders the cells
that changed. Renderings that produced files (images) are never cached. The file is sealed with
this user's key (``files.seal``): a cache that came with a received folder is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..files import is_sealed, seal
from ..findings import Finding
from ..memo import also_clear
from ..tex.escape import escape_latex
from .codes import export_finding

CACHE_FILE = ".mechnb-export-cache.json"
RENDERER_VERSION = 3
"""Bump when the markdown → LaTeX output changes (source-file stats are part of the key too)."""


def _sealed(entries: Mapping[str, Any]) -> bytes:
    return json.dumps(entries, ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")


class RenderCache:
    """Rendered markdown by content hash; ``used`` is what this export needed (saved back)."""

    def __init__(self, entries: Mapping[str, Any] | None = None) -> None:
        self.entries: dict[str, Any] = dict(entries or {})
        self.used: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0
        self.loaded_from: Path | None = None

    @staticmethod
    def stamp() -> str:
        """Identifies the renderer: mechnb version, cache format, and the size and time of
        every file rendering reads code or data from (the exporter's and ``mechnb.tex``'s
        modules, the LaTeX data tables), so that an edited module or table (an editable
        install, a development checkout) never serves renderings made by the old one."""
        package = Path(__file__).parent.parent
        files = sorted([*(package / "exporter").glob("*.py"), *(package / "tex").glob("*.py"),
                        *(package / "data" / "latex").glob("*.txt"),
                        *(package / "data" / "latex").glob("*.json")])
        stats = []
        for path in files:
            try:
                st = path.stat()
                stats.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                stats.append("-")
        digest = hashlib.sha256("/".join(stats).encode(), usedforsecurity=False).hexdigest()[:32]
        return f"{__version__}/{RENDERER_VERSION}/{digest}"

    @classmethod
    def load(cls, out_dir: Path) -> RenderCache:
        """The cache saved in ``out_dir`` (empty when missing, unreadable or stale)."""
        try:
            data = json.loads((out_dir / CACHE_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return cls()
        if not isinstance(data, dict) or data.get("stamp") != cls.stamp():
            return cls()
        entries = data.get("entries")
        # the cached LaTeX goes into the .tex unchecked: only a cache this user's mechnb wrote
        if not isinstance(entries, dict) or not is_sealed(_sealed(entries), data.get("seal")):
            return cls()
        cache = cls(entries)
        cache.loaded_from = out_dir
        return cache

    def save(self, out_dir: Path) -> None:
        """Write the entries this export used (stale ones are dropped); no-op when unchanged."""
        from .writer import atomic_write

        if self.loaded_from == out_dir and not self.misses and len(self.used) == len(
                self.entries):
            return

        mac = seal(_sealed(self.used))
        if mac is None:  # no per-user key to seal it with: it could never be loaded
            return
        payload = {"stamp": self.stamp(), "entries": self.used, "seal": mac}
        atomic_write(out_dir / CACHE_FILE,
                     json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode())

    def key(self, parts: list[Any]) -> str:
        return hashlib.sha1(json.dumps(parts, ensure_ascii=False).encode(),
                            usedforsecurity=False).hexdigest()

    def forget_unused(self, keep: int) -> None:
        """Bound a long-lived cache: past ``keep`` entries, keep only those the last render
        used (a notebook edited for hours adds one entry per version of each cell)."""
        if len(self.entries) > keep:
            self.entries = dict(self.used)
        self.used = {}


MEMORY_ENTRIES = 50_000
"""Entries the process's own render cache holds before it forgets the unused ones."""
_MEMORY: list[RenderCache] = []
also_clear(_MEMORY.clear)


def memory_cache() -> RenderCache:
    """This process's render cache, for checks of a notebook never exported: a long-lived
    process (the Jupyter server's checks, the preview) re-renders only the cells that changed
    since its last check. Nothing is written; only this process's own renders are in it."""
    if not _MEMORY:
        _MEMORY.append(RenderCache())
    cache = _MEMORY[0]
    cache.forget_unused(MEMORY_ENTRIES)
    return cache


@dataclass
class RenderContext:
    """Where a cell's markdown is rendered: collects findings, files and citations."""

    cell: int | None = None
    """Index of the cell being rendered (findings point at it)."""
    cell_id: str | None = None
    base_dir: Path | None = None
    """Directory that relative image paths are resolved against (the notebook's)."""
    files_dir: str = "files"
    """Directory, relative to the ``.tex``, that extracted images are written to."""
    attachments: Mapping[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    resources: dict[str, bytes] = field(default_factory=dict)
    """Relative path → bytes of every file the ``.tex`` needs."""
    citations: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    """Labels defined by ``\\label`` in rendered text or math."""
    figure_caption: str | None = None
    """LaTeX caption for the next image-only paragraph (a ``figure`` cell's metadata)."""
    figure_label: str | None = None
    macros: list[str] = field(default_factory=list)
    """Macro definitions found as math (``$\\newcommand…$``), for the preamble."""
    cache: RenderCache | None = None
    """Render cache, or ``None`` to always render."""
    outer_resources: Mapping[str, bytes] = field(default_factory=dict)
    """Resources of the enclosing context (a scratch context must not reuse their names)."""
    read_files: bool = False
    """Whether rendering looked for a file or an attachment (what it found can change while the
    text stays the same: such a rendering is not cached)."""

    def add_finding(self, slug: str, message: str) -> None:
        """Record an exporter finding at the current cell."""
        self.findings.append(export_finding(slug, message, self.cell, cell_id=self.cell_id))

    def add_resource(self, name: str, data: bytes) -> str:
        """Store ``data`` as ``files_dir/name``; returns its path relative to the ``.tex``."""
        rel = f"{self.files_dir}/{name}"
        stem, dot, ext = name.rpartition(".")
        n = 1
        while self._stored(rel, data) != data:  # same name, other image
            n += 1
            rel = f"{self.files_dir}/{stem}-{n}{dot}{ext}"
        self.resources[rel] = data
        return rel

    def _stored(self, rel: str, default: bytes) -> bytes:
        if rel in self.resources:
            return self.resources[rel]
        return self.outer_resources.get(rel, default)

    def cached(self, parts: list[Any], render: Callable[[RenderContext], Any]) -> Any:
        """``render(ctx)`` through the cache; side effects are replayed on a hit."""
        cache = self.cache
        if cache is None:
            return render(self)
        parts = [*parts, self.figure_caption, self.figure_label]
        key = cache.key(parts)
        hit = cache.entries.get(key)
        if hit is not None:
            cache.hits += 1
            cache.used[key] = hit
            self.citations.update(hit["cit"])
            self.labels.update(hit["lab"])
            self.macros += hit["mac"]
            for slug, message in hit["fnd"]:
                self.add_finding(slug, message)
            if hit["fig"]:
                self.figure_caption = self.figure_label = None
            return hit["out"]
        cache.misses += 1
        scratch = RenderContext(
            cell=self.cell, cell_id=self.cell_id, base_dir=self.base_dir,
            files_dir=self.files_dir, attachments=self.attachments,
            outer_resources=self.resources, figure_caption=self.figure_caption,
            figure_label=self.figure_label)
        out = render(scratch)
        new_files = scratch.resources
        fig_used = (scratch.figure_caption, scratch.figure_label) != (
            self.figure_caption, self.figure_label)
        self.resources.update(new_files)
        self.read_files |= scratch.read_files
        self.citations |= scratch.citations
        self.labels |= scratch.labels
        self.macros += scratch.macros
        self.findings += scratch.findings
        self.figure_caption, self.figure_label = scratch.figure_caption, scratch.figure_label
        if not new_files and not scratch.read_files:
            entry = {"out": out, "cit": sorted(scratch.citations), "lab": sorted(scratch.labels),
                     "mac": scratch.macros,
                     "fnd": [[f.name, f.message] for f in scratch.findings], "fig": fig_used}
            cache.entries[key] = cache.used[key] = entry
        return out


# ---------------------------------------------------------------- cached markdown entry points


def markdown_block(ctx: RenderContext, source: str) -> str:
    """A markdown cell as LaTeX (``#`` headings become sections)."""
    def render(c: RenderContext) -> str:
        from .markdown import render_markdown

        return render_markdown(source, c)

    out: str = ctx.cached(["block", source], render)
    return out


def markdown_titled(ctx: RenderContext, source: str) -> tuple[str | None, str]:
    """(title from a leading heading, body with bold headings) of a markdown cell."""
    def render(c: RenderContext) -> list[str | None]:
        from .markdown import render_titled

        return list(render_titled(source, c))

    title, body = ctx.cached(["titled", source], render)
    return title, str(body)


def markdown_bold(ctx: RenderContext, source: str) -> str:
    """Markdown whose headings become bold paragraphs (outputs, abstracts)."""
    def render(c: RenderContext) -> str:
        from .markdown import render_markdown

        return render_markdown(source, c, headings="bold")

    out: str = ctx.cached(["bold", source], render)
    return out


def markdown_inline(ctx: RenderContext, text: str) -> str:
    """One line of markdown (titles, captions) as LaTeX."""
    def render(c: RenderContext) -> str:
        from .markdown import render_inline

        return render_inline(text, c)

    out: str = ctx.cached(["inline", text], render)
    return out


_TERMINAL_ESCAPE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"             # CSI: colours, cursor moves (ESC [ 1;31 m)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]?")                     # any other escape, or a lone ESC
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(text: str) -> str:
    """``text`` as a terminal would show it: ANSI escapes and control characters removed.

    nbconvert strips ANSI codes the same way; a carriage return keeps only what was written
    after it (a progress bar's last state), and other control characters, which XeLaTeX cannot
    typeset and would stop on, are dropped.
    """
    if not _CONTROL_RE.search(text):
        return text
    text = _TERMINAL_ESCAPE_RE.sub("", text.replace("\r\n", "\n"))
    if "\r" in text:
        text = "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _CONTROL_RE.sub("", text)


VERBATIM_BEGIN = "\\begin{Verbatim}"
"""How code and text outputs open in the ``.tex``: fvextra's ``Verbatim``, whose long lines wrap
at a space or after one of ``BREAK_AFTER`` (``data/latex/verbatim.tex``) instead of running off
the page."""
BREAK_AFTER = ".,(/=-_"
"""Where a verbatim line may also wrap: after the characters that join code (attributes,
arguments, paths, URLs, keywords, names) and draw rules (``=====``, ``-----``: within a run of
them too, ``breakafterinrun``)."""
BREAK_ANYWHERE = "[breakanywhere]"
"""The one option a ``Verbatim`` may get: a block with a run too long for a column wraps
anywhere too (the gate reads its body as text, as for the bare environment)."""
BREAK_ANYWHERE_RUN = 30
"""Columns of a run with no space and none of ``BREAK_AFTER`` from which a verbatim line may
not fit its column (a column of a two-column venue style holds about 44 typewriter characters,
less its indentation; a wide character, as in Chinese, takes two). fvextra's ``breakanywhere``
puts a break point after every character of a block: a notebook exported with its code
compiled in half again the time when every block had it (a row of carets, the bar of a
progress meter or a hash still needs it)."""
_RUN_RE = re.compile(rf"[^\s{re.escape(BREAK_AFTER)}]{{{BREAK_ANYWHERE_RUN // 2 + 1},}}")


def _needs_break_anywhere(text: str) -> bool:
    return any(len(run) + sum(unicodedata.east_asian_width(ch) in "WF" for ch in run)
               > BREAK_ANYWHERE_RUN for run in _RUN_RE.findall(text))


def verbatim(text: str) -> str:
    """A ``Verbatim`` environment holding ``text`` (typewriter lines if it contains the end
    marker itself, which no verbatim environment can hold); control characters are removed. A
    block with a run that cannot wrap at a space or ``BREAK_AFTER`` wraps anywhere
    (``BREAK_ANYWHERE_RUN``)."""
    text = _cut_long_lines(terminal_text(text).rstrip("\n"))
    if "\\end" not in text or not _verbatim_end(text):
        option = BREAK_ANYWHERE if _needs_break_anywhere(text) else ""
        return VERBATIM_BEGIN + option + "\n" + text + "\n\\end{Verbatim}"
    return typewriter_lines(text)


LONGEST_LINE = 1500
"""Characters of one verbatim line TeX is given at once: fvextra measures a line in one box,
and a line of a few thousand characters is wider than TeX's largest dimension ("Dimension too
large"); longer lines are cut into pieces this long, which fvextra then wraps to the page."""


def _cut_long_lines(text: str) -> str:
    if len(text) <= LONGEST_LINE or all(len(line) <= LONGEST_LINE for line in text.split("\n")):
        return text
    return "\n".join(line[k:k + LONGEST_LINE] for line in text.split("\n")
                     for k in range(0, max(len(line), 1), LONGEST_LINE))


def typewriter_lines(text: str) -> str:
    """``text`` as escaped typewriter lines (no package needed, any content)."""
    lines = [escape_latex(line).replace(" ", "~") or "~" for line in text.split("\n")]
    return "\\begin{flushleft}\\ttfamily\n" + "\\\\\n".join(lines) + "\n\\end{flushleft}"


def _verbatim_end(text: str) -> bool:
    import re

    return re.search(r"\\end\s*\{Verbatim\}", text) is not None


def cache_disabled() -> bool:
    """``MECHNB_NO_CACHE=1`` turns the render cache off."""
    return bool(os.environ.get("MECHNB_NO_CACHE"))
