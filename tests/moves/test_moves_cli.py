"""``mechnb moves`` as a process (stdin text, notebooks) and as a function."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
LABELLED = json.loads((FIXTURES / "moves" / "labelled.json").read_text("utf-8"))["abstracts"]


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mechnb", "moves", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=60, check=False)


@pytest.mark.parametrize("abstract_id", ["en-heldout-sinks", "zh-heldout-sinks"])
def test_stdin_json_on_english_and_chinese(abstract_id: str) -> None:
    ab = next(a for a in LABELLED if a["id"] == abstract_id)
    sep = "" if ab["lang"] == "zh" else " "
    proc = _run("-", "--format", "json", stdin=sep.join(s["text"] for s in ab["sentences"]))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["sentences", "missing", "order"]
    assert [s["text"] for s in data["sentences"]] == [s["text"] for s in ab["sentences"]]
    assert all(set(s) == {"text", "moves", "cues"} for s in data["sentences"])
    from mechnb.moves import analyse

    assert data == json.loads(json.dumps(analyse(sep.join(s["text"] for s in ab["sentences"]))
                                         .to_json()))
    assert data["sentences"][1]["moves"][0] == "gap" and "gap" not in data["missing"]


def test_stdin_text_marks_sentences_and_suggests_phrases_for_missing_moves() -> None:
    proc = _run("-", "--lang", "en", stdin="Heads copy tokens. We argue that copying arises "
                                           "from a two-step circuit.")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("  1 [context] Heads copy tokens.")
    assert "missing: validation — the evidence that closes the loop" in proc.stdout
    assert "(abstract-validation-01)" in proc.stdout and "\x1b[" not in proc.stdout
    # Nothing in the text states what is missing: the gap is reported, with a phrase.
    assert "missing: gap" in proc.stdout and "(abstract-gap-01)" in proc.stdout


def test_notebook_with_intro_gives_abstract_and_introduction() -> None:
    out, err = io.StringIO(), io.StringIO()
    path = FIXTURES / "checker" / "clean.ipynb"
    assert main(["moves", str(path), "--format", "json"], out, err) == 0
    data = json.loads(out.getvalue())
    assert list(data) == ["sentences", "missing", "order", "introduction"]
    assert data["missing"] == [] and len(data["sentences"]) == 5
    intro = data["introduction"]
    assert [p["moves"] for p in intro["paragraphs"]] == [
        ["context"], ["prior"], ["gap"], ["lens"], [], ["contributions"]]
    assert intro["missing"] == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scaffold_abstract_misses_every_move_until_filled(lang: str, tmp_path: Path) -> None:
    from mechnb.templates import scaffold_notebook

    path = tmp_path / "paper.ipynb"
    path.write_text(json.dumps(scaffold_notebook("dynamics", lang=lang)), "utf-8")
    proc = _run(str(path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["missing"] == ["context", "gap", "contribution", "mechanism", "validation",
                               "implication"]
    text = _run(str(path)).stdout
    assert "its sentence still has template slots" in text


def test_bad_inputs_are_one_line_errors(tmp_path: Path) -> None:
    empty = _run("-", stdin="  \n")
    assert empty.returncode == 2 and "no text on standard input" in empty.stderr
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json", "utf-8")
    proc = _run(str(broken))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    bare = tmp_path / "bare.ipynb"
    bare.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                "cells": []}), "utf-8")
    proc = _run(str(bare))
    assert proc.returncode == 2 and "has no `abstract` cell" in proc.stderr


def test_the_cli_module_imports_only_argparse() -> None:
    code = ("import sys, mechnb.moves.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('mechnb')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout
    assert "mechnb.moves.analyser" not in out and "mechnb.notebook" not in out


@pytest.mark.parametrize("stem", ["example_paper", "example_paper_zh", "failure_paper",
                                  "expressivity_paper_zh"])
def test_the_example_papers_make_every_move(stem: str) -> None:
    from mechnb.moves import analyse_paper
    from mechnb.notebook import read_paper

    result = analyse_paper(read_paper(ROOT / "notebooks" / f"{stem}.ipynb"))
    assert result.abstract is not None and result.abstract.missing == ()
    assert result.introduction is not None and result.introduction.missing == ()


def test_method_rules_gives_the_rules_alone_and_learned_is_the_default() -> None:
    text = ("Induction heads matter. However, how they form remains unclear. We study them. "
            "An intervention that removes the leading term prevents the head from forming.")
    from mechnb.moves import analyse

    rules = _run("-", "--format", "json", "--method", "rules", stdin=text)
    default = _run("-", "--format", "json", stdin=text)
    assert rules.returncode == 0 and default.returncode == 0, rules.stderr + default.stderr
    assert json.loads(rules.stdout) == json.loads(json.dumps(
        analyse(text, "en", "rules").to_json()))
    assert json.loads(default.stdout) == json.loads(json.dumps(
        analyse(text, "en", "learned").to_json()))
    assert json.loads(rules.stdout)["sentences"][3]["moves"] == ["validation"]
    bad = _run("-", "--method", "neural", stdin=text)
    assert bad.returncode == 2 and "--method" in bad.stderr
