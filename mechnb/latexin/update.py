"""``mechnb import --update paper.ipynb edited.tex``: a co-author's LaTeX edits back into the
notebook the ``.tex`` was exported from.

The export marks each cell's text with ``% mechnb:cell <id>`` (DESIGN §2a). The notebook is
exported again in memory and compared with the edited file marker by marker: a cell whose text
is unchanged is left alone; an edited paragraph goes back into its cell (as markdown where
``convert`` can say it, else the cell becomes raw LaTeX with its role kept); paragraphs added
after a cell's text become new cells right after it; a cell whose marker is gone is reported
deleted and removed (markdown and raw cells only). Code cells and their outputs are never
changed; an edited figure or table caption goes back into the cell's ``metadata.mechnb.caption``,
an edited theorem title into ``metadata.mechnb.title``. The previous notebook is kept as a backup.
"""

from __future__ import annotations

import difflib
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import MechnbError
from ..roles import get_role
from ..tex.markers import segments, token_index

_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_TODO = re.compile(r"\A\\todo\{[^\n]*\}\n")
_ANCHOR = r"(?:\\phantomsection)?\\label\{[^{}\n]*\}"
_CAPTION = re.compile(r"\\caption\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")


class UpdateProblem(MechnbError):
    """The edited file cannot be brought back (no markers, unreadable)."""


@dataclass
class Change:
    """One thing the update did, for the summary."""

    cell: int | None
    what: str


@dataclass
class UpdateSummary:
    """What ``update_notebook`` changed."""

    notebook: Path
    backup: Path | None
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0

    def lines(self) -> list[str]:
        out = [f"cell {c.cell + 1}: {c.what}" if c.cell is not None else c.what
               for c in self.changes]
        out.append(f"{self.notebook}: {len(self.changes)} change"
                   f"{'' if len(self.changes) == 1 else 's'}, {self.unchanged} cell"
                   f"{'' if self.unchanged == 1 else 's'} unchanged"
                   + (f"; the previous notebook is kept as {self.backup}" if self.backup else
                      "; nothing written"))
        return out


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in _PARAGRAPH.split(text.strip()) if p.strip()]


def _unwrap(text: str, kind: str | None, env: str | None) -> tuple[str | None, str, str]:
    """``(title, body, tail)`` of a cell's exported text: the role's wrapper taken off; the
    tail is what follows the wrapper (paragraphs a co-author added after it)."""
    text = _TODO.sub("", text.strip("\n"))
    if kind in ("environment", "proof", "box") and env:
        # the title in either bracket form: [{Title}] as exported, or [Title] as people write it
        m = re.match(r"\\begin\{" + re.escape(env) + r"\}(?:\[\{(.*?)\}\]|\[([^\n]*?)\])?"
                     r"(?:" + _ANCHOR + r")?\n(.*?)\n?\\end\{" + re.escape(env) + r"\}(.*)\Z",
                     text, re.S)
        if m:
            return (m.group(1) if m.group(1) is not None else m.group(2)), m.group(3), m.group(4)
        return None, text, ""
    if kind == "runin":
        m = re.match(r"(?:\\paragraph\{(.*?)\}(?:" + _ANCHOR + r")?\n|" + _ANCHOR + r"\n)?(.*)\Z",
                     text, re.S)
        if m:
            return m.group(1), m.group(2), ""
    if kind in (None, "text", "evidence", "appendix"):
        m = re.match(r"(?:\\paragraph\{(.*?)\}(?:" + _ANCHOR + r")?\n|\\phantomsection"
                     r"\\label\{[^{}\n]*\}\n)?(.*)\Z", text, re.S)
        if m:
            return m.group(1), m.group(2), ""
    if kind == "abstract":
        text = re.sub(r"\A\\begin\{abstract\}\n", "", text)
        text = re.sub(r"\n?\\end\{abstract\}\s*\Z", "", text)
    return None, text, ""


def _to_markdown(latex: str, source: Path) -> tuple[str, bool]:
    """``(markdown, True)`` for LaTeX ``convert`` can say in markdown, else ``(latex, False)``."""
    from .preamble import Declarations
    from .reader import _context_db, _Reader
    from .source import Source, _Piece

    if not latex.strip():
        return "", True
    src = Source(latex, [source], [latex], [_Piece(0, 0, 0)])
    reader = _Reader(src, Declarations())
    from pylatexenc.latexwalker import LatexWalker

    nodes, _, _ = LatexWalker(latex, latex_context=_context_db(),
                              tolerant_parsing=True).get_latex_nodes()
    reader.walk(nodes)
    if not reader.blocks or any(b.kind != "markdown" for b in reader.blocks):
        return latex.strip(), False
    return "\n\n".join(b.source for b in reader.blocks), True


_EQUATION = re.compile(r"\\begin\{equation\}[ \t]*\n?(.*?)\n?[ \t]*\\end\{equation\}", re.S)


def _displays_back(markdown: str) -> str:
    """``\\begin{equation}…\\end{equation}`` as the ``$$ … $$`` it was exported from (the
    export writes a display with a ``\\label`` as ``equation``)."""
    return _EQUATION.sub(lambda m: "$$\n" + m.group(1).strip("\n") + "\n$$"
                         if "\\begin{equation" not in m.group(1) else m.group(0), markdown)


def _new_cell(markdown: str, ok: bool) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": "markdown" if ok else "raw",
                            "id": uuid.uuid4().hex[:8], "metadata": {}, "source": markdown}
    if not ok:
        cell["metadata"]["format"] = "text/latex"
    return cell


def _preamble(tex: str) -> str:
    """The text before the first cell marker, whitespace-normalised."""
    at = tex.find("% mechnb:cell ")
    return " ".join((tex if at < 0 else tex[:at]).split())


def _backup_path(path: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.stem}.before-update-{stamp}.ipynb")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}.before-update-{stamp}-{n}.ipynb")
        n += 1
    return candidate


def update_notebook(notebook: str | Path, edited: str | Path, *, write: bool = True
                    ) -> UpdateSummary:
    """Carry the edits of ``edited`` (an exported ``.tex``) back into ``notebook``."""
    from ..exporter.api import render
    from ..files import atomic_write
    from ..notebook import paper_from_dict

    nb_path = Path(notebook)
    raw_bytes = nb_path.read_bytes()
    nb = json.loads(raw_bytes)
    paper = paper_from_dict(nb, nb_path)
    edited_path = Path(edited)
    edited_text = edited_path.read_text("utf-8", errors="replace").replace("\r\n", "\n")
    new_segments = segments(edited_text)
    if not new_segments:
        raise UpdateProblem(f"{edited_path} has no `% mechnb:cell` markers: it was not exported "
                            "by mechnb (or the markers were removed), so its paragraphs cannot "
                            "be matched to cells; import it as a new notebook instead")
    fresh_tex = render(paper).latex
    fresh = {s.token: s.text for s in segments(fresh_tex)}
    tokens = token_index(paper.cells)
    edited_by_cell: dict[int, str] = {}
    for seg in new_segments:
        index = tokens.get(seg.token)
        if index is not None:
            edited_by_cell[index] = seg.text
    summary = UpdateSummary(nb_path, None)
    cells: list[dict[str, Any]] = list(nb["cells"])
    inserts: dict[int, list[dict[str, Any]]] = {}
    removed: set[int] = set()
    for token, old in fresh.items():
        index = tokens.get(token)
        if index is None:
            continue
        cell = paper.cells[index]
        raw_cell = cells[index]
        new = edited_by_cell.get(index)
        if new is None:
            if cell.cell_type == "code":
                summary.changes.append(Change(index, "its figure or output is gone from the "
                                                     "LaTeX; the code cell is kept as it is"))
            else:
                removed.add(index)
                summary.changes.append(Change(index, "deleted in the LaTeX: removed (the backup "
                                                     "keeps it)"))
            continue
        if new.strip() == old.strip():
            summary.unchanged += 1
            continue
        if cell.cell_type == "code":
            _caption_back(cell.caption, old, new, raw_cell, index, summary, edited_path)
            continue
        role = get_role(cell.role) if cell.role else None
        kind: str | None = role.latex_kind if role else None
        env = None
        if role is not None:
            env = {"environment": str(role.latex.get("env", "")), "proof": "proof",
                   "box": "mech" + re.sub(r"[^a-zA-Z]", "", role.name)}.get(kind or "")
        if cell.cell_type == "raw":
            kind, env = "latex", None
        old_title, old_body, _ = _unwrap(old, kind, env)
        new_title, new_body, tail = _unwrap(new, kind, env)
        old_ps, new_ps = _paragraphs(old_body), _paragraphs(new_body)
        added: list[str] = _paragraphs(tail)
        # paragraphs added after the cell's own text become new cells after it
        ops = difflib.SequenceMatcher(a=old_ps, b=new_ps, autojunk=False).get_opcodes()
        if ops and ops[-1][0] == "insert" and ops[-1][1] == len(old_ps) and \
                kind not in ("environment", "proof", "box", "abstract"):
            added = new_ps[ops[-1][3]:] + added
            new_ps = new_ps[:ops[-1][3]]
        what: list[str] = []
        if new_ps != old_ps:
            body = "\n\n".join(new_ps)
            if cell.cell_type == "raw":
                raw_cell["source"] = body
                what.append("raw LaTeX updated")
                caption = _CAPTION.search(body)
                if cell.caption is not None and caption is not None:
                    text, _ok = _to_markdown(caption.group(1), edited_path)
                    if text != cell.caption:  # an imported figure: its caption in the metadata
                        raw_cell.setdefault("metadata", {}).setdefault("mechnb", {})[
                            "caption"] = text
                        what.append("caption updated")
            else:
                markdown, ok = _to_markdown(body, edited_path)
                if ok:  # a cell that writes its displays as equation keeps them (numbered)
                    raw_cell["source"] = markdown if "\\begin{equation" in cell.source \
                        else _displays_back(markdown)
                    what.append("text updated")
                else:  # keep the LaTeX as written (its role, label and title stay)
                    raw_cell["cell_type"] = "raw"
                    raw_cell["source"] = new.strip() if kind in ("environment", "proof", "box") \
                        else body
                    raw_cell.setdefault("metadata", {})["format"] = "text/latex"
                    raw_cell.pop("attachments", None)
                    what.append("text updated as raw LaTeX (markdown cannot say it)")
        if new_title is not None and new_title != old_title and cell.cell_type != "raw":
            title, _ok = _to_markdown(new_title, edited_path)
            raw_cell.setdefault("metadata", {}).setdefault("mechnb", {})["title"] = title
            what.append("title updated")
        if added:
            inserts[index] = [_new_cell(*_to_markdown(p, edited_path)) for p in added]
            what.append(f"{len(added)} new paragraph{'s' if len(added) > 1 else ''} added "
                        "after it")
        if what:
            summary.changes.append(Change(index, ", ".join(what)))
        else:
            summary.unchanged += 1
    if _preamble(edited_text) != _preamble(fresh_tex):
        summary.changes.append(Change(None, "the text before the first cell (preamble, title, "
                                            "authors) was edited: it is not carried back — set "
                                            "them in the notebook's metadata (Paper Settings)"))
    out: list[dict[str, Any]] = []
    for n, c in enumerate(cells):
        if n not in removed:
            out.append(c)
        out.extend(inserts.get(n, []))
    if not any(c.cell is not None for c in summary.changes):
        return summary  # nothing to write (at most a note about the preamble)
    nb["cells"] = out
    if write:
        backup = _backup_path(nb_path)
        atomic_write(backup, raw_bytes)
        atomic_write(nb_path, (json.dumps(nb, ensure_ascii=False, indent=1) + "\n").encode())
        summary.backup = backup
    return summary


def _caption_back(caption: str | None, old: str, new: str, raw_cell: dict[str, Any],
                  index: int, summary: UpdateSummary, source: Path) -> None:
    """An edited caption of a code cell's figure or table, back into its metadata."""
    before, after = _CAPTION.search(old), _CAPTION.search(new)
    if after is None or (before is not None and before.group(1) == after.group(1)):
        summary.changes.append(Change(index, "its exported output was edited in the LaTeX; code "
                                             "cells and outputs are not changed by an update"))
        return
    text, _ok = _to_markdown(after.group(1), source)
    raw_cell.setdefault("metadata", {}).setdefault("mechnb", {})["caption"] = text
    summary.changes.append(Change(index, "caption updated"))
