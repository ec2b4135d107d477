"""Blocks of a LaTeX paper → an annotated notebook (nbformat 4.5 JSON), and the way back.

Every cell remembers where it came from (``Origin``): the flattened offsets of its block and the
anchors from its markdown back into the source, so a finding at a line of a cell is reported at
the file, line and column of the ``.tex`` that holds it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tex.gate import judge
from .preamble import VENUE_PACKAGE, Macro, author_entries, find_keywords
from .reader import Block, LatexPaper

NBFORMAT_MINOR = 5
REGISTRY_ENVIRONMENTS = frozenset({
    "theorem", "lemma", "proposition", "corollary", "claim", "definition", "assumption",
    "remark", "proof"})
"""Environments the exporter defines itself (from the role registry)."""
_TEMPLATE_MACROS = frozenset({"mechstrike", "mechstrikebox"})
_XE_PACKAGES = frozenset({"fontspec", "xeCJK", "ctex", "unicode-math", "polyglossia"})
_XE_CLASSES = re.compile(r"^(?:ctex\w*|thuthesis|ustcthesis|\w*thesis-xe)$")


@dataclass
class Origin:
    """Where a cell's text came from."""

    start: int
    end: int
    anchors: list[tuple[int, int]] = field(default_factory=list)

    def source_offset(self, offset: int) -> int:
        """The flattened source offset of ``offset`` in the cell text."""
        if not self.anchors:
            return self.start
        k = bisect.bisect_right([a for a, _ in self.anchors], offset) - 1
        if k < 0:
            return self.anchors[0][1]
        md, src = self.anchors[k]
        nxt = self.anchors[k + 1][1] if k + 1 < len(self.anchors) else self.end
        return min(src + (offset - md), max(nxt, src))


@dataclass
class Imported:
    """The notebook made from a LaTeX paper, and where each of its cells came from."""

    notebook: dict[str, Any]
    origins: list[Origin | None]
    """Per cell (``None`` for cells the import made up: the macros cell)."""
    paper: LatexPaper


def macro_cells(paper: LatexPaper) -> tuple[str, str]:
    """(markdown macros MathJax understands, raw LaTeX definitions it does not)."""
    defined: set[str] = set()
    math: list[str] = []
    raw: list[str] = []
    for macro in paper.declarations.macros.values():
        if macro.name in paper.declarations.openers or "@" in macro.name or \
                macro.name in _TEMPLATE_MACROS:
            continue
        line = _definition(macro)
        hits = judge(line, "math", frozenset(defined))
        if not hits and "\n\n" not in line and "$" not in line:  # "$" would end the math
            math.append(line)
            defined.add(macro.name)
        else:
            raw.append(line)
    for env in paper.declarations.theorems:
        if env not in REGISTRY_ENVIRONMENTS and "@" not in env and env.isascii():
            printed = paper.declarations.theorem_names.get(env, env)
            raw.append("\\newtheorem{" + env + "}{" + printed + "}")
    return ("\n".join("$" + line + "$" for line in math), "\n".join(raw))


def _definition(macro: Macro) -> str:
    if macro.command == "def" and macro.args == 0:  # \def redefines silently: keep it
        return "\\def\\" + macro.name + "{" + macro.body + "}"
    text = macro.text  # \def\x#1#2{…} is written as \newcommand{\x}[2]{…} (the gate
    # refuses \def with parameters)
    return text.replace("\\newcommand", "\\renewcommand", 1) if macro.command == \
        "renewcommand" else text


def _cell(block: Block, n: int) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    mech = block.metadata()
    if mech:
        meta["mechnb"] = mech
    tags = [f"mech-ignore:{code}" for code in sorted(block.ignore)]
    if tags:
        meta["tags"] = tags
    cell: dict[str, Any] = {"cell_type": block.kind, "id": f"tex-{n:04d}", "metadata": meta,
                            "source": block.source}
    if block.kind == "raw":
        meta["format"] = "text/latex"
    return cell


def engine_for(paper: LatexPaper) -> str:
    """pdfLaTeX, unless the paper loads XeLaTeX-only packages or classes, or is Chinese."""
    cls = paper.document_class[0] if paper.document_class else ""
    if paper.lang == "zh" or _XE_CLASSES.match(cls) or any(
            name in _XE_PACKAGES for name, _ in paper.packages):
        return "xelatex"
    return "pdflatex"


def venue_style(paper: LatexPaper) -> dict[str, Any] | None:
    """The venue style package of the preamble (``neurips_2024`` with its options)."""
    for name, options in paper.packages:
        if VENUE_PACKAGE.match(name):
            style: dict[str, Any] = {"package": name}
            opts = [o.strip() for o in (options or "").split(",") if o.strip()]
            if opts:
                style["options"] = opts
            return style
    return None


def build_notebook(paper: LatexPaper, bibliography: str | None = None, *,
                   macros: bool = True) -> Imported:
    """The annotated notebook of ``paper``; ``bibliography`` names its ``.bib``/``.bbl``;
    ``macros``: add the cells holding the paper's macro definitions (first)."""
    cells: list[dict[str, Any]] = []
    origins: list[Origin | None] = []
    math, _raw = macro_cells(paper) if macros else ("", "")
    if math:  # for MathJax only: the template holds the paper's definitions as written, so the
        # export must not define them twice (a ``note`` cell is never exported)
        cells.append({"cell_type": "markdown", "id": "tex-macros",
                      "metadata": {"mechnb": {"role": "note"}, "tags": ["mech:note"]},
                      "source": math})
        origins.append(None)
    for n, block in enumerate(paper.blocks):
        cells.append(_cell(block, n))
        origins.append(Origin(block.start, block.end, block.anchors))
    meta: dict[str, Any] = {"lang": paper.lang, "engine": engine_for(paper)}
    if paper.title:
        meta["title"] = paper.title
    entries = author_entries(paper.source.text)
    if entries and any(len(e) > 1 for e in entries):  # names with affiliations or e-mails
        meta["authors"] = entries
    elif paper.authors:
        meta["authors"] = paper.authors
    keywords = find_keywords(paper.source.text)
    if keywords:
        meta["keywords"] = keywords
    if bibliography:
        meta["bibliography"] = bibliography
    style = venue_style(paper)
    if style:
        meta["style"] = style
    meta["source"] = {"tex": paper.source.main.name}
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                    "name": "python3"},
                     "language_info": {"name": "python"}, "mechnb": meta},
        "nbformat": 4, "nbformat_minor": NBFORMAT_MINOR}
    return Imported(notebook, origins, paper)


def default_bibliography(paper: LatexPaper) -> Path | None:
    """The bibliography file to read citations from: the first existing ``.bib``, else the
    ``.bbl``."""
    base = paper.source.main.parent
    for name in paper.bibliography:
        path = base / (name + ".bib")
        if path.is_file():
            return path
    return paper.bbl
