"""Adversarial notebooks: one 500 KB markdown cell of a repeated unit that used to make a regex
or markdown-it's link parser quadratic. Shared by ``bench_adversarial.py`` and the tests."""

from __future__ import annotations

import json
from pathlib import Path

SIZE = 500_000
UNITS: dict[str, str] = {
    "cite-bracket": "\\cite[", "input-bracket": "\\input[",
    "graphics-bracket": "\\includegraphics[",
    "brackets": "[", "image-brackets": "![", "citation-brackets": "[@", "slots": "[a ",
    "dollars": "$", "braces": "{", "backslashes": "\\", "carets": "^^", "begin": "\\begin{",
    "less-than": "<", "special": "\\special{", "hashes": "#",
    "text-args": "\\text{a_", "display-envs": "\\begin{align}",
    "code-math": "`a` $x$ ", "list-ticks": "- `\n", "fences": "```\n",
    "labelled-displays": "$$x \\label{e}$$\n",
}
"""Name → the unit repeated to fill the cell."""
MATH = {"text-args": "$$", "display-envs": "$"}
"""Units repeated inside one math span (opened by this delimiter), not in prose."""


def adversarial_source(name: str) -> str:
    """The 500 KB cell text for ``name`` (``heading``: a title padded with spaces)."""
    if name == "heading":
        return "# x" + " " * SIZE + "y\n"
    unit = UNITS[name]
    return MATH.get(name, "") + (unit * (SIZE // len(unit) + 1))[:SIZE]


def write_adversarial(folder: Path, name: str) -> Path:
    """Write ``<folder>/<name>.ipynb`` with the adversarial cell and return its path."""
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "markdown", "id": "adv", "metadata": {},
                     "source": adversarial_source(name)}]}
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


NAMES = (*UNITS, "heading")
