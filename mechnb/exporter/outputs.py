"""Outputs of code cells → figures, included LaTeX and findings about what is left out."""

from __future__ import annotations

import base64
import re
import zlib
from collections.abc import Mapping
from typing import Any

from ..notebook import Cell
from .context import RenderContext, markdown_bold, verbatim

IMAGE_TYPES: tuple[tuple[str, str], ...] = (
    ("application/pdf", ".pdf"), ("image/png", ".png"), ("image/jpeg", ".jpg"))
"""Image MIME types XeLaTeX can include, best first (one is taken per output)."""

SVG_HINT = ("SVG output cannot be included (XeLaTeX has no SVG converter); make the figure in "
            "PNG or PDF too, e.g. `%config InlineBackend.figure_formats = ['png', 'pdf']`")


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


DEFAULT_WIDTH = 0.8
"""Figure width (fraction of ``\\linewidth``) when the image's own size is unknown."""


STYLE_WIDTHS_PT = (468.0, 234.0)
"""The page widths ``%mech figures`` gives a PDF figure: the text (6.5 in) and one column of a
two-column venue (3.25 in)."""


def pdf_width_pt(blob: bytes) -> float | None:
    """The width of a PDF's first ``/MediaBox`` in points, or ``None``."""
    box = re.search(rb"/MediaBox\s*\[\s*([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)",
                    blob[:200_000])
    if box is None:
        return None
    try:
        return float(box.group(3)) - float(box.group(1))
    except ValueError:
        return None


def display_width(blob: bytes, metadata: Any) -> float:
    """A figure width for an image: its display size at about 900 px per line width.

    Uses the ``width`` Jupyter stores for retina images, else the PNG header; small plots stay
    small instead of being blown up to the full line. A PDF figure made at one of the widths of
    ``%mech figures`` (the text or one column) is printed at ``\\linewidth``: unscaled, so its
    text keeps the size it was set in.
    """
    if blob[:5] == b"%PDF-":
        width = pdf_width_pt(blob)
        if width is not None and any(abs(width - w) <= 2.0 for w in STYLE_WIDTHS_PT):
            return 1.0
    px = None
    if isinstance(metadata, Mapping) and isinstance(metadata.get("width"), (int, float)):
        px = float(metadata["width"])
    elif blob[:8] == b"\x89PNG\r\n\x1a\n" and len(blob) >= 24:
        px = float(int.from_bytes(blob[16:20], "big"))
    if not px:
        return DEFAULT_WIDTH
    return round(min(0.9, max(0.45, px / 900)) * 20) / 20


def image_problem(blob: bytes, mime: str) -> str | None:
    """Why TeX could not read an image output (a truncated or corrupt file), or ``None``.

    PNG: the signature, then chunks whose CRCs hold, up to ``IEND``; JPEG: start and end
    markers; PDF: its header and an ``%%EOF``. Reported at the cell instead of as a TeX error.
    """
    if mime == "image/png":
        if blob[:8] != b"\x89PNG\r\n\x1a\n":
            return "is not a PNG image"
        pos = 8
        while pos + 12 <= len(blob):
            length = int.from_bytes(blob[pos:pos + 4], "big")
            kind = blob[pos + 4:pos + 8]
            end = pos + 12 + length
            if end > len(blob):
                return "is a truncated PNG image"
            crc = int.from_bytes(blob[end - 4:end], "big")
            if zlib.crc32(blob[pos + 4:end - 4]) != crc:
                name = kind.decode("latin-1")
                return f"is a corrupt PNG image (bad checksum in its {name!r} chunk)"
            if kind == b"IEND":
                return None
            pos = end
        return "is a truncated PNG image"
    if mime == "image/jpeg":
        if blob[:2] != b"\xff\xd8" or b"\xff\xd9" not in blob[-16:]:
            return "is not a complete JPEG image"
        return None
    if mime == "application/pdf" and (not blob.startswith(b"%PDF")
                                      or b"%%EOF" not in blob[-1024:]):
        return "is not a complete PDF"
    return None


def image_outputs(cell: Cell, ctx: RenderContext) -> list[tuple[str, float]]:
    """Store every image output of ``cell`` as a resource; returns (path, width), in order."""
    paths: list[tuple[str, float]] = []
    svg = 0
    for n, output in enumerate(cell.outputs):
        data = output.get("data")
        if not isinstance(data, Mapping):
            continue
        for mime, ext in IMAGE_TYPES:
            payload = data.get(mime)
            if payload is None:
                continue
            raw = _text(payload)
            try:
                blob = base64.b64decode(raw)
            except ValueError:
                ctx.add_finding("unsupported-image", f"output {n + 1} has {mime} data that is "
                                "not valid base64; re-run the cell")
                break
            problem = image_problem(blob, mime)
            if problem is not None:
                ctx.add_finding("unsupported-image", f"output {n + 1} has {mime} data that "
                                f"{problem}; it is left out of the PDF — re-run the cell")
                break
            meta = output.get("metadata")
            width = display_width(blob, meta.get(mime) if isinstance(meta, Mapping) else None)
            paths.append((ctx.add_resource(f"cell{cell.index}-output{n + 1}{ext}", blob), width))
            break
        else:
            if "image/svg+xml" in data:
                svg += 1
    if svg:
        ctx.add_finding("svg-not-converted", SVG_HINT)
    return paths


def rich_outputs(cell: Cell, ctx: RenderContext, *, include_text: bool,
                 report_images: bool, text_dropped: list[str]) -> list[tuple[str, str]]:
    """The non-image outputs that become LaTeX: ``[(kind, latex)]`` with kind ``latex``/``text``.

    Per output, as JupyterLab picks its MIME type, except that a bundle's ``text/latex`` (the
    object's own LaTeX) and its images come first: ``text/latex`` as written,
    ``text/markdown`` rendered, images left to ``image_outputs``, ``text/html`` converted
    (``html.py``: tables as tables; a script-only output is interactive and counted in one
    finding), streams and ``text/plain`` only when ``include_text``; everything else is counted
    in one finding of the cell when it holds an image, and otherwise appended to
    ``text_dropped`` (the caller counts it for the whole notebook).
    """
    blocks: list[tuple[str, str]] = []
    dropped: list[str] = []
    unconverted: set[str] = set()
    interactive = 0
    for n, output in enumerate(cell.outputs):
        otype = output.get("output_type")
        if otype == "error":
            ename = _text(output.get("ename")) or "an exception"
            ctx.add_finding("error-output", f"the cell's output is an error ({ename}); fix and "
                            "re-run it before exporting")
            continue
        if otype == "stream":
            if include_text:
                blocks.append(("text", verbatim(_text(output.get("text")))))
            else:
                dropped.append("stream")
            continue
        data = output.get("data")
        if not isinstance(data, Mapping):
            continue
        if "text/latex" in data:
            blocks.append(("latex", kernel_latex(_text(data["text/latex"]).strip("\n"))))
        elif "text/markdown" in data:
            blocks.append(("latex", markdown_bold(ctx, _text(data["text/markdown"]))))
        elif any(m in data for m, _ in IMAGE_TYPES) or "image/svg+xml" in data:
            if report_images:
                dropped.append("image")
        elif "text/html" in data:
            latex, unknown = html_output(cell, ctx, n, _text(data["text/html"]))
            unconverted |= unknown
            if latex:
                blocks.append(("latex", latex))
                continue
            interactive += 1  # a script JupyterLab runs (a chart): its text/plain, if it says more
            plain = _text(data.get("text/plain")).strip()
            if include_text and plain and not _OBJECT_REPR_RE.match(plain):
                blocks.append(("text", verbatim(plain)))
        elif include_text and "text/plain" in data:
            blocks.append(("text", verbatim(_text(data["text/plain"]))))
        else:
            dropped.append(next(iter(data), "empty"))
    if unconverted:
        shown = ", ".join(f"<{t}>" for t in sorted(unconverted)[:8])
        ctx.add_finding("raw-html-dropped", f"HTML output with {shown}: the text is kept, the "
                        "formatting of these tags (or an image that is not a PNG/JPEG inside "
                        "the output) is not exported")
    if interactive:
        ctx.add_finding("output-dropped", f"{interactive} interactive HTML output"
                        f"{'s' if interactive > 1 else ''} (a script JupyterLab runs, such as "
                        "a chart) cannot be printed: save the figure as PNG or PDF too and "
                        "display that")
    if "image" not in dropped:  # printed text only: the caller counts it for the notebook
        text_dropped += dropped
    else:
        kinds = ", ".join(sorted(set(dropped)))
        ctx.add_finding("output-dropped", f"{len(dropped)} output(s) ({kinds}) left out of the "
                        "draft: give the cell the role `figure` or `experiment` to export its "
                        "images")
    return blocks


_OBJECT_REPR_RE = re.compile(r"\A<[\w.]+ object(?: at 0x[0-9a-f]+)?>\Z")
"""``<IPython.core.display.HTML object>``: a text/plain fallback that says nothing."""


def html_output(cell: Cell, ctx: RenderContext, n: int, html: str) -> tuple[str, set[str]]:
    """A ``text/html`` output as LaTeX (``html.html_output_to_latex``): tables as tables,
    ``data:`` images stored as the output's resources."""
    from .html import html_output_to_latex

    count = 0

    def store(ext: str, blob: bytes) -> str:
        nonlocal count
        count += 1
        return ctx.add_resource(f"cell{cell.index}-output{n + 1}-{count}{ext}", blob)

    return html_output_to_latex(html, store)


_TABULAR_RE = re.compile(r"\\begin\{tabular\}.*?\\end\{tabular\}", re.DOTALL)
_BARE_UNDERSCORE_RE = re.compile(r"(?<!\\)(\$[^$]*\$)|(?<!\\)_")


_BARE_ENV_RE = re.compile(r"\A\\begin\{([A-Za-z]+\*?)\}")


def kernel_latex(latex: str) -> str:
    """A kernel's ``text/latex`` as LaTeX takes it: R's data frames print column names such as
    ``proportion_within_95pc`` in a ``tabular`` unescaped (Jupyter shows their HTML twin); a bare
    ``_`` outside math in a ``tabular`` is escaped. An output that is one bare math environment
    (SymPy's and Julia's ``\\begin{bmatrix}…``, which MathJax sets as display math) becomes
    display math. Everything else is left as written."""
    from ..tex.markdown import MATHJAX_BARE_ENVIRONMENTS
    from .markdown import display_math

    bare = _BARE_ENV_RE.match(latex.strip())
    if (bare and bare.group(1) in MATHJAX_BARE_ENVIRONMENTS
            and latex.rstrip().endswith("\\end{" + bare.group(1) + "}")):
        return display_math(latex.strip())
    if "_" not in latex or "tabular" not in latex:
        return latex
    return _TABULAR_RE.sub(lambda t: _BARE_UNDERSCORE_RE.sub(
        lambda m: m.group(1) or "\\_", t.group(0)), latex)
