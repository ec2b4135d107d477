"""The judged document (DESIGN §2a): the gate judges exactly what TeX compiles.

``judge_result`` hands the gate (``mechnb.tex.gate.judge_document``) the complete ``.tex`` of
an export — after every rewrite and fallback — with the regions saying which parts came from
the notebook, and every file that goes into the build folder beside it. Nothing else is
compiled: ``compile_pdf``, the preview, the bundles and the server compile ``result.latex`` and
``result.resources`` only after this verdict. ``assess`` renders a notebook in memory for the
given export options (no file written) and judges it: ``mechnb check``, ``mechnb trust``, the
JupyterLab approval dialog and ``mechnb import`` call it, so an approval recorded there has
the digests the export checks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..tex.gate import Assessment, Region, is_latex_raw, judge_document

if TYPE_CHECKING:
    from ..notebook import Paper
    from .api import ExportResult
    from .styles import Style


def judge_result(result: ExportResult) -> Assessment:
    """The gate's verdict on ``result.latex`` and ``result.resources`` as they will compile."""
    paper = result.paper

    def where(cell: int | None, snippet: str) -> tuple[str, int | None]:
        return origin(paper, cell, snippet)

    raw = {c.index for c in paper.cells if c.cell_type == "raw" and is_latex_raw(c.metadata)}
    regions = [replace(r, kind="raw") if r.source == "block" and r.cell in raw else r
               for r in result.rendered.regions]
    return judge_document(result.latex, regions, result.resources, where=where)


def rebase(regions: Sequence[Region], old: str, new: str) -> tuple[Region, ...]:
    """``regions`` of ``old`` moved onto ``new``, a rewrite of one stretch of it (the fallback
    that prints a formula as code): regions before the change stay, those after it move, those
    around it grow or shrink with it."""
    n = min(len(old), len(new))
    head = 0
    while head < n and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < n - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    delta = len(new) - len(old)
    changed_end = len(old) - tail
    out = []
    for r in regions:
        start = r.start if r.start <= head else max(head, r.start + delta) \
            if r.start >= changed_end else head
        end = r.end if r.end <= head else r.end + delta if r.end >= changed_end else \
            len(new) - tail
        out.append(replace(r, start=start, end=max(start, end)))
    return tuple(out)


def origin(paper: Paper, cell: int | None, snippet: str) -> tuple[str, int | None]:
    """Which part of cell ``cell`` holds ``snippet`` (``""`` for its source, else
    ``metadata.mechnb.caption``, ``output 2 (text/latex)``…) and its offset in the source."""
    if cell is None or not 0 <= cell < len(paper.cells):
        return "", None
    c = paper.cells[cell]
    needle = snippet.rstrip("…")[:40]
    at = c.source.find(needle) if needle else -1
    if at >= 0:
        return "", at
    for key in ("title", "caption"):
        value = getattr(c, key)
        if value and needle in value:
            return f"metadata.mechnb.{key}", None
    for n, output in enumerate(c.outputs):
        data = output.get("data")
        if isinstance(data, dict):
            for mime, value in data.items():
                text = "".join(map(str, value)) if isinstance(value, list) else str(value)
                if needle in text:
                    return f"output {n + 1} ({mime})", None
        stream = output.get("text")
        if stream is not None:
            stream = "".join(map(str, stream)) if isinstance(stream, list) else str(stream)
            if needle in stream:
                return f"output {n + 1} (stream)", None
    return "", None


_LAST: list[tuple[Paper, tuple[Any, ...], ExportResult]] = []
"""The last document rendered in this process with the default options, by paper (the export
renders it; the checks it runs in the same process judge it without rendering again)."""


def remember(result: ExportResult, options: tuple[Any, ...]) -> None:
    """Keep ``result`` as the rendering of ``result.paper`` for ``options``."""
    _LAST[:] = [(result.paper, options, result)]


_ONE_SHOT: list[bool] = []
"""Set inside ``persist_renders``: a check of a process that checks once and ends."""
KEPT_CHECK_CACHES = 200
"""Notebooks whose check renderings the user's cache keeps (the least recently checked go)."""


@contextmanager
def persist_renders() -> Iterator[None]:
    """Around the check of a process that checks once and ends (``mechnb check``): the gate's
    renderings of a notebook with no export folder are kept in this user's cache,
    ``$XDG_CACHE_HOME/mechnb/check/<hash of the notebook's path>/`` (sealed like the export's),
    so the next check re-renders only the cells that changed. A long-lived process keeps them
    in memory instead (``memory_cache``)."""
    _ONE_SHOT[:] = [True]
    try:
        yield
    finally:
        _ONE_SHOT.clear()


def check_cache_dir(notebook: os.PathLike[str] | str) -> Path:
    """The folder of ``notebook``'s kept check renderings (created, mode 0700); making one
    forgets the least recently checked notebooks past ``KEPT_CHECK_CACHES``."""
    from ..files import notebook_cache_dir

    folder = notebook_cache_dir("check", notebook)
    if not any(folder.iterdir()):  # new: a notebook not checked before
        _forget_old_checks(folder.parent)
    return folder


def _forget_old_checks(root: Path) -> None:
    import shutil

    try:
        folders = sorted((p for p in root.iterdir() if p.is_dir() and not p.is_symlink()),
                         key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    for old in folders[:-KEPT_CHECK_CACHES]:
        shutil.rmtree(old, ignore_errors=True)


def _options_key(style: object, include_code: bool, template: str | None,
                 engine: str | None) -> tuple[Any, ...]:
    return (repr(style), include_code, template, engine)


def assess(paper: Paper, *, style: Style | object = None, include_code: bool = False,
           template: str | None = None, engine: str | None = None) -> Assessment:
    """Render ``paper`` in memory for these export options and judge the document.

    ``style`` is a ``Style``, the metadata form (``{"class": …}``, a compact string) or None
    (the notebook's own). The render cache of the default output folder is read when present
    (never written), so a check after an export re-renders nothing; otherwise the process's own
    (``memory_cache``), so a long-lived process re-renders only the cells that changed.
    """
    from .api import default_output_dir, render
    from .context import RenderCache, cache_disabled, memory_cache
    from .styles import Style, parse_style

    key = _options_key(style, include_code, template, engine)
    if _LAST and _LAST[0][0] is paper and _LAST[0][1] == key:
        return judge_result(_LAST[0][2])

    chosen: Style | None
    if style is None or isinstance(style, Style):
        chosen = style
    else:
        chosen, _ = parse_style(style if isinstance(style, (str, dict)) else None)
    cache = None
    kept: Path | None = None
    if _LAST and _LAST[0][0] is paper and _LAST[0][2].cache is not None:
        # the export of this paper with other options (``--include-code``…) rendered its cells
        # a moment ago: those renderings are what this one needs, except the code cells'
        cache = _LAST[0][2].cache
    elif not cache_disabled():
        folder = default_output_dir(paper) if paper.path is not None else None
        if folder is not None and os.path.isdir(folder):
            cache = RenderCache.load(folder)
        if (cache is None or not cache.entries) and _ONE_SHOT and paper.path is not None:
            try:
                kept = check_cache_dir(paper.path)
                cache = RenderCache.load(kept)
            except OSError:  # no writable cache: render everything, as before
                kept = None
        if cache is None or (not cache.entries and kept is None):
            cache = memory_cache()
    result = render(paper, template=template, include_code=include_code, cache=cache,
                    engine=engine, style=chosen)
    if kept is not None and cache is not None:
        try:
            cache.save(kept)
            os.utime(kept)  # recently checked: kept the longest
        except OSError:
            pass
    return judge_result(result)


def export_options(args: Any) -> dict[str, Any]:
    """The judged-document options of parsed CLI ``args`` (those it has)."""
    options: dict[str, Any] = {}
    if getattr(args, "include_code", False):
        options["include_code"] = True
    for key in ("template", "engine"):
        value = getattr(args, key, None)
        if value:
            options[key] = value
    style = getattr(args, "style", None)
    if style:
        from .styles import parse_style_argument

        options["style"] = parse_style_argument(style)
    return options
