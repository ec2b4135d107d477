"""``mechnb import paper.tex [-o paper.ipynb]``: a LaTeX paper → an annotated notebook.

Next to the notebook go the files it needs: the bibliography (the paper's ``.bib`` files merged
into one, or its ``.bbl`` when there is no ``.bib``), the figures its raw cells include, and a
template (``<stem>.template.tex``: mechnb's article or ctexart template plus the packages of the
paper's preamble that TeX Live has). The user chose the file, so what the import brings in is
recorded as reviewed under the trust policy (``mechnb trust``), except refused constructs,
which are reported as MECH022 at their file and line. Nothing is overwritten without ``force``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import MechnbError
from ..findings import Finding
from .notebook import Imported, build_notebook, engine_for, venue_style
from .reader import LatexPaper, read_latex

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
    try:
        return path.read_bytes()
    except OSError:
        return None


def _plan_bibliography(paper: LatexPaper, folder: Path, stem: str) -> tuple[str | None,
                                                                           dict[Path, bytes]]:
    base = paper.source.main.parent
    bibs = [base / (name + ".bib") for name in paper.bibliography]
    found = [p for p in bibs if p.is_file()]
    if found:
        texts = [(_read(p) or b"").decode("utf-8", "replace") for p in found]
        cleaned = [without_file_fields(t) for t in texts]
        if len(found) == 1 and found[0].parent.resolve() == folder.resolve() and \
                cleaned[0] == texts[0]:
            return found[0].name, {}
        return f"{stem}.bib", {folder / f"{stem}.bib": "\n".join(cleaned).encode("utf-8")}
    if paper.bbl is not None:
        if paper.bbl.parent.resolve() == folder.resolve():
            return paper.bbl.name, {}
        return f"{stem}.bbl", {folder / f"{stem}.bbl": _read(paper.bbl) or b""}
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


def _plan_images(paper: LatexPaper, folder: Path) -> dict[Path, bytes]:
    base = paper.source.main.parent
    if base.resolve() == folder.resolve():
        return {}
    out: dict[Path, bytes] = {}
    for block in paper.blocks:
        for name in block.images:
            rel = Path(name)
            if rel.is_absolute() or ".." in rel.parts:
                continue
            for ext in ("", ".pdf", ".png", ".jpg", ".jpeg", ".eps"):
                source = base / (name + ext)
                if source.is_file():
                    data = _read(source)
                    if data is not None:
                        out[folder / (name + ext)] = data
                    break
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
                 force: bool = False, record_trust: bool = True) -> ImportResult:
    """Import the LaTeX paper at ``source`` into a notebook (default: next to its main file)."""
    from ..checker import dangerous_tex
    from ..exporter.styles import kpsewhich
    from ..notebook import paper_from_dict
    from ..tex.gate import assess
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
        sty = paper.source.main.parent / (style["package"] + ".sty")
        if sty.is_file():
            if sty.parent.resolve() != folder.resolve():
                writes[folder / sty.name] = _read(sty) or b""
        elif not kpsewhich(style["package"] + ".sty"):
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
    if record_trust:
        from ..tex.trust import approve

        verdict = assess(nb_paper)
        result.approved = approve(verdict.review, str(out.resolve()))
    result.findings += input_findings(paper)
    result.findings = [replace(f, file=f.file or str(paper.source.main))
                       for f in result.findings]
    return result
