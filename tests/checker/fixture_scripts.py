"""The checker's fixture-making scripts as modules, for tests that build variants of a fixture
paper with the script's own helpers."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

CHECKER_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"


@cache
def fixture_script(path: Path) -> Any:
    """A fixture-making script (``make_fixtures.py``, ``substance/make_sound.py``) imported as a
    module, once, so tests build their variants with the script's own helpers."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_fixtures() -> Any:
    """``tests/fixtures/checker/make_fixtures.py`` as a module (``clean()``, ``role_index``…)."""
    return fixture_script(CHECKER_FIXTURES / "make_fixtures.py")
