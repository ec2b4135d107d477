"""Presenting findings: the summary line, the rule tables (text and the docs site's markdown), HTML.

Importing it is cheap (``mechnb export`` prints findings with it): the rule registry is imported
only by the rule tables."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from html import escape

from ..findings import Finding, Severity

SLOT_CODE = "MECH025"
"""Unfilled template slots: summarised in one line in every view a person reads."""
SLOTS_SHOWN = 3
"""Slots named in the summary line."""
_SLOT = re.compile(r"\[[^\]]*\]")
_SLOT_COUNT = re.compile(r"\b(\d+) template slots?\b")

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


def by_severity(findings: Sequence[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; document order within each (DESIGN §2a)."""
    return sorted(findings, key=lambda f: -f.severity.rank)  # sorted() is stable


def slot_count(f: Finding) -> int:
    """The number of slots one MECH025 finding stands for (one finding per cell: ``8 template
    slots still unfilled: …`` / ``… as inserted (8 template slots: …)``)."""
    m = _SLOT_COUNT.search(f.message)
    return int(m.group(1)) if m else 0


def slot_summary(slots: Sequence[Finding]) -> str:
    """``189 unfilled template slots in 30 cells — first: [phenomenon] (cell 2), …``."""
    cells = {f.cell for f in slots}
    first = []
    for f in slots[:SLOTS_SHOWN]:
        m = _SLOT.search(f.message)
        where = "notebook" if f.cell is None else f"cell {f.cell_number}"
        first.append(f"{m.group() if m else f.code} ({where})")
    n = sum(slot_count(f) for f in slots)
    return (f"{n} unfilled template slot{'' if n == 1 else 's'} in {len(cells)} "
            f"cell{'' if len(cells) == 1 else 's'} — first: {', '.join(first)}"
            f"{', …' if len(slots) > SLOTS_SHOWN else ''}")


def finding_lines(findings: Sequence[Finding], path: str, *, verbose: bool = False,
                  list_hint: str = "--verbose lists each") -> list[str]:
    """One line per finding, errors first; the unfilled template slots in one line (each on
    its own line with ``verbose``)."""
    ordered = by_severity(findings)
    slots = [f for f in ordered if f.code == SLOT_CODE]
    lines: list[str] = []
    for f in ordered:
        if f.code != SLOT_CODE or verbose:
            lines.append(f.format(path))
        elif f is slots[0]:
            lines.append(f"{path}: {f.code} {f.severity.value} {f.name}: {slot_summary(slots)}"
                         f" ({list_hint})")
    return lines


def report_lines(findings: Sequence[Finding], path: str, *, verbose: bool = False,
                 list_hint: str = "--verbose lists each") -> list[str]:
    """The text report: ``finding_lines`` then the summary line."""
    return [*finding_lines(findings, path, verbose=verbose, list_hint=list_hint),
            summary_line(path, findings)]


def rule_table_text() -> str:
    """Every rule, one per line, for ``mechnb check --rules``."""
    from .rules import RULES  # the registry is imported only where a table lists it

    width = max(len(r.name) for r in RULES)
    return "\n".join(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}"
                     for r in RULES)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rule_table_markdown() -> str:
    """The rule table of ``docs/reference/rules.md`` (``scripts/docs_site.py`` rewrites it)."""
    from .rules import RULES

    lines = [RULE_TABLE_START, "",
             "| code | name | severity | what it checks | what to do |",
             "|---|---|---|---|---|"]
    for r in RULES:
        lines.append(f"| {r.code} | `{r.name}` | {r.severity.value} | {_md_cell(r.doc)} | "
                     f"{_md_cell(r.summary)} |")
    lines += ["", RULE_TABLE_END]
    return "\n".join(lines)


def _where(f: Finding) -> str:
    where = "notebook" if f.cell is None else f"cell {f.cell_number}"
    return where if f.line is None else f"{where}:{f.line}"


def _where_html(f: Finding) -> str:
    """``cell 27:3`` with the number in a ``span.mechnb-cell-number`` that carries the cell's id
    and saved index: the number is the saved file's, and a frontend that knows the live
    notebook (the extension) rewrites it to the cell's number there, found by its id — cells
    inserted or moved since the last save shift the numbers (DESIGN §2a)."""
    if f.cell is None:
        return escape(_where(f))
    line = "" if f.line is None else f":{f.line}"
    return (f'<span class="mechnb-cell-number"{_cell_attrs(f)}>cell {f.cell_number}</span>'
            f"{line}")


def _cell_attrs(f: Finding) -> str:
    attrs = ""
    if f.cell is not None:
        attrs += f' data-mechnb-cell-index="{f.cell}"'
    if f.cell_id:
        attrs += f' data-mechnb-cell-id="{escape(f.cell_id, quote=True)}"'
    return attrs


def _slot_row(slots: Sequence[Finding]) -> str:
    """One row for every unfilled slot; the slots themselves are listed when it is opened."""
    items = "".join(f"<li{_cell_attrs(f)}>{_where_html(f)}: "
                    f"{escape(m.group() if (m := _SLOT.search(f.message)) else f.message)}</li>"
                    for f in slots)
    f = slots[0]
    return (f'<tr class="mechnb-finding mechnb-{f.severity.value} mechnb-slots">'
            f"<td>{len({s.cell for s in slots})} cells</td>"
            f'<td><span class="mechnb-sev">{escape(f.severity.value)}</span></td>'
            f"<td><code>{escape(f.code)}</code> {escape(f.name)}</td>"
            f"<td><details><summary>{escape(slot_summary(slots))}</summary>"
            f'<ul class="mechnb-slot-list">{items}</ul></details></td></tr>')


def findings_html(findings: Sequence[Finding], path: str, svg: str | None = None,
                  note: str | None = None) -> str:
    """A table of findings (every text escaped); rows carry the cell id/index for the frontend."""
    from importlib import resources

    css = resources.files("mechnb.checker").joinpath("report.css").read_text("utf-8")
    rows = []
    ordered = by_severity(findings)
    slots = [f for f in ordered if f.code == SLOT_CODE]
    for f in ordered:
        if f.code == SLOT_CODE:
            if f is slots[0]:
                rows.append(_slot_row(slots))
            continue
        rows.append(
            f'<tr class="mechnb-finding mechnb-{f.severity.value}"{_cell_attrs(f)}>'
            f"<td>{_where_html(f)}</td>"
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
    # at its own size (text 10-12 px) with a scroll bar, not shrunk to the output's width; the
    # zoomable panel is the extension's "Argument Map (mechnb)"
    sized = svg.replace("<svg ", '<svg style="max-width:none" ', 1) if svg else ""
    picture = (f'<details open><summary>argument map</summary><div class="mechnb-argmap-scroll" '
               f'style="overflow-x:auto;max-width:100%">{sized}</div></details>'
               if svg else "")
    return (f'<div class="mechnb-check"><style>{css}</style>'
            f'<p class="mechnb-summary">{head}</p>{table}{picture}</div>')


if __name__ == "__main__":  # pragma: no cover - maintenance helper
    print(rule_table_markdown())
