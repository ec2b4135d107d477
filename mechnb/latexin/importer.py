"""``mechnb import paper.tex [-o paper.ipynb]``: a LaTeX paper → an annotated notebook.

Next to the notebook go the files it needs: the bibliography (the paper's ``.bib`` files merged
into one, or its ``.bbl`` when there is no ``.bib``), the figures its raw cells include, and a
template (``<stem>.template.tex``: mechnb's article or ctexart template plus the packages of the
paper's preamble that TeX Live has). Nothing is overwritten without ``force``.

Every file of the paper is read through ``paper_paths`` (``source.read_in_paper``): inside the
paper's folder once symbolic links are resolved, regular files only, bounded in size; a file
refused is a finding naming it (MECH874), never copied.

The import confers no trust it cannot see (DESIGN §2a, "Trust"): the notebook goes through the
TeX gate like any other, and what needs review (definitions off the allow-list, raw cells, the
template, a venue style next to the notebook) is returned in ``ImportResult.review`` with its
digest. ``approve_import`` records it with ``mechnb.tex.trust.approve``, the function every
approval uses; ``mechnb import`` calls it only when the user confirms the list (or passes
``--yes``). Refused constructs are reported as MECH022 at their file and line and never
approved.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import MechnbError
from ..findings import Finding
from ..paper_paths import read_regular
from ..tex.gate import ReviewItem
from .notebook import Imported, build_notebook, engine_for, venue_style
from .reader import LatexPaper, Problem, read_latex
from .source import read_in_paper

TEMPLATE_PACKAGES = frozenset({
    "inputenc", "fontenc", "lmodern", "fontspec", "geometry", "amsmath", "amssymb", "amsthm",
    "graphicx", "graphics", "booktabs", "xcolor", "color", "tcolorbox", "natbib", "hyperref",
    "cleveref", "iftex", "ctex", "xeCJK", "biblatex", "times", "fullpage", "url",
    "thmtools", "subfiles", "import", "showkeys", "todonotes", "lineno", "fancyhdr",
    "titlesec", "setspace", "hyperxmp", "microtype", "CJKutf8", "babel", "polyglossia",
    "unicode-math", "newtxmath", "newtxtext", "mathptmx", "txfonts", "pxfonts", "mathpazo",
    "palatino", "helvet", "courier", "authblk", "caption", "subcaption", "subfig",
    "comment", "xr", "xr-hyper", "bookmark", "nameref", "refcheck", "bibentry"})
"""Packages the import leaves out of the template: mechnb's template loads them (or an
equivalent), they clash with it (fonts, biblatex against natbib, caption packages against a
venue's), or they only matter to the source's own build."""


class ImportProblem(MechnbError):
    """The import cannot go ahead (a file would be overwritten, no document)."""


@dataclass
class ImportResult:
    """What ``import_latex`` wrote and found."""

    notebook_path: Path
    imported: Imported
    written: list[Path] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    approved: int = 0
    """Review items recorded as approved by this import (``approve_import``)."""
    review: list[ReviewItem] = field(default_factory=list)
    """What needs review and is not approved yet (the TeX gate's items, with their digests)."""
    reviewed_before: int = 0
    """Review items the user had approved before (the same content, another import)."""
    refused: int = 0
    """Places the TeX gate refuses: never approved."""

    def summary(self) -> str:
        cells = self.imported.notebook["cells"]
        md = sum(c["cell_type"] == "markdown" for c in cells)
        raw = sum(c["cell_type"] == "raw" for c in cells)
        roles: dict[str, int] = {}
        for c in cells:
            role = c.get("metadata", {}).get("mechnb", {}).get("role")
            if role:
                roles[role] = roles.get(role, 0) + 1
        shown = ", ".join(f"{n} {r}" for r, n in sorted(roles.items(), key=lambda x: -x[1]))
        return (f"wrote {self.notebook_path}: {len(cells)} cells ({md} markdown, {raw} raw "
                f"LaTeX); roles: {shown or 'none'}")


def _read(path: Path) -> bytes | None:
    """What a file the import would write over holds (``None``: missing, or not a regular
    file, which is never read)."""
    try:
        return read_regular(path)
    except OSError:
        return None


def _plan_bibliography(paper: LatexPaper, folder: Path, stem: str) -> tuple[str | None,
                                                                           dict[Path, bytes]]:
    """The bibliography the notebook names, from the files the reader read safely."""
    found = paper.bib_files
    if found:
        texts = [data.decode("utf-8", "replace") for _name, _path, data in found]
        cleaned = [without_file_fields(t) for t in texts]
        first = found[0][1]
        if len(found) == 1 and first.parent.resolve() == folder.resolve() and \
                cleaned[0] == texts[0]:
            return first.name, {}
        return f"{stem}.bib", {folder / f"{stem}.bib": "\n".join(cleaned).encode("utf-8")}
    if paper.bbl is not None and paper.bbl_data is not None:
        if paper.bbl.parent.resolve() == folder.resolve():
            return paper.bbl.name, {}
        return f"{stem}.bbl", {folder / f"{stem}.bbl": paper.bbl_data}
    return None, {}


_FILE_FIELD = re.compile(r"(?im)^[ \t]*file[ \t]*=[ \t]*")


def without_file_fields(bib: str) -> str:
    """``bib`` without the ``file = {…}`` fields reference managers add (the path of the
    reader's own PDF copy): no bibliography style prints them, and the TeX gate refuses a
    .bib that names files."""
    out: list[str] = []
    pos = 0
    for m in _FILE_FIELD.finditer(bib):
        if m.start() < pos:
            continue
        k = m.end()
        if k < len(bib) and bib[k] in "{\"":
            close = "}" if bib[k] == "{" else "\""
            depth = 0
            j = k
            while j < len(bib):
                if bib[j] == "{":
                    depth += 1
                elif bib[j] == "}":
                    depth -= 1
                if (close == "}" and depth == 0 and j > k) or (close == "\"" and j > k and
                                                               bib[j] == "\""):
                    break
                j += 1
            end = j + 1
            while end < len(bib) and bib[end] in " \t,":
                end += 1
            if end < len(bib) and bib[end] == "\n":
                end += 1
            out.append(bib[pos:m.start()])
            pos = end
    out.append(bib[pos:])
    return "".join(out)


_IMAGE_EXTENSIONS = ("", ".pdf", ".png", ".jpg", ".jpeg", ".eps")


def _image_file(base: Path, name: str) -> str | None:
    """The file ``\\includegraphics{name}`` names (with the extension TeX would add): the first
    regular one, else the first that exists and is not a folder (refused when read)."""
    candidates = [name + ext for ext in _IMAGE_EXTENSIONS]
    for found in candidates:
        if (base / found).is_file():
            return found
    for found in candidates:
        if (base / found).exists() and not (base / found).is_dir():
            return found
    return None


def _plan_images(paper: LatexPaper, folder: Path) -> dict[Path, bytes]:
    """The figures to copy next to the notebook; a refused one is a problem of ``paper``."""
    base = paper.source.main.parent
    if base.resolve() == folder.resolve():
        return {}
    out: dict[Path, bytes] = {}
    for block in paper.blocks:
        for name in block.images:
            rel = Path(name)
            if not name or "\x00" in name or rel.is_absolute() or ".." in rel.parts:
                continue  # the TeX gate refuses it (MECH022)
            found = _image_file(base, name)
            if found is None:
                continue
            _path, data, why = read_in_paper(base, found)
            if data is None:
                paper.problems.append(Problem("file-refused", f"the figure {found} {why}; it is "
                                              "not copied", block.start))
            else:
                out[folder / found] = data
    return out


def template_text(paper: LatexPaper, available: set[str] | None = None) -> str:
    """mechnb's template for the paper's language plus the paper's own packages."""
    from ..exporter.latex import data_text
    from ..exporter.styles import kpsewhich

    base = data_text("ctexart.tex" if paper.lang == "zh" else "article.tex")
    style = venue_style(paper)
    lines = []
    for name, options in paper.packages:
        if name in TEMPLATE_PACKAGES or (style and name == style["package"]) or \
                not name.replace("-", "").replace("_", "").isalnum():
            continue
        known = name in available if available is not None else kpsewhich(name + ".sty")
        if not known:
            continue
        opt = f"[{options}]" if options and "\\" not in options and "}" not in options else ""
        line = f"\\usepackage{opt}{{{name}}}"
        if line not in lines:
            lines.append(line)
    if not lines:
        return base
    marker = "((( extra_packages )))"
    block = "% The packages of " + paper.source.main.name + "\n" + "\n".join(lines) + "\n"
    return base.replace(marker, block + marker, 1)


def import_latex(source: str | Path, output: str | Path | None = None, *,
                 force: bool = False, record_trust: bool = False) -> ImportResult:
    """Import the LaTeX paper at ``source`` into a notebook (default: next to its main file).

    What needs review is in ``ImportResult.review``; ``record_trust`` approves it at once (as
    ``mechnb import --yes``), else nothing is approved (``approve_import`` does it later)."""
    from ..checker import dangerous_tex
    from ..exporter.styles import kpsewhich
    from ..notebook import paper_from_dict
    from ..tex.gate import assess
    from ..tex.trust import unapproved
    from .check import input_findings, remap

    paper = read_latex(source)
    if not paper.blocks:
        raise ImportProblem(f"{paper.source.main}: no \\begin{{document}} body to import")
    out = Path(output) if output is not None else paper.source.main.with_suffix(".ipynb")
    if out.suffix != ".ipynb":
        raise ImportProblem(f"{out}: the notebook's name should end in .ipynb")
    folder = out.parent if str(out.parent) else Path(".")
    stem = out.stem
    bib_name, writes = _plan_bibliography(paper, folder, stem)
    writes.update(_plan_images(paper, folder))
    template = template_text(paper)
    template_name = f"{stem}.template.tex"
    writes[folder / template_name] = template.encode("utf-8")
    style = venue_style(paper)
    if style is not None:  # only a style TeX can find (next to the paper, or in TeX Live)
        sty_name = style["package"] + ".sty"
        sty = paper.source.main.parent / sty_name
        if sty.exists():
            _path, data, why = read_in_paper(sty.parent, sty_name)
            if data is None:
                paper.problems.append(Problem("file-refused", f"the venue style {sty_name} "
                                              f"{why}; the notebook does not use it"))
                style = None
            elif sty.parent.resolve() != folder.resolve():
                writes[folder / sty.name] = data
        elif not kpsewhich(sty_name):
            style = None
    imported = build_notebook(paper, bib_name)
    mech: dict[str, Any] = imported.notebook["metadata"]["mechnb"]
    mech["template"] = template_name
    mech["engine"] = engine_for(paper)
    if style is None:
        mech.pop("style", None)
    else:
        mech["style"] = style
    data = (json.dumps(imported.notebook, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    if not force:
        clashes = [p for p, blob in [(out, data), *writes.items()]
                   if p.exists() and _read(p) != blob]
        if clashes:
            raise ImportProblem(
                f"{', '.join(str(p) for p in clashes)} already exist"
                f"{'s' if len(clashes) == 1 else ''} and would be overwritten; import to "
                "another name with -o, or re-run with --force")
    folder.mkdir(parents=True, exist_ok=True)
    from ..files import atomic_write

    written = []
    for path, blob in writes.items():
        if _read(path) == blob:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, blob)
        written.append(path)
    atomic_write(out, data)
    result = ImportResult(out, imported, written)
    nb_paper = paper_from_dict(imported.notebook, out)
    refused = dangerous_tex(nb_paper)
    result.findings += [remap(f, imported) for f in refused]
    verdict = assess(nb_paper)  # the notebook as every export judges it
    result.review = list({item.digest: item for item in unapproved(verdict)}.values())
    result.reviewed_before = len(verdict.review) - len(result.review)
    result.refused = len(verdict.refused)
    if record_trust:
        approve_import(result)
    result.findings += input_findings(paper)
    result.findings = [replace(f, file=f.file or str(paper.source.main))
                       for f in result.findings]
    return result


def approve_import(result: ImportResult) -> int:
    """Record what ``result`` lists for review as approved for this user, with the function
    every approval uses (``mechnb.tex.trust.approve``); refused constructs are not in the list.
    Returns how many items were new; raises ``trust.TrustRecordError`` (an ``OSError``) when
    the record cannot be written."""
    from ..tex.trust import approve

    result.approved = approve(result.review, str(result.notebook_path.resolve()))
    return result.approved
