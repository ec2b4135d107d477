"""A notebook's file name is written into one-line comments of the .tex and the latexmkrc: a line
break in it must not end the comment (the rest would run as TeX past the gate, or as Perl)."""

from __future__ import annotations

import json
from pathlib import Path

from mechnb.exporter.api import export
from mechnb.exporter.bundle import latexmkrc

NAME = 'p\n\\AtBeginDocument{\\special{pdf:fstream @x (^^2fetc^^2fpasswd)}}\nsystem("id");\r#.ipynb'


def test_a_line_break_in_the_notebook_name_stays_in_the_comment(tmp_path: Path) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"mechnb": {"title": "T"}},
          "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "Hello."}]}
    path = tmp_path / NAME
    path.write_text(json.dumps(nb), "utf-8")
    result = export(path, write=False)
    assert not [line for line in result.latex.splitlines()
                if "\\special" in line and not line.startswith("%")]
    rc = latexmkrc(result, "p")
    assert not [line for line in rc.splitlines()
                if "system(" in line and not line.startswith("#")]
