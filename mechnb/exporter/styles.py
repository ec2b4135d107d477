"""Venue styles: ``metadata.mechnb.style`` / ``--style`` → document class, style package, files.

A style names a document class and/or a style package with options, e.g.
``{"class": "article", "package": "neurips_2025", "options": ["preprint"]}``. A ``.sty``/``.cls``
(and the ``.bst`` of ``bibliography_style``) lying in the notebook's folder is used and copied
next to the ``.tex`` (so bundles carry it); otherwise the name must be known to TeX Live
(``kpsewhich``). mechnb ships no third-party style files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import ExportError
from ..findings import Finding
from ..paper_paths import read_regular, resolve_in_folder
from .codes import export_finding

STYLE_KEYS = ("class", "class_options", "package", "options", "bibliography_style")
"""The keys a style object may have."""
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_COMPACT_RE = re.compile(r"\s*([^\[\]\s]+)\s*(?:\[([^\]]*)\])?\s*")
_OPTION_RE = re.compile(r"[A-Za-z0-9_.:=+ -]*")
"""What a class or package option may hold: words, ``key=value``, sizes. Nothing that ends the
option list or starts a command (``] } \\ %``): an option is written into the preamble as is."""


@dataclass(frozen=True)
class Style:
    """A venue style: which class and package replace the template's defaults."""

    document_class: str | None = None
    """Replaces the template's ``\\documentclass`` (``None``: keep it)."""
    class_options: tuple[str, ...] = ()
    package: str | None = None
    """Loaded instead of the template's ``geometry`` line."""
    options: tuple[str, ...] = ()
    """Options of the package."""
    bibliography_style: str | None = None
    """``\\bibliographystyle`` (default ``plainnat``)."""

    @property
    def spec(self) -> str:
        """This style as ``--style`` takes it (a JSON object)."""
        value: dict[str, Any] = {"class": self.document_class, "class_options":
                                 list(self.class_options), "package": self.package,
                                 "options": list(self.options),
                                 "bibliography_style": self.bibliography_style}
        return json.dumps({k: v for k, v in value.items() if v}, separators=(",", ":"))


@dataclass
class StyleFiles:
    """What resolving a style found: files to copy next to the ``.tex`` and problems."""

    files: dict[str, bytes] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


class StyleError(ExportError):
    """A ``--style`` argument mechnb cannot read."""


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value)
    return None


def _plain_options(key: str, options: tuple[str, ...], problems: list[str]) -> tuple[str, ...]:
    """``options`` without those that are not plain (``_OPTION_RE``), each one a problem."""
    for option in options:
        if not _OPTION_RE.fullmatch(option):
            problems.append(f"style {key} {option[:60]!r} may only hold letters, digits, spaces "
                            "and _ . : = + -; it is ignored")
    return tuple(o for o in options if _OPTION_RE.fullmatch(o))


def parse_style(value: Mapping[str, Any] | str | None) -> tuple[Style | None, list[str]]:
    """The style of ``metadata.mechnb.style`` (or ``--style``), and what is wrong with it.

    A string is compact: ``neurips_2025[preprint]`` (a package), ``jmlr.cls[twoside]`` (a class)
    or a JSON object.
    """
    if value is None:
        return None, []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("{"):
            try:
                loaded = json.loads(text)
            except ValueError as exc:
                return None, [f"style {text!r} is not valid JSON ({exc})"]
            if not isinstance(loaded, dict):
                return None, [f"style {text!r} must be a JSON object"]
            return parse_style(loaded)
        m = _COMPACT_RE.fullmatch(text)
        if not m:
            return None, [f"style {text!r} should look like name[option,option] or name.cls"]
        name, opts = m.group(1), tuple(o.strip() for o in (m.group(2) or "").split(",")
                                       if o.strip())
        if not _NAME_RE.fullmatch(name.removesuffix(".cls").removesuffix(".sty")):
            return None, [f"style {text[:60]!r} must name a file without folders (a file in "
                          "the notebook's folder or a TeX Live name)"]
        problems: list[str] = []
        if name.endswith(".cls"):
            opts = _plain_options("class_options", opts, problems)
            return Style(document_class=name[:-4], class_options=opts), problems
        opts = _plain_options("options", opts, problems)
        return Style(package=name.removesuffix(".sty"), options=opts), problems
    problems = [f"style key {k!r} is unknown (known: {', '.join(STYLE_KEYS)}); it is ignored"
                for k in value if k not in STYLE_KEYS]
    names: dict[str, str | None] = {}
    for key in ("class", "package", "bibliography_style"):
        raw = value.get(key)
        if raw is None:
            names[key] = None
        elif isinstance(raw, str) and _NAME_RE.fullmatch(raw.removesuffix(".cls")
                                                         .removesuffix(".sty")
                                                         .removesuffix(".bst")):
            names[key] = raw.removesuffix(".cls").removesuffix(".sty").removesuffix(".bst")
        else:
            names[key] = None
            problems.append(f"style {key} {raw!r} must be a file name without folders (a "
                            "file in the notebook's folder or a TeX Live name); it is ignored")
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("class_options", "options"):
        raw_list = _strings(value.get(key, []))
        if raw_list is None:
            problems.append(f"style {key} must be a list of strings; it is ignored")
        lists[key] = _plain_options(key, raw_list or (), problems)
    if not names["class"] and not names["package"]:
        problems.append("style names neither a class nor a package")
        return None, problems
    return Style(document_class=names["class"], class_options=lists["class_options"],
                 package=names["package"], options=lists["options"],
                 bibliography_style=names["bibliography_style"]), problems


def parse_style_argument(text: str) -> Style:
    """``--style``: like ``metadata.mechnb.style``; any problem is an error."""
    style, problems = parse_style(text)
    if problems or style is None:
        raise StyleError(f"--style {text!r}: {problems[0] if problems else 'no style'}")
    return style


def kpsewhich(name: str) -> bool:
    """Whether TeX Live knows the file ``name`` (``neurips_2025.sty``, ``jmlr.cls``)."""
    return kpsewhich_path(name) is not None


@cache
def kpsewhich_path(name: str) -> str | None:
    """Where TeX Live keeps the file ``name``, or None."""
    exe = shutil.which("kpsewhich")
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, name], capture_output=True, text=True, timeout=30,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    found = proc.stdout.strip().splitlines()
    return found[0] if proc.returncode == 0 and found else None


_NUMERIC_BST = re.compile(r'"\\bibitem\{"')
_LABELLED_BST = re.compile(r'"\\bibitem\[')
_NUMERIC_BBL = re.compile(r"^[ \t]*\\bibitem\s*\{", re.M)
_LABELLED_BBL = re.compile(r"\\bibitem\s*\[")


def numeric_bibliography(bibliography: str, bibliography_style: str,
                         base_dir: Path | None) -> bool:
    """Whether the references come out as ``\\bibitem{key}`` with no author-year label — a
    numeric BibTeX style (``plain``, ``unsrt``, ``ieeetr``, ``IEEEtran``…) or a ``.bbl`` one
    wrote — which natbib reads only in its ``numbers`` mode (in author-year mode it stops:
    "Bibliography not compatible with author-year citations")."""
    if bibliography.endswith(".bbl"):
        text = _read_text(_local_file(base_dir, bibliography))
        return bool(text and _NUMERIC_BBL.search(text) and not _LABELLED_BBL.search(text))
    local = _local_file(base_dir, bibliography_style + ".bst")
    if local is None:
        found = kpsewhich_path(bibliography_style + ".bst")
        local = Path(found) if found else None
    text = _read_text(local)
    return bool(text and _NUMERIC_BST.search(text) and not _LABELLED_BST.search(text))


def _read_text(path: Path | str | None) -> str | None:
    """The text of a file ``_local_file`` or ``kpsewhich_path`` found (a ``str`` is its message
    about a link out of the folder: nothing is read)."""
    if not isinstance(path, Path):
        return None
    try:
        return read_regular(path).decode("utf-8", "replace")
    except OSError:
        return None


_WHERE = {"cls": "class", "sty": "style package", "bst": "bibliography style"}


def _local_file(base_dir: Path | None, filename: str) -> Path | str | None:
    """The file in the notebook's folder; a message if it leads outside; ``None`` if absent."""
    if base_dir is None:
        return None
    path = base_dir / filename
    if not os.path.lexists(path):
        return None
    resolved, _why = resolve_in_folder(base_dir, filename)
    if resolved is None:
        return (f"{filename} in the notebook's folder points outside it (a link); copy the "
                "file itself next to the notebook")
    return resolved if resolved.is_file() or resolved.is_fifo() else None


def resolve_style(style: Style, base_dir: Path | None) -> StyleFiles:
    """Find the style's files: local copies are read (to go next to the ``.tex``), TeX Live
    names are checked with ``kpsewhich``; anything missing is a finding."""
    out = StyleFiles()
    wanted = [(style.document_class, "cls"), (style.package, "sty"),
              (style.bibliography_style, "bst")]
    for name, ext in wanted:
        if not name:
            continue
        filename = f"{name}.{ext}"
        local = _local_file(base_dir, filename)
        if isinstance(local, str):
            out.findings.append(export_finding("style-outside-notebook-folder", local))
            continue
        if local is not None:
            try:
                out.files[filename] = read_regular(local)
            except OSError as exc:
                out.findings.append(export_finding(
                    "style-not-found", f"cannot read {local}: {exc.strerror or exc}"))
            continue
        if not kpsewhich(filename):
            out.findings.append(export_finding(
                "style-not-found",
                f"the {_WHERE[ext]} {filename} is neither in the notebook's folder nor in TeX "
                f"Live; download it from the venue and put it next to the notebook"))
    return out


_DOCUMENTCLASS_RE = re.compile(r"^\\documentclass(?:\[[^\]\n]*\])?\{[^}\n]*\}", re.M)
_CLASS_PARTS_RE = re.compile(r"\\documentclass(?:\[([^\]\n]*)\])?\{([^}\n]*)\}")
_GEOMETRY_RE = re.compile(r"^\\usepackage(?:\[[^\]\n]*\])?\{geometry\}[^\n]*\n", re.M)


_BIBSTYLE_ASIDE = ("\\let\\mechnbBibliographyStyle\\bibliographystyle"
                   "\\renewcommand{\\bibliographystyle}[1]{}% the export names the BibTeX style\n")
_BIBSTYLE_BACK = "\\let\\bibliographystyle\\mechnbBibliographyStyle\n"


def _with_options(command: str, options: tuple[str, ...], name: str) -> str:
    return f"\\{command}" + (f"[{','.join(options)}]" if options else "") + "{" + name + "}"


def apply_style(template: str, style: Style) -> str:
    """``template`` with the style's class and package instead of its own class and geometry.

    The package takes the place of the geometry line (after the font set-up, so the venue's
    fonts win); a template without one gets it right after ``\\documentclass``.
    """
    m = _DOCUMENTCLASS_RE.search(template)
    if m is None:
        raise StyleError("the template has no \\documentclass line for the style to replace")
    own = _CLASS_PARTS_RE.match(m.group(0))
    if not style.package and own is not None and own.group(2).strip() == style.document_class \
            and [o.strip() for o in (own.group(1) or "").split(",") if o.strip()] == \
            list(style.class_options):
        return template  # the template has this class already (an imported paper's preamble)
    if style.document_class:
        line = _with_options("documentclass", style.class_options, style.document_class)
        template = template[:m.start()] + line + template[m.end():]
    # a venue package may name its own BibTeX style (ACL's acl.sty does): BibTeX stops at a
    # second \bibstyle, so the style the export writes at the bibliography must be the only one
    package = (_BIBSTYLE_ASIDE + _with_options("usepackage", style.options, style.package)
               + "\n" + _BIBSTYLE_BACK if style.package else "")
    g = _GEOMETRY_RE.search(template)
    if g is not None:
        return template[:g.start()] + package + template[g.end():]
    if not package:
        return template
    m = _DOCUMENTCLASS_RE.search(template)
    assert m is not None
    end = template.index("\n", m.end()) + 1
    return template[:end] + package + template[end:]
