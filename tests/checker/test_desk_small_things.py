"""Issue 38's small things on the checker side: mechnb's own magic cells and run order,
``%mech check`` numbers on a notebook with unsaved cells (fixture notebooks in
``tests/fixtures/desk/``)."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from IPython.testing import globalipapp

from mechnb.checker import check
from mechnb.checker.magic import CheckReport, mech_check
from mechnb.checker.reproduce import is_tool_cell

DESK = Path(__file__).resolve().parent.parent / "fixtures" / "desk"


def test_rerunning_the_magic_cells_is_not_running_out_of_order() -> None:
    # %load_ext (count 9) and %mech theorem (8) were run again above the code (2, 3), and a
    # %reload_ext + %mech check cell below: no MECH077
    assert [f for f in check(DESK / "rerun_magics.ipynb") if f.code == "MECH077"] == []
    # the same notebook with the code itself run out of order still gets it, once
    found = [f for f in check(DESK / "rerun_out_of_order.ipynb") if f.code == "MECH077"]
    assert [(f.cell, f.cell_id) for f in found] == [(5, "compute")]


@pytest.mark.parametrize(("source", "tool"), [
    ("%load_ext mechnb", True),
    ("# loads the magics\n%reload_ext mechnb\n\n%mech check --no-map", True),
    ("%mech validate thm:main --kind intervention", True),
    ("%load_ext autoreload", False),
    ("%mech theorem\nx = 1", False),
    ("%mechanism", False),
    ("# only a comment", False),
])
def test_tool_cells_are_only_mechnb_magics(source: str, tool: bool) -> None:
    assert is_tool_cell(source) is tool


@pytest.fixture
def shell() -> Iterator[Any]:
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.parent_header = {}
    ip.run_line_magic("unload_ext", "mechnb")


class _Spans(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.spans: list[dict[str, str | None]] = []
        self.texts: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "span" and ("class", "mechnb-cell-number") in attrs:
            self.spans.append(dict(attrs))
            self._open = True

    def handle_data(self, data: str) -> None:
        if self._open:
            self.texts.append(data)
            self._open = False


def test_check_rows_carry_the_cell_id_with_each_number_and_say_when_the_file_is_stale(
        shell: Any) -> None:
    path = DESK / "rerun_out_of_order.ipynb"
    # run from a cell the saved file does not have yet (added since the last save)
    shell.parent_header = {"metadata": {"cellId": "not-saved-yet"}, "header": {}}
    report = mech_check(shell, [str(path), "--no-map"])
    assert isinstance(report, CheckReport)
    assert not report.stale  # a path given: the magic does not know it is this notebook
    shell.user_ns["__session__"] = str(path)
    try:
        report = mech_check(shell, ["--no-map"])
    finally:
        shell.user_ns.pop("__session__", None)
    assert isinstance(report, CheckReport) and report.stale
    html = report._repr_html_()
    assert "does not have this cell yet" in html and "does not have this cell yet" in repr(report)
    parser = _Spans()
    parser.feed(html)
    # each number is the saved file's, tied to its cell id for the extension to renumber
    pairs = list(zip([s["data-mechnb-cell-id"] for s in parser.spans], parser.texts, strict=True))
    assert ("compute", "cell 6") in pairs
    assert all(t == f"cell {int(s['data-mechnb-cell-index'] or 0) + 1}"
               for s, t in zip(parser.spans, parser.texts, strict=True))
    # run from a cell the file has: no such note
    shell.parent_header = {"metadata": {"cellId": "check"}, "header": {}}
    shell.user_ns["__session__"] = str(path)
    try:
        report = mech_check(shell, ["--no-map"])
    finally:
        shell.user_ns.pop("__session__", None)
    assert isinstance(report, CheckReport) and not report.stale
    assert "does not have this cell yet" not in report._repr_html_()


def test_the_argument_map_draws_one_edge_per_validation() -> None:
    from mechnb.checker.argmap import argument_map_json, build_graph
    from mechnb.notebook import read_paper

    paper = read_paper(DESK / "argmap_two_statements.ipynb")
    nodes, edges = build_graph(paper, check(paper))
    name = {n.key: n.label for n in nodes}
    stage = {n.key: n.stage for n in nodes}
    closes = sorted((name[e.source], name[e.target]) for e in edges
                    if stage[e.target] == 5 and stage[e.source] == 3)
    # each statement to the proof and the experiment that close it, nothing crosswise; an
    # experiment's text and code cells are one box (the figure's label)
    assert closes == [("clm:b", "exp:b-intervention"), ("thm:a", "cell 5"),
                      ("thm:a", "exp:a-controlled")]
    assert not any(stage[e.source] == 4 and stage[e.target] == 5 for e in edges)
    assert sorted(name[k] for k in name if stage[k] == 5) == [
        "cell 5", "exp:a-controlled", "exp:b-intervention"]
    data = argument_map_json(paper, check(paper))
    assert data["stages"][5] == "validations"
    assert {(e["source"], e["target"]) for e in data["edges"]} == {
        (e.source, e.target) for e in edges}
    box = next(n for n in data["nodes"] if n["label"] == "exp:a-controlled")
    assert box["cell_id"] and box["width"] > 0 and box["x"] > 0
