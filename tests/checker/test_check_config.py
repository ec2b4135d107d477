"""Configuration: [tool.mechnb] in pyproject.toml, notebook metadata, per-cell suppression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from mechnb.checker import CheckConfig, check, find_rule
from mechnb.checker.config import find_pyproject
from mechnb.findings import Finding, Severity
from mechnb.notebook import paper_from_dict

PROJECT = Path(__file__).resolve().parent.parent / "fixtures" / "checker" / "config" / "project"
PAPER = PROJECT / "papers" / "paper.ipynb"


def _summary(findings: list[Finding]) -> list[tuple[str, int | None, str]]:
    return [(f.code, f.cell, f.severity.value) for f in findings]


def test_pyproject_metadata_and_tag_all_apply() -> None:
    findings = check(PAPER)
    assert _summary(findings) == [
        ("MECH027", None, "warning"),   # info re-levelled by notebook metadata (by slug)
        ("MECH028", None, "warning"),   # unknown rule MECH999 in pyproject
        ("MECH028", None, "warning"),   # unknown severity "loud" in pyproject
        ("MECH024", 16, "error"),       # warning re-levelled by pyproject
    ]
    # disabled: MECH023 (pyproject, by slug), MECH026 (notebook metadata, by code);
    # suppressed: MECH003 on the claim cell by `mech-ignore:theorem-without-interpretation`
    assert "MECH999" in findings[1].message and "pyproject.toml" in findings[1].message


def test_explicit_config_replaces_the_pyproject_but_not_the_notebook_metadata() -> None:
    findings = check(PAPER, config={})
    assert _summary(findings) == [("MECH027", None, "warning"), ("MECH024", 16, "warning"),
                                  ("MECH023", 16, "warning")]
    cfg = CheckConfig(disabled=frozenset({"MECH024"}), severity={"MECH023": Severity.INFO})
    assert _summary(check(PAPER, config=cfg)) == [("MECH027", None, "warning"),
                                                  ("MECH023", 16, "info")]


def test_the_nearest_pyproject_is_used(tmp_path: Path) -> None:
    assert find_pyproject(PAPER) == PROJECT / "pyproject.toml"
    # the same notebook elsewhere, without the project's pyproject
    copy = tmp_path / "paper.ipynb"
    shutil.copy(PAPER, copy)
    (tmp_path / "refs.bib").write_text("@misc{olsson2022, title={x}}\n@misc{elhage2021,"
                                       " title={y}}\n")
    raw = json.loads(copy.read_text("utf-8"))
    raw["metadata"]["mechnb"]["bibliography"] = "refs.bib"
    copy.write_text(json.dumps(raw), encoding="utf-8")
    if find_pyproject(copy) is None:
        assert {f.code for f in check(copy)} == {"MECH027", "MECH024", "MECH023"}
    # a broken pyproject is reported, never raised
    (tmp_path / "pyproject.toml").write_text("[tool.mechnb\ndisable = 3\n")
    codes = [f.code for f in check(copy)]
    assert "MECH028" in codes
    (tmp_path / "pyproject.toml").write_text("[tool.mechnb]\ndisable = 3\nseverity = []\n")
    messages = [f.message for f in check(copy) if f.code == "MECH028"]
    assert len(messages) == 2 and "`disable` should be a list" in messages[0]


def test_suppression_by_code_slug_and_all(checker_fixtures: Path) -> None:
    path = checker_fixtures / "rules" / "MECH003-theorem-without-interpretation" / "fires.ipynb"
    raw = json.loads(path.read_text("utf-8"))
    assert [f.cell for f in check(paper_from_dict(raw, path))] == [10, 12]
    raw["cells"][10]["metadata"]["tags"].append("mech-ignore:MECH003")
    raw["cells"][12]["metadata"]["tags"].append("mech-ignore:all")
    assert check(paper_from_dict(raw, path)) == []


def test_bad_notebook_config_is_a_finding(checker_fixtures: Path) -> None:
    raw = json.loads((checker_fixtures / "clean.ipynb").read_text("utf-8"))
    raw["metadata"]["mechnb"]["checks"] = {"disable": "todo-left", "severity": {"nope": "info"}}
    path = checker_fixtures / "clean.ipynb"
    findings = check(paper_from_dict(raw, path))
    assert [(f.code, f.message) for f in findings] == [
        ("MECH028", "notebook metadata.mechnb.checks: `severity` names an unknown rule 'nope'")]


def test_find_rule_by_code_or_slug() -> None:
    rule = find_rule("theorem-without-interpretation")
    assert rule is not None and rule.code == "MECH003"
    assert find_rule("mech003") is rule
    assert find_rule("nothing") is None
