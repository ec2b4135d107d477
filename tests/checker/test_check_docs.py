"""The docs site documents every rule exactly as the registry defines it: the rule reference
(docs/reference/rules.md) and the guide to `mechnb check` (docs/guide/check.md)."""

from __future__ import annotations

from pathlib import Path

from mechnb.checker import RULES
from mechnb.checker.report import RULE_TABLE_END, RULE_TABLE_START, rule_table_markdown

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
RULES_PAGE = DOCS / "reference" / "rules.md"
CHECK_PAGE = DOCS / "guide" / "check.md"


def test_the_rule_reference_matches_the_registry() -> None:
    section = RULES_PAGE.read_text("utf-8")
    table = section[section.index(RULE_TABLE_START):section.index(RULE_TABLE_END)
                    + len(RULE_TABLE_END)]
    assert table == rule_table_markdown(), (
        "docs/reference/rules.md is stale: regenerate it with `python scripts/docs_site.py`")
    for rule in RULES:
        assert f"| {rule.code} | `{rule.name}` | {rule.severity.value} |" in table


def test_the_guide_documents_usage_config_and_exit_codes() -> None:
    # what README's check section held: the guide and the rule reference
    section = CHECK_PAGE.read_text("utf-8") + RULES_PAGE.read_text("utf-8")
    for needle in ("--format json", "--strict", "--map", "[tool.mechnb]", "mech-ignore:MECH003",
                   "metadata.mechnb", "**Exit codes:**", "`cell_id`", "%mech check"):
        assert needle in section
