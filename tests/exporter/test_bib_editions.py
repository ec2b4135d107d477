"""A numeric ``edition`` in the .bib prints as "Second edition", not "2 edition" (issue 23);
the user's .bib is never changed, only the copy the export makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.exporter.document import ordinal_editions

from .conftest import export_pdf_text, markdown_notebook, needs_tex


@pytest.mark.parametrize(("field", "expected"), [
    (b"edition = {2}", b"edition = {Second}"), (b'edition="3"', b"edition={Third}"),
    (b"edition = 21,", b"edition = {21st},"), (b"EDITION = {12}", b"EDITION = {Twelfth}"),
    (b"edition = {Second}", b"edition = {Second}"), (b"edition = {2nd}", b"edition = {2nd}")])
def test_numeric_editions_become_ordinals(field: bytes, expected: bytes) -> None:
    assert ordinal_editions(b"@book{k, " + field + b" title={T}}") == \
        b"@book{k, " + expected + b" title={T}}"


@pytest.mark.tex
@needs_tex()
def test_the_pdf_reads_second_edition_and_the_bib_is_untouched(tmp_path: Path) -> None:
    bib = (b"@book{knuth1984,\n  author = {Donald E. Knuth},\n  title = {The TeXbook},\n"
           b"  publisher = {Addison-Wesley},\n  year = {1984},\n  edition = {2}\n}\n")
    (tmp_path / "refs.bib").write_bytes(bib)
    _, text = export_pdf_text(tmp_path, "p", markdown_notebook(
        "As the manual says \\citep{knuth1984}.", bibliography="refs.bib", title="Editions"))
    assert "second edition" in " ".join(text.split()).lower() and "2 edition" not in text
    assert (tmp_path / "refs.bib").read_bytes() == bib
