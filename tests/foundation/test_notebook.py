"""Reading notebooks: roles from metadata and tags, malformed input as findings, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechnb.errors import NotebookReadError
from mechnb.notebook import paper_from_dict, read_paper, role_metadata, set_role


def test_malformed_metadata_becomes_findings(fixtures: Path) -> None:
    paper = read_paper(fixtures / "foundation" / "malformed.ipynb")
    expected = json.loads((fixtures / "foundation" / "malformed.expected.json").read_text())
    assert [{"code": f.code, "cell": f.cell} for f in paper.findings] == expected["findings"]
    assert [c.role for c in paper.cells] == expected["roles"]
    meta = expected["meta"]
    assert paper.meta.title == meta["title"] and paper.meta.lang == meta["lang"]
    assert paper.meta.paper_type == meta["paper_type"]
    assert list(paper.meta.authors) == meta["authors"]
    assert paper.lang == expected["effective_lang"]
    unknown = next(f for f in paper.findings if f.code == "MECH901")
    assert "did you mean 'theorem'" in unknown.message
    assert unknown.format("malformed.ipynb").startswith(
        "malformed.ipynb[cell 1]: MECH901 error unknown-role: unknown role 'theorm'")
    # a lone string in validates is accepted as one label
    assert paper.cells[2].validates == ("thm:a",)
    assert paper.cells[6].source == "x = 1\nx"


def test_reading_never_mutates_the_input(fixtures: Path) -> None:
    raw = json.loads((fixtures / "foundation" / "malformed.ipynb").read_text())
    before = json.dumps(raw, sort_keys=True)
    paper_from_dict(raw)
    assert json.dumps(raw, sort_keys=True) == before


@pytest.mark.parametrize(("name", "message"), [
    ("broken.ipynb", "not valid notebook JSON"),
    ("missing.ipynb", "no such notebook"),
])
def test_unusable_notebooks_raise_a_clear_error(fixtures: Path, name: str, message: str) -> None:
    with pytest.raises(NotebookReadError, match=message):
        read_paper(fixtures / "foundation" / name)


def test_language_is_detected_from_cjk_text(fixtures: Path) -> None:
    paper = read_paper(fixtures / "foundation" / "chinese.ipynb")
    assert paper.lang == "zh"
    assert paper.cells[0].role == "gap"


def test_role_metadata_writes_metadata_and_mirror_tag() -> None:
    meta = role_metadata("experiment", label="exp:a", validates=["thm:main"], kind="intervention")
    assert meta == {"mechnb": {"role": "experiment", "label": "exp:a", "validates": ["thm:main"],
                               "kind": "intervention"}, "tags": ["mech:experiment"]}
    cell = {"cell_type": "markdown", "source": "", "metadata": meta}
    assert paper_from_dict({"cells": [cell]}).cells[0].role == "experiment"


def test_set_role_replaces_and_clears_without_touching_other_metadata() -> None:
    original = {"tags": ["keep", "mech:lemma"], "mechnb": {"role": "lemma", "caption": "c"},
                "collapsed": True}
    changed = set_role(original, "theorem", label="thm:x")
    assert changed == {"tags": ["keep", "mech:theorem"], "collapsed": True,
                       "mechnb": {"role": "theorem", "caption": "c", "label": "thm:x"}}
    assert original["tags"] == ["keep", "mech:lemma"]  # input untouched
    cleared = set_role(changed, None)
    assert cleared == {"tags": ["keep"], "collapsed": True, "mechnb": {"caption": "c"}}
