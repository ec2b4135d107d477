"""``%mech`` through an in-process IPython shell: cells produced, fallback output, errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from mechnb.cellspec import CellSpec
from mechnb.kernel.magics import run_mech


@pytest.fixture
def shell(ipython_shell: Any) -> Iterator[Any]:
    ip = ipython_shell
    ip.run_line_magic("load_ext", "mechnb")
    yield ip
    ip.run_line_magic("unload_ext", "mechnb")


def _fallback_cells(captured: Any) -> list[dict[str, Any]]:
    (output,) = [o for o in captured.outputs if "mechnb" in o.metadata]
    cells: list[dict[str, Any]] = output.metadata["mechnb"]["cells"]
    return cells


def test_theorem_shows_statement_and_interpretation(shell: Any) -> None:
    with capture_output() as captured:
        shell.run_line_magic("mech", "theorem --label thm:x --title Informal")
    cells = _fallback_cells(captured)
    roles = [c["metadata"]["mechnb"]["role"] for c in cells]
    assert roles[:2] == ["theorem", "interpretation"]
    assert cells[0]["cell_type"] == "markdown"
    assert cells[0]["metadata"]["mechnb"]["label"] == "thm:x"
    assert cells[0]["metadata"]["mechnb"]["title"] == "Informal"
    assert cells[0]["metadata"]["tags"] == ["mech:theorem"]
    markdown = captured.outputs[0].data["text/markdown"]
    assert "extension is not active" in markdown
    assert cells[0]["source"] in markdown  # the whole template is there to copy


def test_zh_templates_are_chinese(shell: Any) -> None:
    with capture_output() as captured:
        shell.run_line_magic("mech", "gap --lang zh")
    (cell,) = [c for c in _fallback_cells(captured) if c["metadata"]["mechnb"]["role"] == "gap"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in cell["source"])


def test_validate_offers_the_code_cell_as_next_input(shell: Any) -> None:
    with capture_output() as captured:
        shell.run_line_magic("mech", "validate thm:main --kind intervention")
    cells = _fallback_cells(captured)
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and code[0]["metadata"]["mechnb"]["validates"] == ["thm:main"]
    assert code[0]["metadata"]["mechnb"]["kind"] == "intervention"
    assert shell.rl_next_input == code[0]["source"]


@pytest.mark.parametrize("paper_type", ["expressivity", "dynamics", "failure"])
def test_new_scaffolds_a_whole_paper(shell: Any, paper_type: str) -> None:
    with capture_output() as captured:
        shell.run_line_magic("mech", f"new {paper_type}")
    roles = [c["metadata"]["mechnb"]["role"] for c in _fallback_cells(captured)
             if "mechnb" in c["metadata"]]
    for needed in ("gap", "lens", "theorem", "interpretation", "experiment", "limitations"):
        assert needed in roles
    assert roles.index("gap") < roles.index("lens") < roles.index("limitations")


def test_list_and_help_show_text(shell: Any) -> None:
    table = run_mech(shell, "list --lang zh")
    assert "theorem" in repr(table) and "精确陈述" in repr(table)
    assert "<table>" in table._repr_html_()
    assert "%mech validate" in repr(run_mech(shell, "help"))


@pytest.mark.parametrize(("line", "message"), [
    ("theorm --label thm:x", "did you mean 'theorem'"),
    ("valdate thm:x", "did you mean 'validate'"),
    ("theorem --labl x", "unrecognized arguments"),
    ("new survey", "unknown paper type 'survey'"),
    ("validate", "the following arguments are required: label"),
    ("theorem --lang fr", "invalid choice: 'fr'"),
    ("theorem --title 'unclosed", "cannot parse"),
])
def test_bad_input_gives_a_usage_message_not_a_traceback(shell: Any, line: str,
                                                         message: str) -> None:
    with pytest.raises(UsageError, match=message):
        shell.run_line_magic("mech", line)


def test_cells_are_data_handed_to_one_function(shell: Any, monkeypatch: Any) -> None:
    seen: list[tuple[CellSpec, ...]] = []

    def record(cells: Any, _shell: Any) -> Any:
        from mechnb.kernel.insertion import InsertResult

        seen.append(tuple(cells))
        return InsertResult("fallback", tuple(cells))

    monkeypatch.setattr("mechnb.kernel.insertion.insert_cells", record)
    run_mech(shell, "formula --label eq:key")
    (cells,) = seen
    assert all(isinstance(c, CellSpec) for c in cells)
    assert any("eq:key" in c.source for c in cells)


def test_a_trailing_comment_is_not_an_argument(shell: Any) -> None:
    """The README's Quickstart has `# comments` after its magics; IPython passes them on."""
    with capture_output() as captured:
        shell.run_line_magic("mech", 'theorem --label thm:#1 --title "A # B"   # the statement')
    cells = _fallback_cells(captured)
    assert cells[0]["metadata"]["mechnb"]["label"] == "thm:#1"
    assert cells[0]["metadata"]["mechnb"]["title"] == "A # B"


def test_comment_only_tails_parse(shell: Any) -> None:
    with capture_output() as captured:
        shell.run_line_magic("mech", "new dynamics   # the skeleton")
    assert len(_fallback_cells(captured)) > 10  # the scaffold
    assert "%mech new" in repr(run_mech(shell, "# only a comment"))  # the help text
