"""``%mech lens --kind <lens>``: a lens cell filled from the catalog (``data/lenses.json``).

The lens cell proposes the perspective in the paper's language, says what it reveals and cites
the lens's canonical papers; a ``note`` cell after it (never exported) suggests the follow-up
experiment that closes the lens's loop, with the ``%mech validate`` line that inserts it, and
lists the lens's known pitfalls and references.

The cited papers go into the notebook's bibliography: the first ``.bib`` that
``metadata.mechnb.bibliography`` names (created when missing), else ``references.bib`` next to the
notebook. Only keys the file lacks are appended; an entry the user already has under the same key
is never touched. An unknown lens id is answered with the nearest ids (``suggest_lens_ids``).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..cellspec import CellSpec
from ..errors import UsageError
from ..notebook import role_metadata
from .index import fold
from .library import load_library
from .model import Lens, Reference

CiteStyle = Literal["latex", "pandoc"]

DEFAULT_BIB = "references.bib"
"""The bibliography written next to a notebook that names none."""

_NOTE = {
    "en": ("**Follow-up experiment (closes the {name} lens).** {validation}\n\n"
           "Quantities to measure: {measures}.\n\n"
           "Insert it with `%mech validate {target} --kind {kind}` once the statement it "
           "validates has a label."),
    "zh": ("**后续实验（为{name}视角闭环）。**{validation}\n\n"
           "需要测量的量：{measures}。\n\n"
           "待所验证的命题有了标签后，用 `%mech validate {target} --kind {kind}` 插入该实验。"),
}
_PITFALLS = {"en": "**Known pitfalls.** {pitfalls}", "zh": "**常见陷阱。**{pitfalls}"}
_REFERENCES = {"en": "**Canonical papers** (cited in the lens cell): {refs}.",
               "zh": "**经典文献**（已在视角单元格中引用）：{refs}。"}
_READING = {"en": "**Also worth reading** (no arXiv id or DOI, so not added to the bibliography): "
                  "{refs}.",
            "zh": "**延伸阅读**（没有 arXiv 编号或 DOI，未加入参考文献库）：{refs}。"}
_CITES = {"en": "Canonical references: {cite}.", "zh": "经典文献：{cite}。"}


def lens_ids() -> list[str]:
    """The ids of the lens catalog, in catalog order."""
    return [lens.id for lens in load_library().lenses]


def get_lens(lens_id: str) -> Lens | None:
    """The catalog lens ``lens_id``, or ``None``."""
    return next((lens for lens in load_library().lenses if lens.id == lens_id), None)


def suggest_lens_ids(query: str, limit: int = 3) -> list[str]:
    """The catalog ids nearest to ``query``: close spellings of an id or a name (difflib), then
    lenses whose id or name contains the query (``acdc``, ``patching``), best first."""
    q = fold(query).strip().replace(" ", "-")
    if not q:
        return []
    lenses = load_library().lenses
    names: dict[str, str] = {}
    for lens in lenses:
        names.setdefault(lens.id, lens.id)
        for name in lens.name.values():
            names.setdefault(fold(name).replace(" ", "-"), lens.id)
    out: list[str] = []
    for match in difflib.get_close_matches(q, list(names), n=limit * 3, cutoff=0.6):
        if names[match] not in out:
            out.append(names[match])
    if len(out) < limit:
        words = [w for w in q.split("-") if len(w) >= 3]
        for lens in lenses:
            text = fold(" ".join([lens.id, *lens.name.values()]))
            if lens.id not in out and words and all(w in text for w in words):
                out.append(lens.id)
    return out[:limit]


def unknown_lens_message(lens_id: str, prog: str = "%mech lens") -> str:
    """``unknown lens 'x'; did you mean …?`` with the nearest ids, and where the catalog is."""
    near = suggest_lens_ids(lens_id)
    if near:
        return (f"{prog}: unknown lens '{lens_id}'; did you mean "
                f"{' or '.join(repr(n) for n in near)}? (`mechnb lenses` lists the "
                f"{len(lens_ids())} lenses of the catalog)")
    return (f"{prog}: unknown lens '{lens_id}'; no lens id is close to it; the catalog has "
            f"{', '.join(lens_ids())}")


def require_lens(lens_id: str, prog: str = "%mech lens") -> Lens:
    """The catalog lens ``lens_id``; a ``UsageError`` naming the nearest ids otherwise."""
    lens = get_lens(lens_id)
    if lens is None:
        raise UsageError(unknown_lens_message(lens_id, prog))
    return lens


def citation(keys: list[str], style: CiteStyle = "latex") -> str:
    """``\\citep{a,b}``, or pandoc ``[@a; @b]``."""
    if style == "pandoc":
        return "[" + "; ".join(f"@{k}" for k in keys) + "]"
    return "\\citep{" + ",".join(keys) + "}"


def lens_cells(lens_id: str, *, lang: str = "en", label: str | None = None,
               title: str | None = None, cite: CiteStyle | None = "latex") -> list[CellSpec]:
    """The lens cell for catalog lens ``lens_id`` and the note suggesting its closing experiment
    (with its pitfalls and papers). ``cite`` None leaves the citations out of the lens cell."""
    lens = require_lens(lens_id)
    lang = "zh" if lang == "zh" else "en"
    source = f"{lens.phrase[lang]}\n\n{lens.description[lang]}"
    keys = lens.cite_keys()
    if cite and keys:
        source += "\n\n" + _CITES[lang].format(cite=citation(keys, cite))
    lens_cell = CellSpec("markdown", source, role_metadata(
        "lens", label=label, title=title or lens.name[lang], kind=lens.id))
    note = _NOTE[lang].format(name=lens.name[lang], validation=lens.closing_validation[lang],
                              measures=lens.measures[lang],
                              target="thm:[main]", kind=lens.validation_kind)
    if lens.pitfalls:
        note += "\n\n" + _PITFALLS[lang].format(pitfalls=lens.pitfalls[lang])
    sep = "; " if lang == "en" else "；"
    refs = [r for r in lens.references if r.key in keys]
    if refs:
        note += "\n\n" + _REFERENCES[lang].format(
            refs=sep.join(f"`{r.key}` — {r.short()}" for r in refs))
    others = [r for r in lens.references if r.key not in keys]
    if others:
        note += "\n\n" + _READING[lang].format(
            refs=sep.join(f"{r.short()}, {r.venue}" for r in others))
    return [lens_cell, CellSpec("markdown", note, role_metadata("note"))]


def lens_bibtex(lenses: list[Lens]) -> str:
    """The BibTeX entries of ``lenses``' insertable references, each key once."""
    seen: set[str] = set()
    out = []
    for lens in lenses:
        for ref in lens.references:
            if ref.key in lens.cite_keys() and ref.key not in seen:
                seen.add(ref.key)
                out.append(ref.bibtex())
    return "\n".join(out)


@dataclass(frozen=True)
class BibUpdate:
    """What inserting a lens did to the notebook's bibliography."""

    path: Path | None
    """The .bib written (or that already held every key); None when there was nowhere to write."""
    added: tuple[str, ...] = ()
    present: tuple[str, ...] = ()
    """Keys already in the file (their entries left as they were)."""
    named: bool = True
    """False when the notebook names no bibliography and ``references.bib`` was used."""
    problem: str = ""
    """Why nothing was written (no notebook file, a path outside its folder, an I/O error)."""
    bibtex: str = ""
    """The entries, for copying by hand when nothing was written."""

    def __repr__(self) -> str:
        if self.path is None:
            return (f"mechnb: the lens's papers were not added to a bibliography ({self.problem});"
                    f" copy these entries into your .bib:\n\n{self.bibtex}")
        parts = []
        if self.added:
            parts.append(f"added {', '.join(self.added)} to {self.path.name}")
        if self.present:
            parts.append(f"{', '.join(self.present)} already in {self.path.name} (kept as is)")
        text = "mechnb: " + "; ".join(parts or [f"nothing to add to {self.path.name}"])
        if not self.named:
            text += (f". The notebook names no bibliography: set metadata.mechnb.bibliography to "
                     f"\"{self.path.name}\" (Notebook metadata) so the citations resolve")
        return text


def citation_style(raw: Any) -> CiteStyle:
    """``pandoc`` when the notebook cites only with ``[@key]``, else ``latex`` (``\\citep``)."""
    cells = raw.get("cells") if isinstance(raw, dict) else None
    texts = []
    for cell in cells if isinstance(cells, list) else []:
        src = cell.get("source") if isinstance(cell, dict) else None
        texts.append("".join(src) if isinstance(src, list) else src if isinstance(src, str)
                     else "")
    text = "\n".join(texts)
    return "pandoc" if "[@" in text and "\\cite" not in text else "latex"


def _bib_target(notebook: Path, value: str | None) -> tuple[Path | None, bool, str]:
    """(path, named, problem): the .bib the lens's entries go to."""
    from ..checker.bib import bibliography_paths
    from ..paper_paths import resolve_in_folder

    named = bool(value and value.strip(" ,"))
    paths = bibliography_paths(value, notebook) if named and value else [notebook.parent /
                                                                         DEFAULT_BIB]
    if not paths:
        return None, named, f"metadata.mechnb.bibliography = {value!r} names no .bib file"
    target, why = resolve_in_folder(notebook.parent, str(paths[0]))
    if target is None:
        return None, named, f"{paths[0].name} {why}"
    if target.suffix == ".bbl":
        return None, named, f"{target.name} is a formatted .bbl, not a .bib"
    return target, named, ""


def add_references(notebook: Path | None, lenses: list[Lens]) -> BibUpdate:
    """Append the missing entries of ``lenses``' papers to the notebook's bibliography."""
    from ..checker.bib import bib_keys_from_text
    from ..errors import MechnbError
    from ..notebook import read_paper

    refs: dict[str, Reference] = {}
    for lens in lenses:
        refs.update({r.key: r for r in lens.references if r.key in lens.cite_keys()})
    bibtex = "\n".join(r.bibtex() for r in refs.values())
    if notebook is None:
        return BibUpdate(None, problem="the kernel does not know the notebook's file",
                         bibtex=bibtex)
    try:
        value = read_paper(notebook).meta.bibliography
    except MechnbError as exc:
        return BibUpdate(None, problem=f"the notebook cannot be read ({exc})", bibtex=bibtex)
    path, named, problem = _bib_target(notebook, value)
    if path is None:
        return BibUpdate(None, named=named, problem=problem, bibtex=bibtex)
    try:
        old = path.read_text("utf-8") if path.exists() else ""
        have = bib_keys_from_text(old)
        missing = [r for k, r in refs.items() if k not in have]
        if missing:
            lead = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n")
                                                               else "\n\n")
            with open(path, "a", encoding="utf-8", newline="\n") as f:
                f.write(lead + "\n".join(r.bibtex() for r in missing))
                f.flush()
                os.fsync(f.fileno())
    except (OSError, UnicodeDecodeError) as exc:
        return BibUpdate(None, named=named, problem=f"{path.name} cannot be written ({exc})",
                         bibtex=bibtex)
    return BibUpdate(path, added=tuple(r.key for r in missing),
                     present=tuple(k for k in refs if k in have), named=named)


@dataclass(frozen=True)
class LensInsertion:
    """The cells of ``%mech lens --kind`` and what happened to the bibliography."""

    cells: list[CellSpec]
    bib: BibUpdate


def lens_insertion(shell: Any, lens_id: str, *, lang: str = "en", label: str | None = None,
                   title: str | None = None) -> LensInsertion:
    """The lens cells, citing in the notebook's syntax, with the papers added to its .bib."""
    import contextlib
    import json

    from ..kernel.context import notebook_path

    lens = require_lens(lens_id)
    path = notebook_path(shell)
    style: CiteStyle = "latex"
    if path is not None:
        with contextlib.suppress(OSError, ValueError):
            style = citation_style(json.loads(path.read_text("utf-8")))
    bib = add_references(path, [lens])
    return LensInsertion(lens_cells(lens.id, lang=lang, label=label, title=title, cite=style),
                         bib)
