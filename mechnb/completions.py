r"""What ``\cref{`` and ``[@`` / ``\cite{`` can complete to: the notebook's labels (with the role
and title of the cell that defines each) and its bibliography's keys (with each entry's title).

Read from the saved notebook and its ``.bib`` like ``mechnb check`` reads them (the checker's
``Document.label_sites``, ``checker.bib``), no kernel. ``GET /mechnb/completions?path=NB``
answers :func:`completions`' JSON; ``docs/architecture.md`` documents the shape.
"""

from __future__ import annotations

import re
from typing import Any

from .notebook import Paper
from .paper_paths import UnsafeFileError, read_regular, resolve_in_folder
from .roles import get_role

__all__ = ["bib_entries", "completions"]

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s{}()]+)\s*,")
_FIELD = re.compile(r"\s*([A-Za-z][\w-]*)\s*=\s*")
_SKIP = frozenset({"comment", "string", "preamble"})
_HEADING = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_TEX_MARKUP = re.compile(r"\\[A-Za-z]+\*?|[{}$]")
SNIPPET_CHARS = 120
"""At most this many characters of a cell's text describe a label without a title."""


def _value(text: str, at: int) -> tuple[str, int]:
    """A BibTeX field value starting at ``at``: ``{…}`` (nested), ``"…"`` or a bare word."""
    if at >= len(text):
        return "", at
    if text[at] == "{":
        depth, k = 0, at
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    return text[at + 1:k], k + 1
            k += 1
        return text[at + 1:], len(text)
    if text[at] == '"':
        end = text.find('"', at + 1)
        end = len(text) if end < 0 else end
        return text[at + 1:end], end + 1
    m = re.match(r"[^,}\s]*", text[at:])
    word = m.group() if m else ""
    return word, at + len(word)


def _plain(value: str) -> str:
    """A field as a person reads it: TeX accents as letters (``{\\L}ukasz`` → Łukasz),
    braces and other commands gone, spaces folded."""
    if "\\" in value:
        try:
            from pylatexenc.latex2text import LatexNodes2Text

            value = LatexNodes2Text(math_mode="verbatim").latex_to_text(value)
        except Exception:  # pylatexenc is tolerant; anything it still trips on stays markup
            pass
    return " ".join(_TEX_MARKUP.sub("", value).replace("~", " ").split())


def bib_entries(text: str) -> list[dict[str, str]]:
    """``[{"key", "type", "title", "author", "year"}]`` of every entry of BibTeX ``text``, in
    file order (``@string``/``@comment``/``@preamble`` skipped; a field that is missing is
    ``""``). Tolerant: a malformed entry gives what could be read."""
    out = []
    matches = list(_ENTRY.finditer(text))
    for n, m in enumerate(matches):
        if m.group(1).lower() in _SKIP:
            continue
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        body = text[m.end():end]
        fields: dict[str, str] = {}
        at = 0
        while True:
            f = _FIELD.match(body, at)
            if f is None:
                break
            value, at = _value(body, f.end())
            fields[f.group(1).lower()] = _plain(value)
            comma = body.find(",", at)
            if comma < 0:
                break
            at = comma + 1
        out.append({"key": m.group(2), "type": m.group(1).lower(),
                    "title": fields.get("title", ""), "author": fields.get("author", ""),
                    "year": fields.get("year", "")})
    return out


def _describe(paper: Paper, index: int) -> dict[str, Any]:
    cell = paper.cells[index]
    role = get_role(cell.role) if cell.role else None
    title = cell.title or ""
    if not title and cell.is_markdown:
        m = _HEADING.search(cell.source)
        if m:
            title = m.group(1)
    snippet = " ".join(_HEADING.sub("", cell.source).split())[:SNIPPET_CHARS] \
        if cell.is_markdown else (cell.caption or "")[:SNIPPET_CHARS]
    return {"cell": index, "cell_id": cell.id, "role": cell.role,
            "name": role.display(paper.lang) if role is not None and role.latex_kind in (
                "environment", "box", "runin", "proof") else None,
            "title": title, "text": snippet}


def completions(paper: Paper) -> dict[str, Any]:
    """The labels and bibliography keys of ``paper`` for completion (JSON-ready)::

        {"labels": [{"label", "cell", "cell_id", "role", "name", "title", "text"}],
         "citations": [{"key", "type", "title", "author", "year", "file"}],
         "problems": ["…"]}

    Labels in notebook order (a duplicate once, at its first definition); ``name`` is what
    LaTeX calls the block ("Theorem"), ``title`` the cell's title or heading, ``text`` the
    start of its text. Citations in bibliography order; ``problems`` says why a .bib named in
    the metadata could not be read."""
    from .checker.bib import bibliography_paths
    from .checker.document import Document

    doc = Document(paper)
    labels = []
    for name, sites in doc.label_sites.items():
        labels.append({"label": name, **_describe(paper, sites[0].cell)})
    labels.sort(key=lambda item: item["cell"])
    citations: list[dict[str, str]] = []
    problems: list[str] = []
    value = paper.meta.bibliography
    seen: set[str] = set()
    base = paper.path.parent if paper.path else None
    for path in bibliography_paths(value, paper.path) if value else []:
        resolved, why = resolve_in_folder(base, str(path.absolute())) if base is not None \
            else (path, None)
        if resolved is None:
            problems.append(f"the bibliography {path.name!r} {why}")
            continue
        try:
            text = read_regular(resolved).decode("utf-8", errors="replace")
        except (OSError, UnsafeFileError) as exc:
            problems.append(f"the bibliography {path.name!r} cannot be read: {exc}")
            continue
        for entry in bib_entries(text):
            if entry["key"] not in seen:
                seen.add(entry["key"])
                citations.append({**entry, "file": path.name})
    return {"labels": labels, "citations": citations, "problems": problems}
