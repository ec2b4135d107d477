"""``mechnb phrases`` as a function, and ``%mech phrases`` in an in-process IPython shell."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import pytest
from IPython.testing import globalipapp
from phrase_fixtures import FIXTURES

from mechnb.cli import main
from mechnb.errors import UsageError
from mechnb.kernel.magics import run_mech
from mechnb.phrases.library import Library
from mechnb.phrases.lookup import functions, search
from mechnb.phrases.magic import mech_phrases, parse_args
from mechnb.phrases.panel import PhrasePanel, bridge_inserter


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["phrases", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_is_a_list_of_records(library: Library) -> None:
    code, out, _ = _run("closed", "form", "--format", "json")
    assert code == 0
    records = json.loads(out)
    assert [r["id"] for r in records] == [p.id for p in search("closed form")]
    assert records[0] == search("closed form")[0].to_record()
    assert set(records[0]) == {"id", "function", "en", "zh", "slots", "slots_zh", "note"}


def test_no_query_lists_every_phrase_of_the_filter(library: Library) -> None:
    code, out, _ = _run("--function", "limitations", "--format", "json")
    ids = [r["id"] for r in json.loads(out)]
    assert code == 0 and ids == [p.id for p in library.phrases
                                 if p.function.startswith("limitations/")]


def test_text_output_in_one_language() -> None:
    code, out, _ = _run("闭式", "--lang", "zh", "--limit", "2")
    first = search("闭式", lang="zh")[0]
    assert code == 0
    expected = f"{first.id}  [{first.function}]\n  {first.zh}\n    note: {first.note_zh}"
    assert out.startswith(expected)
    assert first.en not in out and out.count("note:") == 2


def test_text_output_in_both_languages() -> None:
    _, out, _ = _run("research", "question", "--limit", "1")
    first = search("research question")[0]
    assert f"  en: {first.en}\n  zh: {first.zh}\n" in out


def test_no_match_says_so_on_stderr() -> None:
    code, out, err = _run("zebra", "quokka")
    assert code == 0 and out == "" and "no phrase matches" in err


def test_list_functions(library: Library) -> None:
    code, out, _ = _run("--list-functions")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(functions(library))
    assert "  missing-closed-form  (" in out
    code, out, _ = _run("--list-functions", "--format", "json")
    assert json.loads(out)[0] == {"function": "title", "count": functions(library)[0].count}


def test_unknown_function_is_an_error() -> None:
    code, _, err = _run("gap", "--function", "introduction/nope")
    assert code == 1 and "unknown function" in err and "--list-functions" in err


def test_cli_module_import_is_light() -> None:
    code = ("import sys, mechnb.phrases.cli; "
            "print(sorted(m for m in ('ipywidgets', 'json', 'mechnb.phrases.library') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert "ipywidgets" not in done.stdout and "mechnb.phrases.library" not in done.stdout


@pytest.fixture
def shell() -> Iterator[Any]:
    ip = globalipapp.get_ipython()
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.run_line_magic("unload_ext", "mechnb")


def test_magic_returns_the_panel_inline_without_the_extension(shell: Any) -> None:
    widget = mech_phrases(shell, ["closed", "form", "--lang", "zh",
                                  "--function", "introduction"])
    assert isinstance(widget, widgets.VBox)
    search_box, dropdown, toggle = widget.children[:3]
    assert search_box.value == "closed form"
    assert dropdown.value == "introduction" and toggle.value == "zh"


def test_mech_phrases_through_the_line_magic(shell: Any) -> None:
    widget = run_mech(shell, "phrases research question")
    assert isinstance(widget, widgets.VBox) and widget.children[0].value == "research question"


def test_magic_usage_errors(shell: Any) -> None:
    with pytest.raises(UsageError, match="list-functions"):
        mech_phrases(shell, ["--function", "nowhere"])
    with pytest.raises(UsageError, match="usage"):
        mech_phrases(shell, ["--lang", "fr"])
    assert parse_args(["a", "b", "-f", "title"]).query == ["a", "b"]


def test_default_insert_without_a_frontend_offers_the_copy_box(shell: Any,
                                                               library: Library) -> None:
    panel = PhrasePanel("roadmap", library=library, on_insert=bridge_inserter(shell))
    panel.rows[0].insert_button.click()
    assert panel.copy_box.layout.display == "flex"
    assert panel.copy_area.value == panel.results[0].en


def test_magic_follows_the_language_of_the_notebook(shell: Any) -> None:
    paper = FIXTURES / "zh_paper.ipynb"
    shell.user_ns["__session__"] = str(paper)
    try:
        widget = mech_phrases(shell, ["因果链"])
        explicit = mech_phrases(shell, ["--lang", "en"])
    finally:
        del shell.user_ns["__session__"]
    toggle = widget.children[2]
    assert toggle.value == "zh"
    assert explicit.children[2].value == "en"
