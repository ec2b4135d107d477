"""Paths and loaders of the phrase tests' fixture files (imported by the test modules)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture_json(name: str) -> Any:
    """A JSON fixture file of ``tests/phrases/fixtures``."""
    return json.loads((FIXTURES / name).read_text("utf-8"))
