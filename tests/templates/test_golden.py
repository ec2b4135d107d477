"""Snapshots of what the magics insert, as fixture files (``golden/*.json``).

A change to a template shows up here as a readable diff. After an intended change, regenerate
with ``MECHNB_UPDATE_GOLDEN=1 pytest tests/templates/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from mechnb.cellspec import CellSpec
from mechnb.templates import role_cells, scaffold_cells, validation_cells

GOLDEN = Path(__file__).parent / "golden"

CASES: dict[str, Callable[[], list[CellSpec]]] = {
    "formula-label-en": lambda: role_cells("formula", label="eq:attn"),
    "theorem-label-title-zh": lambda: role_cells("theorem", lang="zh", label="thm:main",
                                                 title="主要结果"),
    "experiment-intervention-en": lambda: role_cells("experiment", kind="intervention"),
    "validate-intervention-zh": lambda: validation_cells("thm:main", kind="intervention",
                                                         lang="zh"),
    "proof-sketch-en": lambda: role_cells("proof", validates=["thm:main"]),
    "scaffold-dynamics-en": lambda: scaffold_cells("dynamics"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_golden_file(name: str) -> None:
    produced = [c.to_message() for c in CASES[name]()]
    path = GOLDEN / f"{name}.json"
    if os.environ.get("MECHNB_UPDATE_GOLDEN"):
        path.write_text(json.dumps(produced, ensure_ascii=False, indent=1) + "\n", "utf-8")
    expected = json.loads(path.read_text("utf-8"))
    assert produced == expected
