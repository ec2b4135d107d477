"""``mechnb export`` imports only what exporting needs (issue 33, DESIGN §6).

The checks still run and their findings are printed: a forked child runs them on the parent's
rendering, so the parent never imports the rule registry, the rule modules or the moves
analyser. These tests look at the parent's ``sys.modules`` (a list of names), never at a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import asdict, fields
from pathlib import Path

import pytest

from mechnb.findings import Finding, Severity
from mechnb.lazyre import LazyPattern, lazy

from .conftest import VENV_BIN

PARENT = """\
import io, json, sys
from mechnb.cli import main
err = io.StringIO()
rc = main(['export', *sys.argv[1:]], io.StringIO(), err)
loaded = sorted(m for m in sys.modules if m.startswith(('mechnb.moves', 'mechnb.checker.')))
print(json.dumps({'rc': rc, 'loaded': loaded, 'err': err.getvalue()}))
"""


def export_parent(nb: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    proc = subprocess.run([str(VENV_BIN / "python"), "-c", PARENT, str(nb), *args],
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


PRINTING = {"mechnb.checker.report"}
"""What of the checker the parent may import: the report's printing of findings."""


def lean(loaded: object) -> bool:
    assert isinstance(loaded, list)
    return set(loaded) <= PRINTING


def finding_codes(err: object) -> list[str]:
    return re.findall(r"\bMECH\d{3}\b", str(err))


@pytest.mark.parametrize("extra", [(), ("--no-cache",), ("--annotate",), ("--include-code",)],
                         ids=["cold", "no-cache", "annotate", "include-code"])
def test_the_export_parent_imports_no_rules_and_no_moves(paper_dir: Path, tmp_path: Path,
                                                         extra: tuple[str, ...]) -> None:
    nb = paper_dir / "all_roles_en.ipynb"
    out = str(tmp_path / "out")
    first = export_parent(nb, "-o", out, *extra)
    again = export_parent(nb, "-o", out, *extra)  # warm: from the render cache
    for run in (first, again):
        assert run["rc"] == 0
        assert lean(run["loaded"]), run["loaded"]
    # the findings are there all the same, and the same as the checks made in-process
    inline = export_parent(nb, "-o", str(tmp_path / "inline"), *extra,
                           env={"MECHNB_NO_FORK": "1"})
    assert finding_codes(first["err"]) == finding_codes(inline["err"])
    assert first["err"] == again["err"]
    assert "mechnb.checker.rules" in inline["loaded"]  # the in-process fallback does load them


def test_the_childs_gate_judges_the_parents_rendering(paper_dir: Path, tmp_path: Path) -> None:
    # the gate finding (MECH022) comes back from the child, as the in-process checks make it
    nb = json.loads((paper_dir / "all_roles_en.ipynb").read_text("utf-8"))
    nb["cells"].append({"cell_type": "markdown", "metadata": {},
                        "source": "Text $x \\input{/etc/passwd}$ here."})
    path = tmp_path / "danger.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    run = export_parent(path, "-o", str(tmp_path / "out"))
    inline = export_parent(path, "-o", str(tmp_path / "inline"), env={"MECHNB_NO_FORK": "1"})
    assert "MECH022" in finding_codes(run["err"])
    assert run["err"] == inline["err"]
    assert lean(run["loaded"]), run["loaded"]


def test_a_lazy_pattern_is_the_compiled_pattern() -> None:
    text = "See \\ref{a} and \\REF{b}."
    eager = re.compile(r"\\(ref)\{([^}]*)\}", re.I)
    pattern = lazy(r"\\(ref)\{([^}]*)\}", re.I)
    assert isinstance(pattern, LazyPattern)
    assert "_compiled" not in vars(pattern)  # nothing compiled before first use
    assert pattern.pattern == eager.pattern
    assert [m.groups() for m in pattern.finditer(text)] == \
        [m.groups() for m in eager.finditer(text)]
    assert pattern.sub("X", text) == eager.sub("X", text)
    assert pattern.flags == eager.flags and pattern.groups == eager.groups
    search = pattern.search(text)
    assert search is not None and search.span() == (4, 11)
    assert pattern.fullmatch("\\ref{x}") is not None and pattern.match("no") is None


def test_finding_json_is_every_field() -> None:
    f = Finding("MECH003", "theorem-without-interpretation", Severity.ERROR, "m", 2, 3, 1,
                ("thm:a",), "id", "p.ipynb")
    record = f.to_json()
    expected = asdict(f)
    expected.update(severity="error", labels=["thm:a"])
    assert record == expected
    assert list(record) == [x.name for x in fields(Finding)]
    assert Finding.from_json(record) == f
