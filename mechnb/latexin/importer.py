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
import os
import re
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import MechnbError
from ..findings import Finding
from ..paper_paths import read_regular
from ..tex.comments import mask_comments
from ..tex.gate import ReviewItem
from .notebook import Imported, build_notebook, engine_for, venue_style
from .reader import LatexPaper, Problem, _merged, read_latex
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
        cleaned, repeated = without_repeated_entries([without_file_fields(t) for t in texts])
        if repeated:
            shown = ", ".join(repeated[:5]) + (f" and {len(repeated) - 5} more"
                                               if len(repeated) > 5 else "")
            entries = "entry" if len(repeated) == 1 else "entries"
            paper.problems.append(Problem(
                "parse-error", f"the bibliography repeats the {entries} {shown}: BibTeX keeps "
                f"the first of each and stops with an error (no PDF); the notebook's {stem}.bib "
                "keeps the first only"))
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


_BIB_ENTRY = re.compile(r"@[ \t]*([A-Za-z]+)[ \t\r\n]*([{(])[ \t\r\n]*([^,\s{}()]+)[ \t]*,")


def without_repeated_entries(texts: list[str]) -> tuple[list[str], list[str]]:
    """``texts`` (the paper's ``.bib`` files, in order) without the entries whose key an earlier
    entry has (BibTeX compares keys without case), and those keys. BibTeX itself keeps the first
    and counts the repeat as an error, which stops latexmk (a published paper's ``.bib`` often
    holds one twice, which an editor that ignores BibTeX's errors never shows)."""
    seen: set[str] = set()
    repeated: list[str] = []
    out: list[str] = []
    for text in texts:
        parts: list[str] = []
        pos = 0
        for m in _BIB_ENTRY.finditer(text):
            if m.start() < pos or m.group(1).lower() in ("comment", "string", "preamble"):
                continue
            key = m.group(3).lower()
            if key not in seen:
                seen.add(key)
                continue
            end = _entry_end(text, m.end(2) - 1)
            if end is None:
                continue
            parts.append(text[pos:m.start()])
            pos = end
            repeated.append(m.group(3))
        out.append("".join(parts) + text[pos:])
    return out, list(dict.fromkeys(repeated))


def _entry_end(text: str, opened: int) -> int | None:
    """The offset after the ``}`` (or ``)``) that closes the entry opened at ``opened``."""
    close = "}" if text[opened] == "{" else ")"
    depth = 0
    for j in range(opened, len(text)):
        ch = text[j]
        if ch == "{" or (close == ")" and ch == "(" and depth == 0):
            depth += 1
        elif ch == "}" or (close == ")" and ch == ")" and depth == 1):
            depth -= 1
            if depth == 0:
                return j + 1
    return None


_IMAGE_EXTENSIONS = ("", ".pdf", ".png", ".jpg", ".jpeg", ".eps")
_INCLUDED_IMAGE = re.compile(r"\\includegraphics\*?(?:\[[^\]]*\]){0,2}\s*\{([^{}]+)\}")


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
        named = list(block.images)
        if block.kind == "raw" and "includegraphics" in block.source:  # a table, a minipage…
            named += [m.group(1).strip() for m in _INCLUDED_IMAGE.finditer(
                mask_comments(block.source)) if m.group(1).strip() not in named]
        for name in named:
            rel = Path(name)
            if not name or "\x00" in name or rel.is_absolute() or ".." in rel.parts:
                continue  # the TeX gate refuses it (MECH022)
            found = _image_file(base, name)
            if found is None or found.lower().endswith(".eps"):
                continue  # pdfLaTeX and XeLaTeX read no .eps without shell escape: not copied,
                # so the export stops on the same missing figure as the source (named there)
            _path, data, why = read_in_paper(base, found)
            if data is None:
                paper.problems.append(Problem("file-refused", f"the figure {found} {why}; it is "
                                              "not copied", block.start))
            else:
                out[folder / found] = data
    return out


_PREAMBLE_DROPPED = re.compile(
    r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{\s*biblatex\s*\}[^\n]*"
    r"|\\addbibresource\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}")
"""Preamble lines the import leaves out of the template: biblatex (the export's bibliography is
BibTeX's, from ``metadata.mechnb.bibliography``)."""
_CLASS_LINE = re.compile(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{[^{}]*\}[^\n]*\n?")
_MECHNB_NEEDS = r"""
% What mechnb's export needs, each only when the paper did not load it already
\makeatletter
\@ifpackageloaded{amsmath}{}{\usepackage{amsmath}}
\@ifpackageloaded{amssymb}{}{\usepackage{amssymb}}
\@ifpackageloaded{amsthm}{}{\@ifundefined{proof}{\usepackage{amsthm}}{}}
\providecommand{\theoremstyle}[1]{}% a class with its own proof (llncs) and no amsthm
\@ifpackageloaded{graphicx}{}{\usepackage{graphicx}}
\@ifpackageloaded{booktabs}{}{\usepackage{booktabs}}
\@ifpackageloaded{xcolor}{}{\usepackage{xcolor}}
\@ifpackageloaded{tcolorbox}{}{\usepackage{tcolorbox}}
\@ifpackageloaded{natbib}{}{\usepackage[round]{natbib}}
\makeatother
((( extra_packages )))
\makeatletter
\@ifpackageloaded{hyperref}{}{\usepackage[hidelinks]{hyperref}}
\@ifpackageloaded{cleveref}{}{\usepackage[capitalise,noabbrev]{cleveref}}
\makeatother
\ifdefined\mechstrikebox\else\newsavebox{\mechstrikebox}\fi
\providecommand{\mechstrike}[1]{\sbox{\mechstrikebox}{#1}\leavevmode\rlap{\rule[0.55ex]{\wd\mechstrikebox}{0.4pt}}\usebox{\mechstrikebox}}
((( environments )))

\title{((( title )))}
\author{((( authors )))}
\date{}

\begin{document}
\maketitle
((( abstract )))
((( body )))
((( bibliography )))
((( appendix )))
\end{document}
"""
"""The end of an imported paper's template: after the paper's own preamble."""


def template_text(paper: LatexPaper, available: set[str] | None = None) -> str:
    """The paper's own preamble as the author wrote it — its ``\\documentclass`` line, packages,
    definitions (``\\def`` stays ``\\def``), theorem declarations, with the files it
    ``\\input``s in place — then what mechnb's export needs, each loaded only when the paper did
    not. Left out: the venue style's ``\\usepackage`` (``metadata.mechnb.style`` loads it, with
    its options, so ``--style`` can change the venue) and biblatex (the export's bibliography is
    BibTeX's). ``available`` is unused (kept for callers of the earlier template)."""
    del available
    preamble = paper.source.text[:paper.body_start]
    begin = preamble.rfind("\\begin")
    if begin >= 0:
        preamble = preamble[:begin]
    masked = mask_comments(preamble)
    style = venue_style(paper)
    cut: list[tuple[int, int]] = []
    m = _CLASS_LINE.search(masked)
    head = "\\documentclass{article}\n"
    if m is not None:
        head = preamble[m.start():m.end()].rstrip("\n") + "\n"
        cut.append((0, m.end()))  # comments before the class line go too (a TeX-root line)
    for p in _PREAMBLE_DROPPED.finditer(masked):
        cut.append((p.start(), p.end()))
    if style is not None:
        venue = re.compile(r"\\usepackage\s*(?:\[[^\]]*\])?\s*\{\s*" + re.escape(style["package"])
                           + r"\s*\}[^\n]*")
        cut += [(v.start(), v.end()) for v in venue.finditer(masked)]
    kept: list[str] = []
    pos = 0
    for a, b in sorted(cut):
        if a >= pos:
            kept.append(preamble[pos:a])
            pos = b
    kept.append(preamble[pos:])
    body = "".join(kept).strip("\n")
    # definitions the paper makes in its body (a table file's \newcommand): the cells no longer
    # hold them (the reader leaves them out of the text), so the template does
    in_body = [paper.source.text[a:b] for a, b in _merged(paper.declarations.spans)
               if a >= paper.body_start]
    in_body = [d for d in in_body if not _SUBSTITUTED.match(d)]
    if in_body:
        body += ("\n% Definitions " + paper.source.main.name + " makes in its body\n"
                 + "\n".join(d.strip() for d in in_body))
    if _KERNEL_THEOREMS.search(body) and not _THEOREM_PACKAGE.search(mask_comments(body)):
        # LaTeX's own \newtheorem, then amsthm loaded after it (for mechnb's proofs and
        # styles) breaks every such theorem ("No counter 'Definition' defined"): amsthm
        # goes first, unless the class brings its own proof (llncs)
        head += _AMSTHM_FIRST
    tail = _MECHNB_NEEDS.lstrip("\n")
    if paper.lang == "zh":  # Chinese references and theorem heads, as mechnb's ctexart has them
        tail = tail.replace("((( environments )))", "((( zh_typesetting )))\n((( environments )))")
    return ("% ((( generated_by )))\n% The preamble of " + paper.source.main.name
            + " as its authors wrote it (mechnb import); the export fills in the rest.\n"
            + head + body + "\n" + tail)


_KERNEL_THEOREMS = re.compile(r"^[^%\n]*\\newtheorem(?![A-Za-z@])", re.M)
_THEOREM_PACKAGE = re.compile(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{[^{}]*"
                              r"\b(?:amsthm|ntheorem|thmtools|theorem)\b")
_AMSTHM_FIRST = ("\\makeatletter\\@ifundefined{proof}{\\RequirePackage{amsthm}}{}\\makeatother"
                 "% mechnb: before the paper's \\newtheorem\n")
_SUBSTITUTED = re.compile(r"\\[A-Za-z]+\*?\s*\{?\s*\\begin\b")
"""A definition of an environment-opening macro in the body, which the reader has already
replaced by the environment it opens (``\\newcommand{\\begin{equation}}…``): not carried."""



_LOCAL_KINDS = (".sty", ".cls", ".bst", ".clo", ".cfg")
_REQUIRES = re.compile(r"\\(?:usepackage|RequirePackage|LoadClass|LoadClassWithOptions)\s*"
                       r"(?:\[[^\]]*\])?\s*\{([^{}]*)\}")


def _plan_local_files(paper: LatexPaper, folder: Path, style: dict[str, Any] | None
                      ) -> tuple[dict[Path, bytes], list[str]]:
    """The paper's own files that TeX reads besides its text — style, class and BibTeX style
    files in the paper's folder that the preamble (or a copied style) loads, and input files
    kept as ``\\input`` (generated graphics) — to copy next to the notebook, and the names that
    go in ``metadata.mechnb.files`` (the venue style's files travel with the style instead)."""
    base = paper.source.main.parent
    writes: dict[Path, bytes] = {}
    names: list[str] = []
    wanted: list[str] = []
    cls = paper.document_class
    if cls is not None:
        wanted.append(cls[0] + ".cls")
    wanted += [name + ".sty" for name, _opts in paper.packages]
    if style is not None and style.get("bibliography_style"):  # the one the export uses
        wanted.append(style["bibliography_style"] + ".bst")
    managed = set()
    if style is not None and style.get("package"):
        managed.add(style["package"] + ".sty")
    if style is not None and style.get("bibliography_style"):
        managed.add(style["bibliography_style"] + ".bst")
    if style is not None and style.get("class"):
        managed.add(style["class"] + ".cls")
    seen: set[str] = set()
    while wanted:
        name = wanted.pop(0).strip()
        if name in seen or not name or "/" in name or "\\" in name or name.startswith("."):
            continue
        seen.add(name)
        if not (base / name).is_file() or (name not in managed and texlive_has(name)):
            continue  # TeX Live's own copy serves (a venue's bundled natbib.sty, fancyhdr.sty)
        _path, data, why = read_in_paper(base, name)
        if data is None:
            paper.problems.append(Problem("file-refused", f"{name} {why}; it is not copied"))
            continue
        text = data.decode("utf-8", "replace")
        for m in _REQUIRES.finditer(mask_comments(text)):
            ext = ".cls" if m.group(0).lstrip("\\").startswith("LoadClass") else ".sty"
            wanted += [n.strip() + ext for n in m.group(1).split(",")]
        if base.resolve() != folder.resolve():
            writes[folder / name] = data
        if name not in managed:
            names.append(name)
    for kept in paper.source.kept:
        rel = _relative(kept, base)
        if rel is None:
            continue
        _path, data, why = read_in_paper(base, rel)
        if data is None:
            paper.problems.append(Problem("file-refused", f"{rel} {why}; it is not copied"))
            continue
        if base.resolve() != folder.resolve():
            writes[folder / rel] = data
        names.append(rel)
    return writes, names


@cache
def texlive_has(name: str) -> bool:
    """Whether TeX Live has the file ``name`` (asked from an empty folder, so a copy next to
    the paper does not count)."""
    import shutil
    import subprocess
    import tempfile

    exe = shutil.which("kpsewhich")
    if exe is None:
        return False
    with tempfile.TemporaryDirectory() as empty:
        try:
            proc = subprocess.run([exe, name], capture_output=True, text=True, timeout=30,
                                  check=False, stdin=subprocess.DEVNULL, cwd=empty)
        except (OSError, subprocess.SubprocessError):
            return False
    return proc.returncode == 0 and bool(proc.stdout.strip())


def _relative(path: Path, base: Path) -> str | None:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except (OSError, ValueError):
        return None


DEBIAN_PACKAGE = {
    **dict.fromkeys(("bbm.sty", "dsfont.sty", "newtxmath.sty", "newtxtext.sty", "libertine.sty",
                     "inconsolata.sty", "zi4.sty", "fontawesome.sty", "fontawesome5.sty",
                     "mathabx.sty", "bbding.sty"), "texlive-fonts-extra"),
    **dict.fromkeys(("algorithm.sty", "algorithmic.sty", "algpseudocode.sty", "algorithmicx.sty",
                     "algorithm2e.sty", "siunitx.sty", "stmaryrd.sty", "nicematrix.sty",
                     "apxproof.sty", "pythonhighlight.sty"), "texlive-science"),
    **dict.fromkeys(("llncs.cls", "IEEEtran.cls", "acmart.cls", "revtex4-2.cls",
                     "elsarticle.cls", "thuthesis.cls"), "texlive-publishers"),
    **dict.fromkeys(("ulem.sty", "soul.sty", "nth.sty"), "texlive-plain-generic"),
    **dict.fromkeys(("tgpagella.sty", "tgtermes.sty", "tgheros.sty"), "tex-gyre"),
}
"""The Debian package that has a TeX file papers load and a base TeX Live lacks (the files the
shared corpus and fresh papers load, looked up with ``dpkg -c`` of each package; the
texlive-fonts-extra ones, 508 MB, by its TeX Live package names, not downloaded). ``make tex``
installs all of them but texlive-fonts-extra."""


def missing_packages(paper: LatexPaper) -> list[Problem]:
    """The class and packages of the preamble that are neither next to the paper nor in TeX
    Live here: each a problem naming the file and the Debian package that has it."""
    base = paper.source.main.parent
    wanted: list[tuple[str, str]] = []
    if paper.document_class is not None:
        wanted.append(("documentclass", paper.document_class[0] + ".cls"))
    wanted += [("usepackage", name + ".sty") for name, _opts in paper.packages]
    wanted = [(cmd, name) for cmd, name in dict.fromkeys(wanted)
              if re.fullmatch(r"[\w.-]+", name) and not os.path.lexists(base / name)]
    found = texlive_files([name for _cmd, name in wanted])
    out = []
    text = paper.source.text[:paper.body_start]
    for command, name in wanted:
        if name in found:
            continue
        stem = name.rsplit(".", 1)[0]
        m = re.search(r"\\" + command + r"\s*(?:\[[^\]]*\])?\s*\{[^{}]*\b" + re.escape(stem)
                      + r"\b", text)
        debian = DEBIAN_PACKAGE.get(name)
        where = (f"Debian's {debian} has it (apt-get install {debian})" if debian else
                 "copy it next to the paper")
        out.append(Problem("input-not-found", f"\\{command}{{{stem}}}: {name} is neither next "
                           f"to the paper nor in this TeX Live; {where} — TeX stops there, for "
                           "the source as for the export", m.start() if m else None))
    return out


def texlive_files(names: list[str]) -> set[str]:
    """Which of ``names`` TeX Live has (one ``kpsewhich`` from an empty folder)."""
    import shutil
    import subprocess
    import tempfile

    exe = shutil.which("kpsewhich")
    if exe is None or not names:
        return set()
    with tempfile.TemporaryDirectory() as empty:
        try:
            proc = subprocess.run([exe, *names], capture_output=True, text=True, timeout=60,
                                  check=False, stdin=subprocess.DEVNULL, cwd=empty)
        except (OSError, subprocess.SubprocessError):
            return set(names)  # unknown: say nothing
    return {Path(line.strip()).name for line in proc.stdout.splitlines() if line.strip()}


_BIBSTYLE = re.compile(r"\\bibliographystyle\s*\{([^{}]*)\}")


def _bibliography_styles(paper: LatexPaper) -> list[str]:
    text = "\n".join(mask_comments(t) for t in paper.source.texts)  # as written (the reader
    # takes the bibliography commands out of the body)
    return [m.group(1).strip() for m in _BIBSTYLE.finditer(text) if m.group(1).strip()]


def paper_style(paper: LatexPaper) -> dict[str, Any] | None:
    """The paper's class with its options, its venue package with the options it requires and
    its BibTeX style, as ``metadata.mechnb.style`` — each only when TeX can find it (next to the
    paper or in TeX Live); the class is kept even when missing, so the export stops on the same
    missing file as the original, and names it."""
    from ..exporter.styles import kpsewhich

    base = paper.source.main.parent
    style: dict[str, Any] = {}
    cls = paper.document_class
    if cls is not None and re.fullmatch(r"[\w-]+", cls[0]):
        style["class"] = cls[0]
        options = [o.strip() for o in (cls[1] or "").split(",") if o.strip()]
        if options and all(re.fullmatch(r"[\w.=-]+", o) for o in options):
            style["class_options"] = options
    def usable(filename: str) -> bool:  # a safe local copy, or none and TeX Live's
        if os.path.lexists(base / filename):
            return read_in_paper(base, filename)[1] is not None
        return kpsewhich(filename)

    if "class" in style and os.path.lexists(base / (style["class"] + ".cls")) and \
            not usable(style["class"] + ".cls"):
        del style["class"]
        style.pop("class_options", None)
    venue = venue_style(paper)
    if venue is not None and usable(venue["package"] + ".sty"):
        style.update(venue)
    for name in _bibliography_styles(paper)[:1]:
        if re.fullmatch(r"[\w-]+", name) and usable(name + ".bst"):
            refusal = _refused_file(base, name + ".bst")
            if refusal is None:
                style["bibliography_style"] = name
            else:  # the references' look is not worth a refused paper: mechnb's style prints them
                paper.problems.append(Problem("file-refused", f"the bibliography style "
                                              f"{name}.bst has TeX the gate refuses ({refusal}); "
                                              "the notebook's references use mechnb's style "
                                              "(plainnat) instead"))
    return style or None


def _refused_file(base: Path, name: str) -> str | None:
    """What the TeX gate refuses in the paper's own file ``name`` (the first place), if any."""
    from ..tex.gate import judge_document

    if not os.path.lexists(base / name):
        return None  # TeX Live's copy: not judged
    _path, data, _why = read_in_paper(base, name)
    if data is None:
        return "it cannot be read safely"
    verdict = judge_document("", [], {name: data})
    if not verdict.refused:
        return None
    first = verdict.refused[0]
    return f"`{first.snippet}` {first.reason}"


def import_latex(source: str | Path, output: str | Path | None = None, *,
                 force: bool = False, record_trust: bool = False) -> ImportResult:
    """Import the LaTeX paper at ``source`` into a notebook (default: next to its main file).

    What needs review is in ``ImportResult.review``; ``record_trust`` approves it at once (as
    ``mechnb import --yes``), else nothing is approved (``approve_import`` does it later)."""
    from ..checker import dangerous_tex
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
    paper.problems.extend(missing_packages(paper))
    template = template_text(paper)
    template_name = f"{stem}.template.tex"
    writes[folder / template_name] = template.encode("utf-8")
    style = paper_style(paper)
    local, local_names = _plan_local_files(paper, folder, style)
    writes.update(local)
    imported = build_notebook(paper, bib_name)
    mech: dict[str, Any] = imported.notebook["metadata"]["mechnb"]
    mech["template"] = template_name
    mech["engine"] = engine_for(paper)
    if style is None:
        mech.pop("style", None)
    else:
        mech["style"] = style
    if local_names:
        mech["files"] = local_names
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
    result.findings += _in_their_files([remap(f, imported) for f in refused],
                                       paper.source.main.parent, folder)
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


_IN_FILE = re.compile(r"the (?:style file|file) ([^:`]+): `([^`]*)`")


def _in_their_files(findings: list[Finding], base: Path, folder: Path) -> list[Finding]:
    """Findings the gate made in a judged file (a venue style the paper ships, a generated
    figure) placed at that file's line and column — in the paper's folder, or the copy next to
    the notebook — rather than at the line that loads it."""
    out: list[Finding] = []
    texts: dict[str, tuple[Path, str] | None] = {}
    searched: dict[tuple[str, str], int] = {}
    for f in findings:
        m = _IN_FILE.search(f.message)
        if m is None:
            out.append(f)
            continue
        name, snippet = m.group(1).strip(), m.group(2).rstrip("…")
        if name not in texts:
            texts[name] = None
            for where in (base, folder):
                _path, data, _why = read_in_paper(where, name)
                if data is not None:
                    texts[name] = (where / name, data.decode("utf-8", "replace"))
                    break
        found = texts[name]
        at = found[1].find(snippet, searched.get((name, snippet), 0)) if found and snippet \
            else -1
        if found is None or at < 0:
            out.append(f)
            continue
        searched[(name, snippet)] = at + 1
        line = found[1].count("\n", 0, at) + 1
        column = at - (found[1].rfind("\n", 0, at) + 1) + 1
        out.append(replace(f, file=str(found[0]), line=line, column=column))
    return out


def approve_import(result: ImportResult) -> int:
    """Record what ``result`` lists for review as approved for this user, with the function
    every approval uses (``mechnb.tex.trust.approve``); refused constructs are not in the list.
    Returns how many items were new; raises ``trust.TrustRecordError`` (an ``OSError``) when
    the record cannot be written."""
    from ..tex.trust import approve

    result.approved = approve(result.review, str(result.notebook_path.resolve()))
    return result.approved
