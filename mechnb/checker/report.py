"""Presenting findings: the summary line, the rule tables (text and README markdown), HTML."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape

from ..findings import Finding, Severity
from .rules import RULES

RULE_TABLE_START = "<!-- rules:start (generated from mechnb.checker.RULES) -->"
RULE_TABLE_END = "<!-- rules:end -->"


def summary_line(path: str, findings: Sequence[Finding]) -> str:
    """``paper.ipynb: 2 errors, 1 warning, 0 info`` (or ``no findings``)."""
    if not findings:
        return f"{path}: no findings — the argument closes"
    counts = Counter(f.severity for f in findings)

    def n(sev: Severity, word: str) -> str:
        k = counts.get(sev, 0)
        return f"{k} {word}{'' if k == 1 or word == 'info' else 's'}"

    return (f"{path}: {n(Severity.ERROR, 'error')}, {n(Severity.WARNING, 'warning')}, "
            f"{n(Severity.INFO, 'info')}")


def rule_table_text() -> str:
    """Every rule, one per line, for ``mechnb check --rules``."""
    width = max(len(r.name) for r in RULES)
    return "\n".join(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}"
                     for r in RULES)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rule_table_markdown() -> str:
    """The README's rule table (regenerate it with ``python -m mechnb.checker.report``)."""
    lines = [RULE_TABLE_START, "",
             "| code | name | severity | what it checks | what to do |",
             "|---|---|---|---|---|"]
    for r in RULES:
        lines.append(f"| {r.code} | `{r.name}` | {r.severity.value} | {_md_cell(r.doc)} | "
                     f"{_md_cell(r.summary)} |")
    lines += ["", RULE_TABLE_END]
    return "\n".join(lines)


_SEVERITY_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


def findings_html(findings: Sequence[Finding], path: str, svg: str | None = None,
                  note: str | None = None) -> str:
    """A table of findings (every text escaped); rows carry the cell id/index for the frontend."""
    from importlib import resources

    css = resources.files("mechnb.checker").joinpath("report.css").read_text("utf-8")
    rows = []
    for f in findings:
        attrs = ""
        if f.cell is not None:
            attrs += f' data-mechnb-cell-index="{f.cell}"'
        if f.cell_id:
            attrs += f' data-mechnb-cell-id="{escape(f.cell_id, quote=True)}"'
        where = "notebook" if f.cell is None else f"cell {f.cell}"
        if f.line is not None:
            where += f":{f.line}"
        rows.append(
            f'<tr class="mechnb-finding mechnb-{f.severity.value}"{attrs}>'
            f"<td>{escape(where)}</td>"
            f'<td><span class="mechnb-sev">{escape(f.severity.value)}</span></td>'
            f"<td><code>{escape(f.code)}</code> {escape(f.name)}</td>"
            f"<td>{escape(f.message)}</td></tr>")
    head = escape(summary_line(path, findings))
    if note:
        head += f' <span class="mechnb-note">{escape(note)}</span>'
    table = ("" if not rows else
             '<table class="mechnb-findings"><thead><tr><th>where</th><th>severity</th>'
             "<th>rule</th><th>what to do</th></tr></thead><tbody>"
             + "".join(rows) + "</tbody></table>")
    picture = f'<details open><summary>argument map</summary>{svg}</details>' if svg else ""
    return (f'<div class="mechnb-check"><style>{css}</style>'
            f'<p class="mechnb-summary">{head}</p>{table}{picture}</div>')


if __name__ == "__main__":  # pragma: no cover - maintenance helper
    print(rule_table_markdown())
