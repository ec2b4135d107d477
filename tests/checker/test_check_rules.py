"""Every rule, on fixture notebooks where it must fire and where it must not (exact findings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mechnb.checker import RULES, check
from mechnb.findings import Severity

CHECKER_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"

RULE_DIRS = sorted((CHECKER_FIXTURES / "rules").iterdir())
CASES = [pytest.param(d, kind, id=f"{d.name}-{kind}")
         for d in RULE_DIRS for kind in ("fires", "passes")]
# Rules whose fixtures are elsewhere (reading findings, configuration): see test_config.py and
# test_format_findings.
NOT_IN_RULE_DIRS = {"MECH028", "MECH901", "MECH902", "MECH903", "MECH904", "MECH905"}


def _found(path: Path) -> list[dict[str, object]]:
    return [{"code": f.code, "cell": f.cell, "line": f.line} for f in check(path)]


@pytest.mark.parametrize(("folder", "kind"), CASES)
def test_fixture_gives_exactly_the_expected_findings(folder: Path, kind: str) -> None:
    expected = json.loads((folder / "expected.json").read_text("utf-8"))
    assert _found(folder / f"{kind}.ipynb") == expected[kind]


@pytest.mark.parametrize("folder", RULE_DIRS, ids=lambda d: d.name)
def test_the_rule_fires_on_fires_and_not_on_passes(folder: Path) -> None:
    code = folder.name.split("-", 1)[0]
    assert code in {f["code"] for f in _found(folder / "fires.ipynb")}
    assert code not in {f["code"] for f in _found(folder / "passes.ipynb")}


def test_every_rule_has_a_fixture_folder() -> None:
    covered = {d.name.split("-", 1)[0] for d in RULE_DIRS}
    names = {d.name.split("-", 1)[0]: d.name.split("-", 1)[1] for d in RULE_DIRS}
    for rule in RULES:
        if rule.code in NOT_IN_RULE_DIRS:
            continue
        assert rule.code in covered, f"{rule.code} has no fixture folder"
        assert names[rule.code] == rule.name


def test_the_clean_paper_has_no_findings(checker_fixtures: Path) -> None:
    assert check(checker_fixtures / "clean.ipynb") == []


def test_rule_registry_is_well_formed() -> None:
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes) and len(set(names)) == len(names)
    assert codes == sorted(codes)
    for rule in RULES:
        assert rule.code.startswith("MECH") and len(rule.code) == 7
        assert rule.name == rule.name.lower() and " " not in rule.name
        assert isinstance(rule.severity, Severity)
        assert rule.summary.endswith(".") and "\n" not in rule.summary
        assert rule.doc


def test_obligations_of_the_role_registry_all_have_a_rule() -> None:
    from mechnb.roles import registry

    obligations = {o for r in registry().values() for o in r.obligations}
    enforced = {r.obligation for r in RULES if r.obligation}
    assert obligations <= enforced


def test_findings_carry_cell_ids_lines_and_labels(checker_fixtures: Path) -> None:
    folder = checker_fixtures / "rules" / "MECH015-unresolved-reference"
    findings = [f for f in check(folder / "fires.ipynb") if f.code == "MECH015"]
    first = findings[0]
    assert first.cell_id == f"cell-{first.cell}"
    assert first.labels == ("fig:missing",)
    assert (first.line, first.column) == (1, 85)
    text = first.format("fires.ipynb")
    assert first.cell == 18  # 0-based in data, 1-based for people (DESIGN §2a)
    assert text.startswith("fires.ipynb[cell 19]:1:85: MECH015 error unresolved-reference: "
                           "\\cref{fig:missing}")


def test_unbalanced_tex_names_both_ends(checker_fixtures: Path) -> None:
    folder = checker_fixtures / "rules" / "MECH021-unbalanced-tex"
    messages = [f.message for f in check(folder / "fires.ipynb") if f.code == "MECH021"]
    assert messages[0] == ("`{` at line 3:21 is not closed before the math ends at line 3:25; "
                           "add `}`")
    assert "`\\left` at line 6:6 is closed by `\\end{aligned}` at line 7:1" in messages[2]
    assert "the cell ends at line 7:14" in messages[1]


def test_check_accepts_a_paper_and_never_mutates_the_notebook(checker_fixtures: Path) -> None:
    from mechnb.notebook import paper_from_dict

    path = checker_fixtures / "rules" / "MECH004-unclosed-statement" / "fires.ipynb"
    raw = json.loads(path.read_text("utf-8"))
    before = json.dumps(raw, sort_keys=True)
    by_paper = check(paper_from_dict(raw, path))
    assert json.dumps(raw, sort_keys=True) == before
    assert by_paper == check(path)


@pytest.mark.parametrize(("value", "problem"), [
    ("nowhere.bib", "does not exist"), ("/", "does not exist"), (",", "names no .bib file"),
    ("~nosuchuser/x", "does not exist"), ("refs", None), ("refs.bib, ../checker/refs.bib", None),
])
def test_bibliography_paths(checker_fixtures: Path, value: str, problem: str | None) -> None:
    from mechnb.notebook import paper_from_dict

    raw = json.loads((checker_fixtures / "clean.ipynb").read_text("utf-8"))
    raw["metadata"]["mechnb"]["bibliography"] = value
    findings = check(paper_from_dict(raw, checker_fixtures / "clean.ipynb"))
    messages = [f.message for f in findings if f.code == "MECH016"]
    if problem is None:
        assert findings == []
    else:
        assert len(messages) == 1 and problem in messages[0]


def test_reading_findings_are_rules_too(checker_fixtures: Path) -> None:
    expected = json.loads((checker_fixtures / "format.expected.json").read_text("utf-8"))

    def got(config: dict[str, object] | None) -> list[list[object]]:
        return [[f.code, f.cell, f.severity.value]
                for f in check(checker_fixtures / "format.ipynb", config=config)
                if f.code >= "MECH026"]

    assert got(None) == expected["default"]
    assert got(expected["config"]) == expected["configured"]


def test_top_level_mechnb_check_is_the_checker(checker_fixtures: Path) -> None:
    import mechnb

    path = checker_fixtures / "rules" / "MECH026-no-boxed-question" / "fires.ipynb"
    assert mechnb.check(path) == check(path)
