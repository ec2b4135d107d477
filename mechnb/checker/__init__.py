"""The closing-loop checker: does the paper's argument close? (DESIGN.md §4).

``check(paper_or_path)`` runs every rule of ``RULES`` on a notebook and returns the findings,
sorted by cell and line. Configuration comes from ``[tool.mechnb]`` in the nearest
``pyproject.toml`` and the notebook's ``metadata.mechnb.checks``; a cell tag
``mech-ignore:MECH003`` (or ``mech-ignore:<slug>``, ``mech-ignore:all``) silences a rule for
that cell — except the TeX gate MECH022, which nothing silences.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real imports happen on first use (``mechnb <cmd>`` imports cli.py)
    from ..findings import Finding
    from ..notebook import Paper
    from .config import CheckConfig
    from .rule import Rule
    from .rules import RULES, find_rule

__all__ = ["RULES", "CheckConfig", "Rule", "check", "dangerous_tex", "find_rule", "load_config",
           "rule_for", "sort_key"]

_LAZY = {"RULES": ".rules", "find_rule": ".rules", "CheckConfig": ".config", "Rule": ".rule"}


def __getattr__(name: str) -> Any:
    # ``import mechnb.checker.cli`` runs this package's __init__; keep that import cheap.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_config(paper: Paper, config: CheckConfig | Mapping[str, Any] | None = None
                ) -> CheckConfig:
    """The effective configuration: ``config`` (else the pyproject), then notebook metadata."""
    from .config import CheckConfig, load_pyproject_config, parse_config
    from .rules import rule_names

    names = rule_names()
    if config is None:
        base = load_pyproject_config(paper.path, names)
    elif isinstance(config, CheckConfig):
        base = config
    else:
        base = parse_config(config, "check(config=…)", names)
    if paper.meta.checks:
        base = base.merged(parse_config(paper.meta.checks, "notebook metadata.mechnb.checks",
                                        names))
    return _without_gate_changes(base)


def _without_gate_changes(cfg: CheckConfig) -> CheckConfig:
    """``cfg`` minus any attempt to disable or re-level the TeX gate, which becomes a problem."""
    from .config import CheckConfig
    from .rules import UNSILENCEABLE

    touched = sorted((cfg.disabled | set(cfg.severity)) & UNSILENCEABLE)
    if not touched:
        return cfg
    problems = tuple(("configuration", f"{code} cannot be disabled or re-levelled (it guards "
                                       f"against TeX that reads or writes outside the paper); "
                                       f"the setting is ignored — review the TeX, or export with "
                                       f"--trust if you wrote it yourself") for code in touched)
    return CheckConfig(cfg.disabled - UNSILENCEABLE,
                       {k: v for k, v in cfg.severity.items() if k not in UNSILENCEABLE},
                       cfg.problems + problems, cfg.source)


def sort_key(f: Finding) -> tuple[int, int, int, int, str]:
    """Notebook-level findings first, then by cell, line, column and code."""
    return (0 if f.cell is None else 1, f.cell or 0, f.line or 0, f.column or 0, f.code)


MAX_PER_RULE_AND_CELL = 100
"""Findings of one rule in one cell listed before the rest are counted in one more finding."""
MAX_PER_RULE = 2000
"""Findings one rule may produce before it is stopped (a 500 KB adversarial cell yields tens of
thousands; nobody reads them, and making them is what would cost the time)."""


def _suppressed(f: Finding, paper: Paper, names: Mapping[str, str],
                cache: dict[int, frozenset[str]]) -> bool:
    from .rules import UNSILENCEABLE

    if f.cell is None or not 0 <= f.cell < len(paper.cells) or f.code in UNSILENCEABLE:
        return False
    codes = cache.get(f.cell)
    if codes is None:
        ignored = paper.cells[f.cell].ignored_rules
        codes = cache[f.cell] = frozenset(names.get(i.lower(), i.upper()) for i in ignored)
    return bool(codes) and (f.code in codes or "ALL" in codes)


def check(paper_or_path: Paper | str | os.PathLike[str], *,
          config: CheckConfig | Mapping[str, Any] | None = None,
          rules: Sequence[Rule] | None = None) -> list[Finding]:
    """Every finding for a notebook (path or ``Paper``), sorted by cell and line.

    ``config`` replaces the pyproject configuration (a ``CheckConfig`` or a mapping with
    ``disable`` / ``severity``); the notebook's own ``metadata.mechnb.checks`` always applies.
    ``rules`` runs only those rules (LaTeX input leaves out the notebook-only ones).
    Raises ``NotebookReadError`` only when a path cannot be read as a notebook.
    """
    from dataclasses import replace

    from ..notebook import Paper, read_paper
    from .document import Document
    from .rules import RULES, rule_names

    paper = paper_or_path if isinstance(paper_or_path, Paper) else read_paper(paper_or_path)
    cfg = load_config(paper, config)
    doc = Document(paper, cfg.problems)
    names = rule_names()
    findings: list[Finding] = []
    ignored: dict[int, frozenset[str]] = {}
    any_ignored = any(c.ignored_rules for c in paper.cells)
    for rule in RULES if rules is None else rules:
        if rule.code in cfg.disabled:
            continue
        severity = cfg.severity.get(rule.code)
        per_cell: dict[int | None, int] = {}
        last: dict[int | None, Finding] = {}  # the last one listed, per cell
        made = 0
        for f in rule.check(doc, rule):
            if any_ignored and _suppressed(f, paper, names, ignored):
                continue
            made += 1
            if made > MAX_PER_RULE:
                break  # the summaries below say the count is a lower bound
            per_cell[f.cell] = n = per_cell.get(f.cell, 0) + 1
            if n > MAX_PER_RULE_AND_CELL:
                continue  # counted below: a 500 KB cell must not print 100,000 lines
            if severity is not None and f.severity != severity:
                f = replace(f, severity=severity)
            findings.append(f)
            last[f.cell] = f
        stopped = made > MAX_PER_RULE
        if stopped:
            findings.append(replace(
                findings[-1], cell=None, line=None, column=None, labels=(), cell_id=None,
                message=f"{rule.code} stopped after {MAX_PER_RULE} findings; fix these and "
                        f"check again to see the rest"))
        for cell, n in per_cell.items():
            if n > MAX_PER_RULE_AND_CELL:
                where = "the notebook" if cell is None else "this cell"
                more = f"at least {n - MAX_PER_RULE_AND_CELL}" if stopped \
                    else str(n - MAX_PER_RULE_AND_CELL)
                findings.append(replace(
                    last[cell], line=None, column=None, labels=(),
                    message=f"… and {more} more {rule.code} findings in {where} (only the "
                            f"first {MAX_PER_RULE_AND_CELL} are listed)"))
    findings.sort(key=sort_key)
    if paper.path is not None:
        where = str(paper.path)
        findings = [replace(f, file=where) for f in findings]
    return findings


def dangerous_tex(paper: Paper) -> list[Finding]:
    """The findings of the TeX gate (MECH022) alone, whatever the configuration says.

    ``export(pdf=True)`` refuses to compile while this is not empty (unless ``trust=True``).
    """
    from .document import Document
    from .rules import RULES_BY_CODE

    rule = RULES_BY_CODE["MECH022"]
    return sorted(rule.check(Document(paper), rule), key=sort_key)


def rule_for(finding: Finding) -> Rule | None:
    """The rule that produced ``finding``."""
    from .rules import RULES_BY_CODE

    return RULES_BY_CODE.get(finding.code)
