"""``%mech check`` in a real in-process IPython shell: the report, its HTML, and its errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp

from mechnb.checker.magic import CheckReport, mech_check
from mechnb.kernel.magics import run_mech

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"
ESCAPING = FIXTURES / "escaping.ipynb"
UNCLOSED = FIXTURES / "rules" / "MECH004-unclosed-statement" / "fires.ipynb"


@pytest.fixture
def shell() -> Iterator[Any]:
    globalipapp.start_ipython()
    ip = globalipapp.get_ipython()  # the module attribute is the real shell once started
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.user_ns.pop("__session__", None)
    ip.run_line_magic("unload_ext", "mechnb")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(html)
    return parser.tags


def test_explicit_path_gives_a_report_with_table_and_map(shell: Any) -> None:
    report = run_mech(shell, f"check {UNCLOSED}")
    assert isinstance(report, CheckReport)
    html = report._repr_html_()
    rows = [attrs for tag, attrs in _tags(html)
            if tag == "tr" and "data-mechnb-cell-index" in attrs]
    assert [(r["data-mechnb-cell-index"], r["data-mechnb-cell-id"]) for r in rows] == [
        ("10", "cell-10"), ("15", "cell-15")]
    assert "<svg" in html and "no validation" in html
    text = repr(report)
    assert text.splitlines()[0].startswith("fires.ipynb[cell 11]: MECH004 error")
    assert text.endswith("fires.ipynb: 1 error, 1 warning, 0 info (last saved version)")


def test_the_kernels_notebook_is_found_from_the_session(shell: Any) -> None:
    shell.user_ns["__session__"] = str(UNCLOSED)
    report = mech_check(shell, ["--no-map"])
    assert isinstance(report, CheckReport)
    assert report.path == UNCLOSED.resolve() and report.svg is None
    assert [f.code for f in report.findings] == ["MECH004", "MECH009"]


def test_unknown_notebook_says_what_to_do(shell: Any) -> None:
    shell.user_ns.pop("__session__", None)
    with pytest.raises(UsageError, match=r"pass its path: %mech check paper\.ipynb"):
        shell.run_line_magic("mech", "check")
    with pytest.raises(UsageError, match="no such notebook"):
        shell.run_line_magic("mech", "check /nowhere/paper.ipynb")
    with pytest.raises(UsageError, match="unrecognized arguments"):
        shell.run_line_magic("mech", f"check {UNCLOSED} --bogus")


def test_all_text_is_escaped(shell: Any) -> None:
    report = mech_check(shell, [str(ESCAPING)])
    assert isinstance(report, CheckReport)
    html = report._repr_html_()
    assert "<script" not in html and "<img" not in html and "<em>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    cell_ids = [a.get("data-mechnb-cell-id") for t, a in _tags(html) if t == "tr"]
    assert 'x"><script>alert(1)</script>' in cell_ids  # an attribute value, not markup
    assert report.svg is not None
    ET.fromstring(report.svg)  # well-formed XML despite <, >, & and quotes in titles/labels
    assert "thm:&lt;main&gt;" in report.svg


def test_display_in_the_shell_shows_html(shell: Any) -> None:
    from IPython.core.formatters import DisplayFormatter

    report = run_mech(shell, f"check {UNCLOSED} --no-map")
    data, _ = DisplayFormatter().format(report)  # what a Jupyter kernel sends to the frontend
    assert "mechnb-findings" in data["text/html"]
    assert "MECH004" in data["text/plain"]


def test_the_report_says_it_checked_the_saved_file(shell: Any) -> None:
    report = mech_check(shell, [str(UNCLOSED), "--no-map"])
    assert isinstance(report, CheckReport)
    assert "last saved version" in report._repr_html_()
