"""The role registry covers DESIGN.md §2 and every role is fully described."""

from __future__ import annotations

import re

import pytest

from mechnb.roles import get_role, registry, role_names, suggest_role, with_obligation

DESIGN_ROLES = {
    "narrative": "title abstract context prior gap question lens contributions implication "
                 "conclusion limitations future",
    "formal": "setup definition assumption formula theorem lemma proposition corollary claim "
              "remark proof mechanism interpretation",
    "evidence": "experiment result figure",
    "other": "appendix note",
}
LATEX_KINDS = {"title", "abstract", "text", "box", "runin", "environment", "proof", "evidence",
               "appendix", "omit"}
OBLIGATIONS = {"paper-requires", "paper-ends-with", "needs-interpretation", "needs-closure",
               "needs-motivation", "needs-symbol-explanation", "before-main-theorem", "needs-run",
               "needs-caption"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_registry_is_exactly_the_design_vocabulary() -> None:
    expected = {(group, name) for group, names in DESIGN_ROLES.items() for name in names.split()}
    assert {(r.group, r.name) for r in registry().values()} == expected


@pytest.mark.parametrize("name", role_names())
def test_role_is_fully_described(name: str) -> None:
    role = get_role(name)
    assert role is not None
    assert role.purpose("en") and not CJK.search(role.purpose("en"))
    assert CJK.search(role.purpose("zh"))
    assert role.latex_kind in LATEX_KINDS
    assert set(role.obligations) <= OBLIGATIONS
    if role.latex_kind == "environment":
        assert role.latex["env"] and role.latex["style"] in {"plain", "definition", "remark"}
        assert role.display("en") and CJK.search(role.display("zh"))


def test_obligations_match_the_argument_model() -> None:
    assert {r.name for r in with_obligation("needs-interpretation")} >= {
        "theorem", "lemma", "proposition", "claim"}
    assert {r.name for r in with_obligation("needs-closure")} == {"theorem", "claim"}
    assert {r.name for r in with_obligation("paper-requires")} == {"gap", "lens", "limitations"}


@pytest.mark.parametrize(("typo", "expected"), [
    ("theorm", "theorem"), ("interp", "interpretation"), ("lema", "lemma"),
    ("Definition", "definition"), ("experiments", "experiment"), ("xyzzy", None)])
def test_suggest_role(typo: str, expected: str | None) -> None:
    assert suggest_role(typo) == expected
