"""``mechnb check`` as a process: output formats, exit codes, the argument map file."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mechnb.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"
CLEAN = FIXTURES / "clean.ipynb"
ERRORS = FIXTURES / "rules" / "MECH004-unclosed-statement" / "fires.ipynb"     # error + warning
WARNINGS = FIXTURES / "rules" / "MECH020-figure-never-referenced" / "fires.ipynb"  # warning only
INFO = FIXTURES / "rules" / "MECH026-no-boxed-question" / "fires.ipynb"        # info only


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mechnb", "check", *map(str, args)],
                          capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(("path", "strict", "code"), [
    (CLEAN, False, 0), (CLEAN, True, 0),
    (INFO, False, 0), (INFO, True, 0),
    (WARNINGS, False, 0), (WARNINGS, True, 1),
    (ERRORS, False, 1), (ERRORS, True, 1),
], ids=["clean", "clean-strict", "info", "info-strict", "warning", "warning-strict", "error",
        "error-strict"])
def test_exit_codes(path: Path, strict: bool, code: int) -> None:
    proc = run(path, *(["--strict"] if strict else []))
    assert proc.returncode == code, proc.stderr


@pytest.mark.parametrize("bad", ["missing.ipynb", "broken.ipynb",
                                 "latin1.ipynb", "list.ipynb", "."])
def test_unreadable_notebook_exits_2_with_a_clear_message(bad: str) -> None:
    path = FIXTURES / "unreadable" / bad
    proc = run(path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("mechnb check: ") and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_usage_errors_exit_2() -> None:
    assert run().returncode == 2
    assert run(CLEAN, "--format", "yaml").returncode == 2


def test_text_format() -> None:
    proc = run(ERRORS)
    lines = proc.stdout.splitlines()
    assert lines == [
        f"{ERRORS}[cell 11]: MECH004 error unclosed-statement: theorem thm:main is never closed: "
        "add a `proof` after it (or point to one in the appendix), or an experiment that "
        "validates it (`%mech validate thm:main`)",
        f"{ERRORS}[cell 16]: MECH009 warning caption-names-nothing: the caption does not name "
        "what the figure validates (clm:remove); add e.g. \"validates \\cref{clm:remove}\"",
        f"{ERRORS}: 1 error, 1 warning, 0 info",
    ]
    assert run(CLEAN).stdout == f"{CLEAN}: no findings — the argument closes\n"


def test_json_format_is_the_documented_list() -> None:
    proc = run(FIXTURES / "rules" / "MECH015-unresolved-reference" / "fires.ipynb",
               "--format", "json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert isinstance(data, list) and len(data) == 2
    assert data[0] == {
        "code": "MECH015", "name": "unresolved-reference", "severity": "error",
        "message": "\\cref{fig:missing} refers to a label that no cell defines; fix the name or "
                   "add `\\label{fig:missing}` / a cell label",
        "cell": 18, "line": 1, "column": 85, "labels": ["fig:missing"], "cell_id": "cell-18",
        "file": str(FIXTURES / "rules" / "MECH015-unresolved-reference" / "fires.ipynb")}
    assert data[1]["labels"] == [] and data[1]["column"] == 119
    notebook_level = json.loads(run(INFO, "--format", "json").stdout)
    assert notebook_level[0]["cell"] is None and notebook_level[0]["line"] is None
    assert json.loads(run(CLEAN, "--format", "json").stdout) == []


def test_map_is_written_as_valid_svg(tmp_path: Path) -> None:
    target = tmp_path / "map.svg"
    proc = run(ERRORS, "--map", target)
    assert proc.returncode == 1
    root = ET.fromstring(target.read_text("utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "no validation" in text and "thm:main" in text
    bad = run(CLEAN, "--map", tmp_path / "no" / "such" / "dir.svg")
    assert bad.returncode == 2 and "cannot write the argument map" in bad.stderr


def test_rules_listing() -> None:
    proc = run("--rules")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[2].startswith("MECH003  theorem-without-interpretation")


def test_cli_as_a_function() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(WARNINGS)], out, err) == 0
    assert "MECH020 warning figure-never-referenced" in out.getvalue()
    assert main(["check", str(WARNINGS), "--strict"], io.StringIO(), err) == 1


def test_the_check_path_imports_no_heavy_modules(tmp_path: Path) -> None:
    # the gate judges the document the export compiles: with the export's render cache warm
    # (an export ran before), checking renders from the cache and never imports markdown-it
    notebook = tmp_path / ERRORS.name
    shutil.copy(ERRORS, notebook)
    subprocess.run([sys.executable, "-m", "mechnb", "export", str(notebook)],
                   capture_output=True, timeout=120, check=False)
    svg = str(tmp_path / "map.svg")
    code = (
        "import io, sys\n"
        "from mechnb.cli import main\n"
        f"main(['check', {str(notebook)!r}, '--map', {svg!r}], io.StringIO(), io.StringIO())\n"
        "heavy = [m for m in ('nbformat', 'nbconvert', 'ipywidgets', 'markdown_it', 'IPython',\n"
        "                     'jsonschema', 'pylatexenc') if m in sys.modules]\n"
        "print(heavy)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.strip() == "[]"
    assert Path(svg).read_text("utf-8").startswith("<svg")


def test_importing_the_cli_module_does_not_load_the_rules() -> None:
    code = ("import sys, mechnb.checker.cli\n"
            "print(sorted(m for m in sys.modules if m.startswith('mechnb.checker.')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.strip() == "['mechnb.checker.cli']"


SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("paper_type", ["dynamics", "failure", "expressivity"])
def test_a_fresh_scaffold_report_fits_on_a_screen_errors_first(
        tmp_path: Path, paper_type: str, lang: str) -> None:
    from mechnb.templates import scaffold_notebook

    path = tmp_path / f"{paper_type}.ipynb"
    path.write_text(json.dumps(scaffold_notebook(paper_type, lang=lang)), "utf-8")
    proc = run(path)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and len(lines) <= 40, proc.stdout
    severities = [line.split(": ", 1)[1].split()[1] for line in lines[:-1]]
    assert severities[0] == "error"
    assert severities == sorted(severities, key=SEVERITY_RANK.__getitem__)
    slot_lines = [line for line in lines if " MECH025 " in line]
    assert len(slot_lines) == 1 and "unfilled template slots in" in slot_lines[0]
    # every slot is still there for those who ask: --verbose and JSON list each one
    total = int(slot_lines[0].split("unfilled-placeholder: ", 1)[1].split()[0])
    cells = int(slot_lines[0].split(" cells — ", 1)[0].rsplit(" ", 1)[1])
    assert total > 100 and 20 < cells < total
    # every cell with slots is still there for those who ask: --verbose and JSON list each
    # cell once, with its slots
    verbose = [line for line in run(path, "--verbose").stdout.splitlines() if " MECH025 " in line]
    assert len(verbose) == cells
    assert sum(int(re.search(r"(\d+) template slots?", line).group(1))  # type: ignore[union-attr]
               for line in verbose) == total
    as_json = json.loads(run(path, "--format", "json").stdout)
    assert sum(f["code"] == "MECH025" for f in as_json) == cells
