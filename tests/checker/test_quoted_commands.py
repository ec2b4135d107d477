"""Shell commands that findings suggest are quoted (issue 37): a notebook whose name has a space
is one argument of ``mechnb trust``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from mechnb.checker import check
from mechnb.notebook import read_paper


def test_mech079_suggests_a_quoted_trust_command(tmp_path: Path) -> None:
    path = tmp_path / "induction copy.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "raw", "id": "r", "metadata": {"format": "text/latex"},
         "source": "\\textbf{by hand}"}]}), "utf-8")
    messages = [f.message for f in check(read_paper(path)) if f.code == "MECH079"]
    assert messages and "`mechnb trust 'induction copy.ipynb'`" in messages[0]
    command = messages[0].split("`")[3]
    assert shlex.split(command) == ["mechnb", "trust", "induction copy.ipynb"]
