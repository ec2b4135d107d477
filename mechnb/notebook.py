"""Read an annotated notebook into ``Paper``/``Cell`` records, without importing nbformat.

The notebook JSON is read directly (``import nbformat`` costs about a second, see DESIGN.md §6);
malformed role metadata becomes ``Finding`` records instead of exceptions, and the input dict is
never mutated.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import NotebookReadError
from .findings import Finding, Severity
from .lazyre import lazy
from .roles import IGNORE_TAG_PREFIX, TAG_PREFIX, get_role, suggest_role

PAPER_TYPES = ("expressivity", "dynamics", "failure")
LANGS = ("en", "zh")
CELL_FIELDS: dict[str, type | tuple[type, ...]] = {
    "role": str, "label": str, "title": str, "validates": list, "caption": str, "kind": str,
}
PAPER_FIELDS: dict[str, type | tuple[type, ...]] = {
    "title": str, "authors": list, "lang": str, "paper_type": str, "bibliography": str,
    "template": str, "checks": dict, "engine": str, "style": (dict, str),
    "keywords": list, "title_en": str, "abstract_en": str, "files": list, "preamble": str,
}
EXPERIMENT_KINDS = ("controlled", "real-model", "intervention", "ablation")
AUTHOR_LINES = ("affiliation", "email")
"""Fields of an author object (``{"name", "affiliation", "email"}``) printed under the name."""
TEX_ENGINES = ("pdflatex", "xelatex", "lualatex")
"""TeX engines ``metadata.mechnb.engine`` / ``--engine`` may name (see ``exporter/engines.py``)."""
DEFAULT_ENGINES = {"en": "pdflatex", "zh": "xelatex"}
"""By language: English sources go to arXiv/venues as they are; ctex is at home in XeLaTeX."""

# Codes of the findings produced while reading (the checker's rules use other codes).
FORMAT_FINDINGS = {
    "unknown-role": ("MECH901", Severity.ERROR),
    "malformed-cell-metadata": ("MECH902", Severity.WARNING),
    "malformed-notebook-metadata": ("MECH903", Severity.WARNING),
    "duplicate-label": ("MECH904", Severity.ERROR),
    "conflicting-role": ("MECH905", Severity.WARNING),
    "upgraded-nbformat": ("MECH035", Severity.INFO),
}

_LATIN_RE = lazy(r"[A-Za-z]")
CJK_WEIGHT = 3
"""Latin letters one CJK character counts for when the language is guessed."""
CJK_SHARE = 0.8
"""Weighted CJK over Latin letters from which an undeclared paper is Chinese."""
CJK_RE = lazy(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")
"""Chinese, Japanese or Korean text (ideographs, kana, hangul, full-width forms)."""
HANGUL_RE = lazy(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
"""Korean letters: no font of pdfLaTeX's CJK (Arphic) or of ctex's default (Fandol) has them."""
KANA_RE = lazy(r"[\u3040-\u30ff\u31f0-\u31ff]")
"""Japanese kana: Fandol has them but not in Japanese shapes; Noto CJK JP does."""
SCRIPT_FONTS = {"Korean (Hangul)": (HANGUL_RE, "KR"), "Japanese (kana)": (KANA_RE, "JP")}
"""A script the default CJK fonts lack → the Noto CJK region its text is set in."""


def script_region(text: str) -> str | None:
    """The Noto CJK region (``KR``, ``JP``) the text of ``text`` needs, or ``None``."""
    for pattern, region in SCRIPT_FONTS.values():
        if pattern.search(text):
            return region
    return None


@dataclass(frozen=True)
class Cell:
    """One notebook cell, with its role information already read and validated."""

    index: int
    """0-based position in the notebook."""
    cell_type: str
    """``markdown``, ``code`` or ``raw``."""
    source: str
    """The cell source as one string."""
    id: str | None = None
    """The nbformat cell id (nbformat ≥ 4.5), if any."""
    role: str | None = None
    """The role, from ``metadata.mechnb.role`` or a ``mech:<role>`` tag; ``None`` if unknown."""
    label: str | None = None
    """``metadata.mechnb.label``."""
    title: str | None = None
    """``metadata.mechnb.title``."""
    validates: tuple[str, ...] = ()
    """``metadata.mechnb.validates``: labels this cell supports."""
    caption: str | None = None
    """``metadata.mechnb.caption``."""
    kind: str | None = None
    """``metadata.mechnb.kind`` (``intervention``, ``controlled``…)."""
    tags: tuple[str, ...] = ()
    """All cell tags."""
    outputs: tuple[Mapping[str, Any], ...] = ()
    """Outputs of a code cell, as stored."""
    execution_count: int | None = None
    """Execution count of a code cell, if it ran."""
    attachments: Mapping[str, Any] = field(default_factory=dict)
    """Markdown attachments (``attachment:`` images)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """The raw cell metadata (read-only by convention)."""

    @property
    def ignored_rules(self) -> frozenset[str]:
        """Rule codes or names suppressed for this cell with ``mech-ignore:<code>`` tags."""
        n = len(IGNORE_TAG_PREFIX)
        return frozenset(t[n:] for t in self.tags if t.startswith(IGNORE_TAG_PREFIX))

    @property
    def is_markdown(self) -> bool:
        """True for markdown cells."""
        return self.cell_type == "markdown"


@dataclass(frozen=True)
class PaperMeta:
    """Notebook-level ``metadata.mechnb``."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    affiliations: tuple[tuple[str, ...], ...] = ()
    """Per author, the lines under the name (``affiliation``, ``email`` of an author object)."""
    lang: str | None = None
    """``en`` or ``zh`` as declared; see ``Paper.lang`` for the effective language."""
    paper_type: str | None = None
    bibliography: str | None = None
    template: str | None = None
    checks: Mapping[str, Any] = field(default_factory=dict)
    """Per-notebook rule configuration (same keys as ``[tool.mechnb]``)."""
    engine: str | None = None
    """``pdflatex``, ``xelatex`` or ``lualatex`` as declared (``None``: by the language)."""
    style: Mapping[str, Any] | str | None = None
    """Venue style: a package name or ``{"class", "package", "options", …}`` (see
    ``exporter/styles.py``)."""
    keywords: tuple[str, ...] = ()
    """Keywords (关键词 in a Chinese paper), printed under the abstract."""
    title_en: str | None = None
    """The English title a Chinese paper carries (markdown inline)."""
    abstract_en: str | None = None
    """The English abstract a Chinese paper carries (markdown)."""
    files: tuple[str, ...] = ()
    """Files next to the notebook (relative paths) that its LaTeX reads besides images: the
    style, class and BibTeX style files and generated graphics of an imported paper. The export
    copies them into the build folder, where the TeX gate judges them."""
    preamble: str | None = None
    """The paper's own preamble: packages and definitions (``\\usepackage{tikz}``,
    ``\\newcommand``…) printed before ``\\begin{document}``. The TeX gate judges it as a
    template (packages may load; what runs commands or reads files is refused) and asks for it
    to be reviewed as a whole."""


@dataclass(frozen=True)
class Paper:
    """A notebook read for mechnb: cells in paper order, paper metadata, reading findings."""

    cells: tuple[Cell, ...]
    meta: PaperMeta
    findings: tuple[Finding, ...] = ()
    """Findings about the format itself (unknown roles, malformed metadata, duplicate labels)."""
    path: Path | None = None
    nbformat_minor: int = 5
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The notebook JSON as read (never mutated)."""

    @property
    def lang(self) -> str:
        """Effective language: declared ``lang``, else by the share of CJK in the markdown.

        A CJK character counts for ``CJK_WEIGHT`` Latin letters (it carries about as much as a
        short word); the paper is Chinese when the weighted CJK reaches ``CJK_SHARE`` of the
        Latin letters. One Chinese phrase in an English tutorial (7 characters among 19,000
        letters) keeps it English — its CJK spans still get CJK fonts — while a Chinese course
        full of code names and formulas (7,849 characters, 20,201 letters) is Chinese.
        """
        if self.meta.lang in LANGS:
            return self.meta.lang
        cjk = latin = 0
        for c in self.cells:
            if c.is_markdown:
                cjk += len(CJK_RE.findall(c.source))
                latin += len(_LATIN_RE.findall(c.source))
        return "zh" if cjk and cjk * CJK_WEIGHT >= CJK_SHARE * latin else "en"

    @property
    def engine(self) -> str:
        """The TeX engine: declared ``engine``, else by language (pdfLaTeX for English)."""
        return self.meta.engine or DEFAULT_ENGINES.get(self.lang, "pdflatex")

    @property
    def display_name(self) -> str:
        """The name findings are reported under (the file name, or ``<notebook>``)."""
        return self.path.name if self.path else "<notebook>"

    def cells_with_role(self, *roles: str) -> list[Cell]:
        """Cells whose role is one of ``roles``, in order."""
        return [c for c in self.cells if c.role in roles]

    def labels(self) -> dict[str, Cell]:
        """Label → first cell that declares it in metadata."""
        out: dict[str, Cell] = {}
        for c in self.cells:
            if c.label and c.label not in out:
                out[c.label] = c
        return out


def _source(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def _finding(slug: str, message: str, cell: int | None = None, labels: tuple[str, ...] = (),
             cell_id: str | None = None) -> Finding:
    code, severity = FORMAT_FINDINGS[slug]
    return Finding(code=code, name=slug, severity=severity, message=message, cell=cell,
                   labels=labels, cell_id=cell_id)


def _read_cell(index: int, raw: Any, findings: list[Finding]) -> Cell:
    if not isinstance(raw, Mapping):
        findings.append(_finding("malformed-cell-metadata",
                                 "this cell is not a JSON object; it is skipped", index))
        return Cell(index=index, cell_type="raw", source="")
    cell_id = raw.get("id") if isinstance(raw.get("id"), str) else None
    metadata = raw.get("metadata")
    if not isinstance(metadata, Mapping):
        metadata = {}
    tags_raw = metadata.get("tags", [])
    tags = tuple(t for t in tags_raw if isinstance(t, str)) if isinstance(tags_raw, list) else ()
    if not isinstance(tags_raw, list):
        findings.append(_finding("malformed-cell-metadata",
                                 "metadata.tags should be a list of strings", index,
                                 cell_id=cell_id))
    mech = metadata.get("mechnb", {})
    if not isinstance(mech, Mapping):
        findings.append(_finding(
            "malformed-cell-metadata",
            f"metadata.mechnb should be an object like {{\"role\": \"theorem\"}}, "
            f"not {type(mech).__name__}; it is ignored", index, cell_id=cell_id))
        mech = {}
    values: dict[str, Any] = {}
    for key, expected in CELL_FIELDS.items():
        if key not in mech:
            continue
        val = mech[key]
        if key == "validates" and isinstance(val, str):
            val = [val]  # a single label is a common shorthand
        if not isinstance(val, expected) or (
                isinstance(val, list) and not all(isinstance(v, str) for v in val)):
            want = "a list of labels" if key == "validates" else "a string"
            findings.append(_finding(
                "malformed-cell-metadata",
                f"metadata.mechnb.{key} should be {want}; it is ignored", index,
                cell_id=cell_id))
            continue
        values[key] = val
    tag_roles = [t[len(TAG_PREFIX):] for t in tags if t.startswith(TAG_PREFIX)]
    role = values.get("role")
    if role is None and tag_roles:
        role = tag_roles[0]
    elif role is not None and tag_roles and tag_roles[0] != role:
        findings.append(_finding(
            "conflicting-role",
            f"metadata says role '{role}' but the tag says 'mech:{tag_roles[0]}'; "
            f"the metadata wins — make them agree", index, cell_id=cell_id))
    if role is not None and get_role(role) is None:
        hint = suggest_role(role)
        findings.append(_finding(
            "unknown-role",
            f"unknown role '{role}'" + (f"; did you mean '{hint}'?" if hint else "")
            + " (see `mechnb roles` for the vocabulary)", index, cell_id=cell_id))
        role = None
    outputs_raw = raw.get("outputs", [])
    outputs = tuple(o for o in outputs_raw if isinstance(o, Mapping)) if isinstance(
        outputs_raw, list) else ()
    exec_count = raw.get("execution_count")
    attachments = raw.get("attachments")
    cell_type = raw.get("cell_type")
    return Cell(
        index=index,
        cell_type=cell_type if isinstance(cell_type, str) else "raw",
        source=_source(raw.get("source", "")),
        id=cell_id,
        role=role,
        label=values.get("label"),
        title=values.get("title"),
        validates=tuple(values.get("validates", ())),
        caption=values.get("caption"),
        kind=values.get("kind"),
        tags=tags,
        outputs=outputs,
        execution_count=exec_count if isinstance(exec_count, int) else None,
        attachments=attachments if isinstance(attachments, Mapping) else {},
        metadata=metadata,
    )


def _read_meta(raw: Any, findings: list[Finding]) -> PaperMeta:
    mech = raw.get("mechnb", {}) if isinstance(raw, Mapping) else {}
    if not isinstance(mech, Mapping):
        findings.append(_finding("malformed-notebook-metadata",
                                 "notebook metadata.mechnb should be an object; it is ignored"))
        return PaperMeta()
    values: dict[str, Any] = {}
    for key, expected in PAPER_FIELDS.items():
        if key not in mech:
            continue
        val = mech[key]
        if key == "authors" and isinstance(val, str):
            val = [val]
        if not isinstance(val, expected):
            findings.append(_finding(
                "malformed-notebook-metadata",
                f"notebook metadata.mechnb.{key} has the wrong type "
                f"({type(val).__name__}); it is ignored"))
            continue
        values[key] = val
    if "lang" in values and values["lang"] not in LANGS:
        findings.append(_finding("malformed-notebook-metadata",
                                 f"notebook metadata.mechnb.lang must be 'en' or 'zh', "
                                 f"not {values['lang']!r}; the language is detected instead"))
        del values["lang"]
    if "paper_type" in values and values["paper_type"] not in PAPER_TYPES:
        findings.append(_finding("malformed-notebook-metadata",
                                 f"notebook metadata.mechnb.paper_type must be one of "
                                 f"{', '.join(PAPER_TYPES)}, not {values['paper_type']!r}"))
        del values["paper_type"]
    if "engine" in values and values["engine"] not in TEX_ENGINES:
        findings.append(_finding("malformed-notebook-metadata",
                                 f"notebook metadata.mechnb.engine must be one of "
                                 f"{', '.join(TEX_ENGINES)}, not {values['engine']!r}; the "
                                 "default engine for the paper's language is used"))
        del values["engine"]
    authors = tuple(str(a.get("name", "")) if isinstance(a, Mapping) else str(a)
                    for a in values.get("authors", []))
    affiliations = tuple(
        tuple(str(a[k]) for k in AUTHOR_LINES if isinstance(a.get(k), str) and a[k].strip())
        if isinstance(a, Mapping) else () for a in values.get("authors", []))
    return PaperMeta(
        title=values.get("title"), authors=authors, affiliations=affiliations,
        lang=values.get("lang"),
        paper_type=values.get("paper_type"), bibliography=values.get("bibliography"),
        template=values.get("template"), checks=values.get("checks", {}),
        engine=values.get("engine"), style=values.get("style"),
        keywords=tuple(str(k).strip() for k in values.get("keywords", []) if str(k).strip()),
        title_en=values.get("title_en"), abstract_en=values.get("abstract_en"),
        files=tuple(str(f) for f in values.get("files", []) if isinstance(f, str) and f),
        preamble=values.get("preamble") or None,
    )


def _is_old_format(nb: Mapping[str, Any]) -> bool:
    major = nb.get("nbformat")
    return "worksheets" in nb or (isinstance(major, int) and major < 4)


def _with_v3_defaults(nb: Mapping[str, Any]) -> dict[str, Any]:
    """A shallow copy with the keys nbformat's upgrade needs (absent in some old notebooks)."""
    out = dict(nb)
    if not isinstance(out.get("metadata"), Mapping):
        out["metadata"] = {}
    worksheets = out.get("worksheets")
    if not isinstance(worksheets, list):
        worksheets = []
    out["worksheets"] = [
        {**ws, "cells": ws["cells"] if isinstance(ws.get("cells"), list) else []}
        for ws in worksheets if isinstance(ws, Mapping)]
    return out


_V3_MIME = {"text": "text/plain", "html": "text/html", "svg": "image/svg+xml",
            "png": "image/png", "jpeg": "image/jpeg", "latex": "text/latex",
            "json": "application/json", "javascript": "application/javascript",
            "pdf": "application/pdf", "markdown": "text/markdown"}
"""nbformat 3's output keys → the MIME types of nbformat 4."""
_V3_OUTPUT_TYPES = {"pyout": "execute_result", "pyerr": "error"}


def _joined(value: Any) -> Any:
    return "".join(str(v) for v in value) if isinstance(value, list) else value


def _upgrade_output_v3(output: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(output)
    kind = _V3_OUTPUT_TYPES.get(str(out.get("output_type")), out.get("output_type"))
    out["output_type"] = kind
    if kind == "stream":
        out["name"] = out.pop("stream", out.get("name", "stdout"))
        out["text"] = _joined(out.get("text", ""))
        return out
    if kind == "error":
        return out
    if kind == "execute_result":
        out["execution_count"] = out.pop("prompt_number", None)
    data = {}
    for key in list(out):
        if key in _V3_MIME or "/" in key:
            data[_V3_MIME.get(key, key)] = _joined(out.pop(key))
    out["data"] = data
    out.setdefault("metadata", {})
    return out


def _upgrade_v3(nb: Mapping[str, Any]) -> dict[str, Any] | None:
    """An nbformat 4 copy of an nbformat 2–3 notebook (worksheets), as nbformat's ``upgrade``
    makes it, without importing nbformat (its import costs seconds: jsonschema and its format
    grammars); ``None`` for a shape it does not know (nbformat then upgrades it)."""
    cells: list[dict[str, Any]] = []
    for ws in _with_v3_defaults(nb)["worksheets"]:
        for cell in ws["cells"]:
            if not isinstance(cell, Mapping):
                return None
            c = dict(cell)
            c["metadata"] = dict(c.get("metadata") or {})
            kind = c.get("cell_type")
            if kind == "code":
                c.pop("language", None)
                if "collapsed" in c:
                    c["metadata"]["collapsed"] = c.pop("collapsed")
                c["source"] = _joined(c.pop("input", ""))
                c["execution_count"] = c.pop("prompt_number", None)
                outputs = c.get("outputs") or []
                if not isinstance(outputs, list) or not all(isinstance(o, Mapping)
                                                            for o in outputs):
                    return None
                c["outputs"] = [_upgrade_output_v3(o) for o in outputs]
            elif kind == "heading":
                level = c.pop("level", 1)
                text = " ".join(str(_joined(c.get("source", ""))).splitlines())
                c.update(cell_type="markdown", source="#" * (level if isinstance(level, int)
                                                               else 1) + " " + text)
            elif kind in ("markdown", "html"):
                c["cell_type"] = "markdown"
                c["source"] = _joined(c.get("source", ""))
            elif kind == "raw":
                c["source"] = _joined(c.get("source", ""))
            else:
                return None
            cells.append(c)
    metadata = dict(nb.get("metadata") or {})
    metadata.pop("name", None)
    metadata.pop("signature", None)
    return {"nbformat": 4, "nbformat_minor": 0, "metadata": metadata, "cells": cells}


def _upgrade(nb: Mapping[str, Any], where: str) -> dict[str, Any]:
    """An nbformat 4 copy of an nbformat 1–3 notebook (``nb`` itself is left untouched).

    nbformat 2–3 (worksheets) are upgraded here (``_upgrade_v3``); nbformat is imported only
    for older or odd notebooks: it costs seconds.
    """
    if "worksheets" in nb:
        upgraded_v3 = _upgrade_v3(nb)
        if upgraded_v3 is not None:
            return upgraded_v3
    import nbformat
    from nbformat.reader import reads as read_any_version

    try:
        # reads() rejoins the old line lists into strings, as nbformat's own reader does
        upgraded = nbformat.convert(read_any_version(json.dumps(_with_v3_defaults(nb))), 4)  # type: ignore[no-untyped-call]
    except Exception as exc:  # nbformat raises many types for odd old notebooks
        raise NotebookReadError(
            f"{where} is an nbformat {nb.get('nbformat', '?')} notebook that could not be "
            f"upgraded to nbformat 4 ({type(exc).__name__}: {exc}); convert it with "
            f"`jupyter nbconvert --to notebook --nbformat 4 {where}`") from None
    out: dict[str, Any] = json.loads(json.dumps(upgraded))
    if not isinstance(out.get("cells"), list):
        raise NotebookReadError(f"{where}: the upgraded notebook has no 'cells' list")
    return out


def paper_from_dict(nb: Mapping[str, Any], path: Path | None = None) -> Paper:
    """Build a ``Paper`` from notebook JSON already loaded; raises only for non-notebooks.

    nbformat 1–3 notebooks are upgraded in memory (an info finding says so); the file and
    ``nb`` are never changed.
    """
    where = str(path) if path else "the notebook"
    upgraded_from: object = None
    if isinstance(nb, Mapping) and _is_old_format(nb):
        upgraded_from = nb.get("nbformat", 3)
        nb = _upgrade(nb, where)
    if not isinstance(nb, Mapping) or "cells" not in nb:
        raise NotebookReadError(f"{where} is not a Jupyter notebook (no 'cells' list)")
    if not isinstance(nb["cells"], list):
        raise NotebookReadError(f"{where}: 'cells' must be a list")
    findings: list[Finding] = []
    if upgraded_from is not None:
        findings.append(_finding(
            "upgraded-nbformat",
            f"this is an nbformat {upgraded_from} notebook; it was upgraded to nbformat 4 in "
            f"memory (the file is unchanged; save it from Jupyter to upgrade it for good)"))
    meta = _read_meta(nb.get("metadata", {}), findings)
    cells = tuple(_read_cell(i, c, findings) for i, c in enumerate(nb["cells"]))
    seen: dict[str, int] = {}
    for c in cells:
        if not c.label:
            continue
        if c.label in seen:
            findings.append(_finding(
                "duplicate-label",
                f"label '{c.label}' is already used by cell {seen[c.label] + 1}; labels must be "
                f"unique", c.index, (c.label,), c.id))
        else:
            seen[c.label] = c.index
    minor = nb.get("nbformat_minor")
    return Paper(cells=cells, meta=meta, findings=tuple(findings), path=path,
                 nbformat_minor=minor if isinstance(minor, int) else 0, raw=nb)


def read_paper(path: str | os.PathLike[str]) -> Paper:
    """Read a notebook file; raises ``NotebookReadError`` with a clear message if it is unusable."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotebookReadError(f"{p}: no such notebook") from None
    except UnicodeDecodeError as exc:
        raise NotebookReadError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise NotebookReadError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookReadError(
            f"{p}:{exc.lineno}:{exc.colno}: not valid notebook JSON ({exc.msg}); "
            f"open it in a text editor or restore it from a checkpoint") from None
    except RecursionError:
        raise NotebookReadError(f"{p}: its JSON is nested too deeply to be a notebook") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise NotebookReadError(f"{p}: not usable notebook JSON ({exc})") from None
    try:
        return paper_from_dict(nb, p)
    except RecursionError:
        raise NotebookReadError(f"{p}: its metadata is nested too deeply to read") from None


def role_metadata(role: str, *, label: str | None = None, title: str | None = None,
                  validates: list[str] | None = None, caption: str | None = None,
                  kind: str | None = None) -> dict[str, Any]:
    """The cell metadata that gives a cell a role: ``metadata.mechnb`` plus the mirror tag."""
    mech: dict[str, Any] = {"role": role}
    for key, val in (("label", label), ("title", title), ("validates", validates),
                     ("caption", caption), ("kind", kind)):
        if val:
            mech[key] = val
    return {"mechnb": mech, "tags": [TAG_PREFIX + role]}


def set_role(metadata: Mapping[str, Any], role: str | None, *, label: str | None = None
             ) -> dict[str, Any]:
    """A copy of ``metadata`` with the role (and label) set, or cleared when ``role`` is None."""
    out = dict(metadata)
    tags = [t for t in out.get("tags", []) if isinstance(t, str) and not t.startswith(TAG_PREFIX)]
    mech = dict(out["mechnb"]) if isinstance(out.get("mechnb"), Mapping) else {}
    if role is None:
        mech.pop("role", None)
        mech.pop("label", None)
    else:
        mech["role"] = role
        tags.append(TAG_PREFIX + role)
        if label:
            mech["label"] = label
    if mech:
        out["mechnb"] = mech
    else:
        out.pop("mechnb", None)
    if tags:
        out["tags"] = tags
    else:
        out.pop("tags", None)
    return out
