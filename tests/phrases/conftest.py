"""Fixtures of the phrase tests: the shipped library and a small fixture library."""

from __future__ import annotations

import pytest
from phrase_fixtures import fixture_json

from mechnb.phrases.library import Library, library_from_records, load_library


@pytest.fixture(scope="session")
def library() -> Library:
    """The library shipped in the package."""
    return load_library()


@pytest.fixture(scope="session")
def mini() -> Library:
    """``fixtures/mini_library.json``: entries built to exercise ranking and odd text."""
    lib = library_from_records(fixture_json("mini_library.json")["entries"], source="mini")
    assert lib.problems == ()
    return lib
