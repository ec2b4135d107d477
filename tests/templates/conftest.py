"""Helpers for the template and scaffold tests: every (role, variant, lang) as test ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mechnb.cellspec import CellSpec
from mechnb.templates import paper_types, template_roles, variants

LANGS = ("en", "zh")


def role_variant_lang() -> list[tuple[str, str, str]]:
    """Every (role, variant, lang) the templates offer."""
    return [(role, variant, lang) for role in template_roles() for variant in variants(role)
            for lang in LANGS]


def paper_type_lang() -> list[tuple[str, str]]:
    """Every (paper type, lang) with a scaffold."""
    return [(ptype, lang) for ptype in paper_types() for lang in LANGS]


def ids(values: Sequence[tuple[str, ...]]) -> list[str]:
    """Readable ids: ``theorem-informal-zh``."""
    return ["-".join(v) for v in values]


def notebook_of(cells: Sequence[CellSpec], lang: str = "en") -> dict[str, Any]:
    """An nbformat 4.5 notebook holding ``cells``."""
    return {
        "cells": [c.to_nbformat() for c in cells],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "mechnb": {"lang": lang},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
