"""The references of every example paper: at least ten, every one cited in the text and carrying
an identifier a reader can resolve (an arXiv id or a DOI; a work published only on the web, such
as the Transformer Circuits Thread, its https URL)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mechnb.checker.document import Document
from mechnb.notebook import read_paper

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
PAPERS = {path.name: meta["bibliography"] for path in sorted(NOTEBOOKS.glob("*.ipynb"))
          if (meta := json.loads(path.read_text("utf-8"))["metadata"].get("mechnb", {}))
          .get("paper_type")}

_ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,(.*?)\n\}", re.S)
_FIELD = re.compile(r"^\s*(\w+)\s*=\s*\{(.*)\},?\s*$", re.M)
_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}")
_DOI = re.compile(r"10\.\d{4,9}/\S+")


def _entries(bib: Path) -> dict[str, dict[str, str]]:
    entries = {}
    for kind, key, body in _ENTRY.findall(bib.read_text("utf-8")):
        fields = {name.lower(): value.strip() for name, value in _FIELD.findall(body)}
        entries[key] = {"kind": kind.lower(), **fields}
    return entries


def test_every_example_paper_has_a_bibliography() -> None:
    assert set(PAPERS) >= {"example_paper.ipynb", "example_paper_zh.ipynb", "failure_paper.ipynb",
                           "expressivity_paper_zh.ipynb"}


@pytest.mark.parametrize("notebook", sorted(PAPERS))
def test_every_reference_has_an_id_and_is_cited(notebook: str) -> None:
    entries = _entries(NOTEBOOKS / PAPERS[notebook])
    assert len(entries) >= 10
    for key, fields in entries.items():
        arxiv = (_ARXIV_ID.fullmatch(fields.get("eprint", ""))
                 and fields.get("archiveprefix", "").lower() == "arxiv")
        doi = _DOI.fullmatch(fields.get("doi", ""))
        web = fields.get("url", "").startswith("https://")
        assert arxiv or doi or web, f"{key}: no arXiv eprint (with archiveprefix), DOI or URL"
    cited = {site.name for site in Document(read_paper(NOTEBOOKS / notebook)).citations}
    assert set(entries) <= cited, f"never cited: {sorted(set(entries) - cited)}"


# ---- provenance: where each reference's identifier was checked (issue 39) ------------------

BIBS = sorted(NOTEBOOKS.glob("*.bib"))
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _sources(bib: Path) -> dict[str, list[str]]:
    """``<stem>.sources.tsv`` beside the ``.bib``: key, id, checked_at, date (a header row
    starting with ``key`` is allowed)."""
    path = bib.with_suffix(".sources.tsv")
    assert path.is_file(), f"{bib.name}: no {path.name} records where its references were checked"
    rows: dict[str, list[str]] = {}
    for line in path.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("key\t"):
            continue
        cells = line.split("\t")
        assert len(cells) == 4, f"{path.name}: {line!r} is not key, id, checked_at, date"
        rows[cells[0]] = cells
    return rows


@pytest.mark.parametrize("bib", BIBS, ids=lambda p: p.stem)
def test_every_reference_has_a_recorded_source(bib: Path) -> None:
    """Every entry's arXiv id or DOI was checked against its abstract page, and where is written
    down beside the ``.bib`` (fails for a bibliography whose sources file is not there yet)."""
    rows = _sources(bib)
    for key, fields in _entries(bib).items():
        assert key in rows, f"{bib.name}: {key} has no row in {bib.stem}.sources.tsv"
        _, ident, checked_at, date = rows[key]
        expected = ({f"arXiv:{fields['eprint']}"} if fields.get("eprint") else set()) | (
            {f"doi:{fields['doi']}"} if fields.get("doi") else set())
        if not expected and fields.get("url", "").startswith("https://"):
            expected = {f"url:{fields['url']}"}  # published only on the web (no arXiv, no DOI)
        assert ident in expected, f"{key}: the sources file says {ident}, the .bib {expected}"
        assert checked_at.strip(), f"{key}: where it was checked is empty"
        assert _DATE.fullmatch(date), f"{key}: {date!r} is not a date (YYYY-MM-DD)"
    stale = set(rows) - set(_entries(bib))
    assert not stale, f"{bib.stem}.sources.tsv lists keys the .bib no longer has: {sorted(stale)}"
