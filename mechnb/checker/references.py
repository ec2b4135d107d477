"""Rules about names: unique labels, references that resolve, citations found in the .bib."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from .bib import bib_keys, bib_keys_from_text, bibliography_paths
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule


def check_duplicate_labels(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A ``\\label{}`` in the text that repeats another label.

    Two metadata labels are already reported while reading (MECH904); a ``\\label`` that repeats
    the metadata label of its own cell is the same label written twice, not a clash.
    """
    for name, sites in doc.label_sites.items():
        if len(sites) < 2:
            continue
        first = sites[0]
        for site in sites[1:]:
            if site.command == "metadata":
                continue
            if site.cell == first.cell and first.command == "metadata":
                continue
            line, _ = doc.position(first.cell, first.offset)
            where = f"cell {first.cell + 1}" + (f" line {line}" if line else " (metadata)")
            yield rule.at(doc, f"label {name!r} is already defined in {where}; labels must be "
                               f"unique — rename one of them", site.cell, site.offset, (name,))


def check_references(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Every ``\\ref``/``\\eqref``/``\\cref``/``\\autoref`` names a defined label."""
    labels = doc.labels
    for site in doc.references:
        if not site.name:
            yield rule.at(doc, f"empty \\{site.command}{{}}; put the label inside the braces",
                          site.cell, site.offset)
        elif site.name not in labels:
            yield rule.at(doc, f"\\{site.command}{{{site.name}}} refers to a label that no cell "
                               f"defines; fix the name or add `\\label{{{site.name}}}` / a "
                               f"cell label", site.cell, site.offset, (site.name,))


def _bib(doc: Document) -> tuple[frozenset[str] | None, list[str]]:
    """(keys, problems): keys is None when no usable .bib was found."""
    value = doc.paper.meta.bibliography
    inline = _inline_keys(doc)
    if not value:
        return inline, []
    keys: set[str] = set(inline or ())
    problems = []
    found = inline is not None
    paths = bibliography_paths(value, doc.paper.path)
    if not paths:
        return None, [f"metadata.mechnb.bibliography = {value!r} names no .bib file; set it to "
                      f"a path relative to the notebook"]
    for path in paths:
        try:
            keys |= bib_keys(path)
            found = True
        except (OSError, ValueError):  # ValueError: a NUL byte in the path
            problems.append(f"the bibliography {path.name!r} (metadata.mechnb.bibliography = "
                            f"{value!r}, looked for {path}) does not exist; fix the path, "
                            f"relative to the notebook")
    return (frozenset(keys) if found else None), problems


def _inline_keys(doc: Document) -> frozenset[str] | None:
    """The keys of a bibliography written in the paper itself (``thebibliography`` with
    ``\\bibitem``s, in a raw or markdown cell), or ``None`` when there is none."""
    texts = [c.source for c in doc.cells if "\\bibitem" in c.source]
    if not texts:
        return None
    return bib_keys_from_text("\n".join(texts))


def check_bibliography(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The notebook names a .bib file that exists when it cites anything (or names one); an
    inline ``thebibliography`` is a bibliography too."""
    _, problems = _bib(doc)
    for message in problems:
        yield rule.at(doc, message)
    if not doc.paper.meta.bibliography and doc.citations and _inline_keys(doc) is None:
        first = doc.citations[0]
        yield rule.at(doc, f"the paper cites {first.name!r} but names no bibliography; set "
                           f"`metadata.mechnb.bibliography` to a .bib file next to the notebook",
                      first.cell, first.offset)


def check_citations(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Every citation key is in the notebook's .bib. When one of the files the paper names is
    missing, a key absent from the others may well be in it: missing-bibliography reports the
    file, once, instead of every key it would hold."""
    if not doc.citations:
        return
    keys, problems = _bib(doc)
    if keys is None or problems:
        return  # missing-bibliography says why
    for site in doc.citations:
        if site.name not in keys:
            yield rule.at(doc, f"citation {site.name!r} is not in the bibliography; add it to "
                               f"the .bib or fix the key", site.cell, site.offset, (site.name,))
