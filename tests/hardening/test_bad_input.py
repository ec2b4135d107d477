"""Bad input (issue 9): a one-line error or a finding naming the cell, never a traceback; files
outside the notebook's folder never reach the export; labels and keys cannot break out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.exporter.api import export

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hardening"
UNREADABLE = ["list", "number", "huge_int", "latin1"]
READABLE = ["cells_not_dicts", "nul_paths", "bad_attachment", "deep_metadata",
            "outside_and_labels"]


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mechnb", *map(str, args)], capture_output=True,
                          text=True, timeout=120, check=False, cwd=cwd)


@pytest.mark.parametrize("name", UNREADABLE)
def test_unreadable_notebooks_give_one_line(name: str, tmp_path: Path) -> None:
    nb = FIXTURES / f"{name}.ipynb"
    text = _run("check", nb)
    assert text.returncode == 2 and "Traceback" not in text.stderr
    assert len(text.stderr.strip().splitlines()) == 1
    as_json = _run("check", nb, "--format", "json")
    assert as_json.returncode == 2
    assert set(json.loads(as_json.stdout)) == {"error"}  # stdout stays valid JSON
    exported = _run("export", nb, "-o", tmp_path / "out")
    assert exported.returncode == 1 and "Traceback" not in exported.stderr
    assert len(exported.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", READABLE)
def test_odd_notebooks_check_and_export(name: str, tmp_path: Path) -> None:
    nb = FIXTURES / f"{name}.ipynb"
    checked = _run("check", nb, "--format", "json")
    assert checked.returncode in (0, 1), checked.stderr
    assert isinstance(json.loads(checked.stdout), list)
    exported = _run("export", nb, "-o", tmp_path / "out")
    assert exported.returncode == 0, exported.stderr
    assert "Traceback" not in exported.stderr


def test_deeply_nested_json_is_an_error(tmp_path: Path) -> None:
    nb = tmp_path / "deep.ipynb"
    nb.write_text('{"cells": [], "metadata": ' + "[" * 200_000 + "]" * 200_000 + "}", "utf-8")
    proc = _run("check", nb, "--format", "json")
    assert proc.returncode == 2 and "nested too deeply" in json.loads(proc.stdout)["error"]


def test_outside_files_and_bad_labels_never_reach_the_export(tmp_path: Path) -> None:
    paper = tmp_path / "paper"
    paper.mkdir()
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\nSECRET-BYTES")
    (paper / "inside.png").write_bytes(b"\x89PNG\r\n\x1a\nINSIDE")
    (paper / "link.png").symlink_to(secret)  # a symlink inside that leads outside
    (tmp_path / "t.tex").write_text("SECRET-TEMPLATE ((( body )))", "utf-8")
    raw = json.loads((FIXTURES / "outside_and_labels.ipynb").read_text("utf-8"))
    raw["cells"][0]["source"] += "\n\n![link](link.png)\n\n![secret](../secret.png)"
    nb = paper / "p.ipynb"
    nb.write_text(json.dumps(raw), "utf-8")
    result = export(nb, tmp_path / "out")
    blobs = b"".join(result.resources.values()) + result.latex.encode()
    assert b"SECRET" not in blobs
    assert b"INSIDE" in blobs
    for piece in ("\\textbf{X}", "\\label{b}", "/etc/hostname", "\\input{", "\\label{a~b}",
                  "k%x", "SECRET-TEMPLATE"):
        assert piece not in result.latex, piece
    codes = sorted(f.code for f in result.findings)
    # ../outside.png, the symlink, ../secret.png, the bibliography and the template
    # (/etc/hostname is refused earlier: it is not an image type)
    assert codes.count("MECH815") == 5
    assert "MECH814" in codes and "MECH817" in codes
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert b"SECRET" not in written
