"""``%mech figures``: matplotlib figures that match the paper — vector (PDF) in the exported
draft, set in the paper's fonts and sizes, one or two columns wide.

The built-in templates set the body in 11 pt Latin Modern (``article``) or, for Chinese, Fandol
Song with Latin Modern for Latin text (``ctexart`` under XeLaTeX), on a 6.5 in text width. The
style uses the Computer Modern faces matplotlib ships (``cmr10`` and the ``cm`` math set: the
same design as Latin Modern), Fandol Song from TeX Live for Chinese (glyph by glyph fallback,
so Latin text in a Chinese figure stays in Computer Modern), text at the body size (11 pt; tick
labels and legends 10 pt), and a figure exactly as wide as the text (``columns=1``) or as one
column of a two-column venue (``columns=2``, 3.25 in): tight layout fits the labels inside that
width and figures are saved without a tight bounding box, so the exporter prints them at
``\\linewidth`` with no scaling and the figure's text keeps the body size. Place legends outside
the data, e.g. ``fig, ax = plt.subplots(layout="constrained")`` and
``fig.legend(loc="outside upper center", ncols=3)`` (constrained layout makes room for it).
The inline backend then sends every figure as PNG (to look at) and PDF (which the exporter
prefers: the PDF gets vector figures).

Nothing here runs at ``%load_ext mechnb``: matplotlib is imported only by ``%mech figures``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TEXT_WIDTH_IN = 6.5
"""\\textwidth of the built-in templates (letter paper, 1 in margins)."""
COLUMN_WIDTH_IN = 3.25
"""\\columnwidth of a typical two-column venue (ICML, NeurIPS workshops, IEEE)."""
FONT_SIZE = 11.0
"""Figure text at the 11 pt body size of the built-in templates, as printed at 100 %."""
SMALL_SIZE = FONT_SIZE - 1
"""Tick labels and legends: one point below the body (within the 1 pt the examples' test allows)."""
GOLDEN = 0.62
MAX_HEIGHT_IN = 2.8
"""Default figure height cap: the exporter limits a figure to 0.4 of the text height (3.6 in on
letter paper); a taller figure would be scaled down, and its text with it."""
CJK_FONT_FILES = ("FandolSong-Regular.otf",)
CJK_FAMILY = "FandolSong"


@dataclass(frozen=True)
class FigureStyle:
    """What ``%mech figures`` set, for the report it shows."""

    lang: str
    columns: int
    width_in: float
    families: tuple[str, ...]
    cjk_font: str | None
    formats: tuple[str, ...]

    def __repr__(self) -> str:
        fonts = ", ".join(self.families)
        cjk = "" if self.lang != "zh" else (
            f"; Chinese in {self.cjk_font}" if self.cjk_font else
            "; no Fandol Song found (install TeX Live's texlive-lang-chinese): Chinese text "
            "falls back to another font")
        return (f"mechnb figures: {self.width_in:g} in wide ({self.columns} column"
                f"{'s' if self.columns > 1 else ''} layout), {FONT_SIZE:g} pt {fonts}{cjk}; "
                f"inline figures as {' + '.join(self.formats)} (the export uses the PDF).")


def cjk_font_path() -> Path | None:
    """Fandol Song in TeX Live (the Chinese body font of ``ctexart`` under XeLaTeX)."""
    kpsewhich = shutil.which("kpsewhich")
    for name in CJK_FONT_FILES:
        if kpsewhich:
            try:
                out = subprocess.run([kpsewhich, name], capture_output=True, text=True,
                                     timeout=20, check=False).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                out = ""
            if out and Path(out).is_file():
                return Path(out)
        for root in ("/usr/share/texlive", "/usr/local/texlive", "/usr/share/fonts"):
            found = next(Path(root).rglob(name), None) if Path(root).is_dir() else None
            if found is not None:
                return found
    return None


def rc_params(lang: str = "en", columns: int = 1, cjk_family: str | None = None
              ) -> dict[str, Any]:
    """The matplotlib settings for ``lang`` and a ``columns``-column layout."""
    if columns not in (1, 2):
        raise ValueError("columns must be 1 or 2")
    width = TEXT_WIDTH_IN if columns == 1 else COLUMN_WIDTH_IN
    # Chinese: the CJK face first. Matplotlib sets the text around $...$ of a label with the
    # first family alone (no fallback), so "权重 $\\pi$" needs a face that has both scripts; the
    # math itself stays in Computer Modern (mathtext.fontset "cm").
    families = ([cjk_family, "cmr10"] if lang == "zh" and cjk_family else ["cmr10"])
    return {
        "font.family": families,
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": SMALL_SIZE,
        "ytick.labelsize": SMALL_SIZE,
        "legend.fontsize": SMALL_SIZE,
        "mathtext.fontset": "cm",
        # cmr10 has no minus sign of its own (mathtext draws it); Fandol Song has none at all,
        # so Chinese tick labels are plain text with an ASCII hyphen-minus
        "axes.formatter.use_mathtext": families[0] == "cmr10",
        "axes.unicode_minus": False,
        "figure.figsize": (width, round(min(width * GOLDEN, MAX_HEIGHT_IN), 2)),
        "figure.dpi": 150,
        # tight layout on every draw: labels fit inside the fixed width, and a notebook's own
        # fig.tight_layout() stays silent (with constrained layout as the default it would warn
        # that the layout engine changed); ask for layout="constrained" where a legend goes
        # outside the axes (fig.legend(loc="outside ...") needs it)
        "figure.autolayout": True,
        "savefig.format": "pdf",
        "savefig.bbox": "standard",  # the page is the figure size: printed at \linewidth, 1:1
        "pdf.fonttype": 42,  # TrueType in the PDF: text stays text
        "axes.linewidth": 0.6,
        "lines.linewidth": 1.2,
        "legend.frameon": False,
    }


def apply(lang: str = "en", columns: int = 1) -> FigureStyle:
    """Set matplotlib (and the inline backend, when in a kernel) for the paper's figures."""
    import logging

    import matplotlib
    from matplotlib import font_manager

    # fontTools, which embeds the fonts in the PDF figure, warns on every figure that cmr10's
    # 1990s 'created' date "seems very low"; the warning would land in the notebook's outputs
    logging.getLogger("fontTools.ttLib.tables._h_e_a_d").setLevel(logging.ERROR)
    cjk_family = None
    if lang == "zh":
        path = cjk_font_path()
        if path is not None:
            font_manager.fontManager.addfont(str(path))
            cjk_family = font_manager.FontProperties(fname=str(path)).get_name()
    params = rc_params(lang, columns, cjk_family)
    rc: Any = matplotlib.rcParams  # typed by literal keys; ours are checked by matplotlib
    rc.update(params)
    formats: tuple[str, ...] = ()
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        # IPython's inline backend crops to a tight bounding box by default, which would change
        # the figure's width and so the size of its text once the exporter fits it to the line
        set_matplotlib_formats("png", "pdf", bbox_inches=None)  # type: ignore[no-untyped-call]
        formats = ("png", "pdf")
    except ImportError:  # not in a Jupyter kernel: savefig writes PDF by default
        formats = ("pdf",)
    return FigureStyle(lang, columns, params["figure.figsize"][0], tuple(params["font.family"]),
                       cjk_family, formats)
