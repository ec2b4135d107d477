"""The substance rules (issue 20) on one sound paper in English and in Chinese, and on copies of
it with exactly one planted defect each (``tests/fixtures/checker/substance/``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixture_scripts import fixture_script

from mechnb.checker import RULES, check

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "checker" / "substance"
SPECS = sorted((HERE / "plants").glob("*.json"))
SUBSTANCE = {r.code for r in RULES if r.group == "substance"}


def _make_sound() -> Any:
    return fixture_script(HERE / "make_sound.py")


def _keys(path: Path) -> set[tuple[str, int | None, str]]:
    return {(f.code, f.cell, f.severity.value) for f in check(path)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sound_paper_has_no_findings(lang: str) -> None:
    findings = check(HERE / f"sound_{lang}.ipynb")
    assert [f.format(f"sound_{lang}.ipynb") for f in findings] == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_planted_defect_gives_exactly_its_findings(spec: Path) -> None:
    data = json.loads(spec.read_text("utf-8"))
    copy = HERE / "planted" / f"{spec.stem}.ipynb"
    new = _keys(copy) - _keys(HERE / f"{data['base']}.ipynb")
    expected = {(e["code"], e["cell"], e["severity"]) for e in data["expect"]}
    assert new == expected, data["description"]


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_planted_copy_is_up_to_date_with_its_spec(spec: Path) -> None:
    make = _make_sound()
    committed = json.loads((HERE / "planted" / f"{spec.stem}.ipynb").read_text("utf-8"))
    assert make.planted(spec) == committed, "run make_sound.py --plants"


def test_every_substance_rule_is_planted_in_both_languages() -> None:
    planted: dict[str, set[str]] = {}
    for spec in SPECS:
        data = json.loads(spec.read_text("utf-8"))
        lang = data["base"].rsplit("_", 1)[1]
        for e in data["expect"]:
            planted.setdefault(e["code"], set()).add(lang)
    for code in sorted(SUBSTANCE):
        assert planted.get(code) == {"en", "zh"}, f"{code} has no planted copy in both languages"


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_planted_finding_is_silenced_by_its_tag_and_by_configuration(spec: Path) -> None:
    from mechnb.notebook import paper_from_dict

    data = json.loads(spec.read_text("utf-8"))
    path = HERE / "planted" / f"{spec.stem}.ipynb"
    nb = json.loads(path.read_text("utf-8"))
    planted = {(e["code"], e["cell"]) for e in data["expect"]}
    for code, cell in planted:
        if cell is not None:
            nb["cells"][cell]["metadata"].setdefault("tags", []).append(f"mech-ignore:{code}")
    tagged = {(f.code, f.cell) for f in check(paper_from_dict(nb, path))}
    assert not {p for p in planted if p[1] is not None} & tagged
    for code in {code for code, _ in planted}:
        assert code not in {f.code for f in check(path, config={"disable": [code]})}
        relevelled = check(path, config={"severity": {code: "info"}})
        assert {f.severity.value for f in relevelled if f.code == code} <= {"info"}
