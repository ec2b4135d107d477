"""The README documents every rule exactly as the registry defines it."""

from __future__ import annotations

from pathlib import Path

from mechnb.checker import RULES
from mechnb.checker.report import RULE_TABLE_END, RULE_TABLE_START, rule_table_markdown

README = Path(__file__).resolve().parent.parent.parent / "README.md"


def _section() -> str:
    text = README.read_text("utf-8")
    return text.split("<!-- section:check -->", 1)[1].split("<!-- /section:check -->", 1)[0]


def test_readme_rule_table_matches_the_registry() -> None:
    section = _section()
    table = section[section.index(RULE_TABLE_START):section.index(RULE_TABLE_END)
                    + len(RULE_TABLE_END)]
    assert table == rule_table_markdown(), (
        "README rule table is stale: regenerate it with `python -m mechnb.checker.report`")
    for rule in RULES:
        assert f"| {rule.code} | `{rule.name}` | {rule.severity.value} |" in table


def test_readme_documents_usage_config_and_exit_codes() -> None:
    section = _section()
    for needle in ("--format json", "--strict", "--map", "[tool.mechnb]", "mech-ignore:MECH003",
                   "metadata.mechnb", "**Exit codes:**", "`cell_id`", "%mech check"):
        assert needle in section
