"""TeX runs in isolation: names are never options, nothing is written outside the output
directory or over the notebook, and (in the sandbox) nothing outside the paper is read."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import zlib
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.exporter import sandbox
from mechnb.exporter.api import export
from mechnb.exporter.pdf import compile_pdf

from .conftest import FIXTURES, NOTEBOOKS, needs_tex

ISOLATION = FIXTURES / "isolation"
HOSTILE = ISOLATION / "hostile.ipynb"  # a text/latex output \openout's notes.txt and itself
SECRET = b"MECHNB-SECRET-7f3a9c"
WRITTEN = b"MECHNB-WRITTEN"
NO_SANDBOX = sandbox.available()
SANDBOX_MODES = ["auto", "off"]

pytestmark = [pytest.mark.tex, needs_tex()]


def _output_bytes(*paths: Path) -> list[bytes]:
    """The bytes of ``paths`` plus every Flate-compressed stream inside them, inflated."""
    blobs = []
    for path in paths:
        data = path.read_bytes()
        blobs.append(data)
        for m in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
            with contextlib.suppress(zlib.error):
                blobs.append(zlib.decompressobj().decompress(m.group(1)))
    return blobs


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: file bytes, or the target of a symlink."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = os.readlink(path)
        elif path.is_file():
            found[rel] = path.read_bytes()
    return found


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_notebook_name_is_never_a_latexmk_option(mode: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """latexmk took ``-xelatex=touch X;.tex`` for its XeLaTeX command and ran ``touch X``."""
    monkeypatch.setenv("MECHNB_SANDBOX", mode)
    monkeypatch.chdir(tmp_path)
    nb = tmp_path / "-xelatex=touch X;.ipynb"
    shutil.copy(NOTEBOOKS / "title_from_heading.ipynb", nb)
    out, err = io.StringIO(), io.StringIO()
    code = main(["export", str(nb), "--pdf", "--engine", "xelatex"], out, err)
    assert code == 0, err.getvalue()
    assert not [p for p in tmp_path.rglob("*") if p.name == "X"]
    tex, pdf = (Path(p) for p in out.getvalue().splitlines())
    assert tex.name == "xelatex-touch-X.tex"
    assert pdf.read_bytes().startswith(b"%PDF")  # XeLaTeX ran, not `touch`
    assert "running xelatex" in err.getvalue()


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_symlinks_planted_in_the_output_dir_are_replaced_not_followed(
        mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHNB_SANDBOX", mode)
    nb = tmp_path / "paper" / "paper.ipynb"
    nb.parent.mkdir()
    shutil.copy(HOSTILE, nb)
    victims = tmp_path / "victims"
    (victims / "dir").mkdir(parents=True)
    for name in ("victim.log", "victim.pdf", "notes.txt"):
        (victims / name).write_bytes(b"precious " + name.encode())
    before = _tree(victims)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "paper.log").symlink_to(victims / "victim.log")
    (out_dir / "paper.pdf").symlink_to(victims / "victim.pdf")
    (out_dir / "notes.txt").symlink_to(victims / "notes.txt")
    (out_dir / "paper_files").symlink_to(victims / "dir", target_is_directory=True)

    result = export(nb, out_dir)  # writes the .tex and paper_files/ (the figure)
    assert result.tex_path is not None
    compiled = compile_pdf(result.tex_path, latex=result.latex, resources=result.resources)
    assert compiled.pdf == out_dir / "paper.pdf" and compiled.returncode == 0

    assert _tree(victims) == before
    for name in ("paper.pdf", "paper.log"):
        assert not (out_dir / name).is_symlink() and (out_dir / name).is_file()
    assert (out_dir / "paper.pdf").read_bytes().startswith(b"%PDF")
    files_dir = out_dir / "paper_files"
    assert not files_dir.is_symlink() and any(files_dir.iterdir())
    # \openout wrote notes.txt in the private build folder, which is gone
    assert (out_dir / "notes.txt").is_symlink()
    assert compiled.sandboxed == (mode == "auto" and NO_SANDBOX is None)


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_output_dir_holding_the_notebook_cannot_overwrite_it(
        mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHNB_SANDBOX", mode)
    monkeypatch.chdir(tmp_path)
    shutil.copy(HOSTILE, tmp_path / "hostile.ipynb")
    before = (tmp_path / "hostile.ipynb").read_bytes()
    # the TeX gate (MECH022) refuses this notebook; trust=True tests the isolation behind it
    result = export("hostile.ipynb", ".", pdf=True, trust=True)  # TeX \openout's hostile.ipynb
    assert result.pdf_path == Path("hostile.pdf") and result.pdf_path.is_file()
    assert (tmp_path / "hostile.ipynb").read_bytes() == before
    assert not (tmp_path / "notes.txt").exists()
    assert "\\openout" in result.latex  # the attempt was really in the .tex
    # only mechnb's own outputs: no .aux/.fls/.xdv, nothing TeX chose to write
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "hostile.ipynb", "hostile.log", "hostile.pdf", "hostile.tex", "hostile_files"]


def test_default_build_dir_through_a_planted_symlink_is_refused(tmp_path: Path) -> None:
    nb = tmp_path / "paper" / "paper.ipynb"
    nb.parent.mkdir()
    shutil.copy(NOTEBOOKS / "title_from_heading.ipynb", nb)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (nb.parent / "build").symlink_to(elsewhere, target_is_directory=True)
    out, err = io.StringIO(), io.StringIO()
    assert main(["export", str(nb)], out, err) == 1
    assert "leads outside the notebook's folder" in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("name", ["...ipynb", "..ipynb"])
def test_a_notebook_named_with_dots_exports_inside_build(name: str, tmp_path: Path) -> None:
    nb = tmp_path / name  # stem ".." would make the default build/.. = the notebook's folder
    shutil.copy(NOTEBOOKS / "title_from_heading.ipynb", nb)
    assert main(["export", str(nb)], io.StringIO(), io.StringIO()) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["build", name])
    assert (tmp_path / "build" / "paper" / "paper.tex").is_file()


@pytest.mark.parametrize("target", ["{nb}", "other.ipynb", "map.txt", "link.svg"])
def test_check_map_never_overwrites_the_notebook(target: str, tmp_path: Path) -> None:
    nb = tmp_path / "q.ipynb"
    shutil.copy(NOTEBOOKS / "title_from_heading.ipynb", nb)
    (tmp_path / "link.svg").symlink_to(nb)
    before = nb.read_bytes()
    path = str(nb) if target == "{nb}" else str(tmp_path / target)
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(nb), "--map", path], out, err) == 2
    assert err.getvalue().startswith("mechnb check: not writing the argument map")
    assert len(err.getvalue().strip().splitlines()) == 1
    assert out.getvalue() == ""
    assert nb.read_bytes() == before
    assert not (tmp_path / "other.ipynb").exists() and not (tmp_path / "map.txt").exists()


def test_a_runaway_tex_run_is_stopped(tmp_path: Path) -> None:
    tex = tmp_path / "loop.tex"
    tex.write_text("\\documentclass{article}\\begin{document}\\loop\\iftrue\\repeat"
                   "\\end{document}\n", "utf-8")
    compiled = compile_pdf(tex, timeout=3)
    assert compiled.pdf is None
    assert [f.message.split(";")[0] for f in compiled.findings] == [
        "latexmk stopped after 3 s, the time limit of one compile"]


# Each vector is its own compile: -halt-on-error stops at the first file TeX cannot open.
VECTORS = {
    "special": "\\special{{pdf:fstream @x ({dir}/secret.txt)}}"
               "\\special{{pdf:put @resources << /MechX @x >>}}",
    "xetexpdffile": '\\XeTeXpdffile "{dir}/secret.pdf" \\relax',
    "includegraphics": "\\includegraphics{{{dir}/secret.pdf}}",
    "input": "\\input{{{dir}/secret.txt}}",
    "relative": "\\includegraphics{{../../{rel}/secret.pdf}}",
}


def _tiny_pdf(token: bytes) -> bytes:
    """A one-page PDF whose (uncompressed) content stream carries ``token``."""
    content = b"% " + token + b"\n0 0 m 100 100 l S\n"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << >> "
               b"/Contents 4 0 R >>",
               b"<< /Length %d >>\nstream\n" % len(content) + content + b"endstream"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


@pytest.mark.skipif(NO_SANDBOX is not None, reason=f"no TeX sandbox here: {NO_SANDBOX}")
@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_sandbox_keeps_files_outside_the_paper_out_of_every_output(vector: str,
                                                                   tmp_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "secret.txt").write_bytes(SECRET + b"\n")
    (secrets / "secret.pdf").write_bytes(_tiny_pdf(SECRET))
    out_dir = tmp_path / "paper"
    out_dir.mkdir()
    body = VECTORS[vector].format(dir=secrets, rel=os.path.relpath(secrets, "/"))
    tex = out_dir / "leak.tex"
    tex.write_text("\\documentclass{article}\\usepackage{graphicx}\\begin{document}\n"
                   f"Before. {body} After.\n\\end{{document}}\n", "utf-8")
    compiled = compile_pdf(tex, sandboxed=True)  # straight to TeX: no checker in the way
    assert compiled.sandboxed and ".log" in compiled.files
    outputs = [p for p in out_dir.iterdir() if p.is_file()]
    assert all(SECRET not in blob for blob in _output_bytes(*outputs))


def test_build_folder_is_private_holds_only_the_paper_and_is_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp_root))
    nb = tmp_path / "paper.ipynb"
    shutil.copy(HOSTILE, nb)
    result = export(nb, tmp_path / "out")
    assert result.tex_path is not None
    seen: list[tuple[int, list[str]]] = []

    def progress(message: str) -> None:
        for build in temp_root.glob("mechnb-tex-*"):
            entries = sorted(p.relative_to(build).as_posix() for p in build.rglob("*"))
            seen.append((build.stat().st_mode & 0o777, entries))

    compile_pdf(result.tex_path, progress, latex=result.latex, resources=result.resources)
    mode, entries = seen[0]  # before latexmk started
    assert mode == 0o700
    assert entries == ["paper.tex", "paper_files", *sorted(result.resources)]
    assert list(temp_root.iterdir()) == []


def test_unchanged_paper_reuses_its_pdf_unless_an_output_was_touched(tmp_path: Path) -> None:
    nb = tmp_path / "paper.ipynb"
    shutil.copy(NOTEBOOKS / "undefined_reference.ipynb", nb)
    out_dir = tmp_path / "out"
    messages: list[str] = []
    first = export(nb, out_dir, pdf=True, progress=messages.append)
    assert first.pdf_path is not None and any(m.strip().startswith("running") for m in messages)
    pdf_bytes, pdf_mtime = first.pdf_path.read_bytes(), first.pdf_path.stat().st_mtime_ns

    messages.clear()
    again = export(nb, out_dir, pdf=True, progress=messages.append)
    assert any("is up to date" in m for m in messages)
    assert not any("running" in m for m in messages)
    assert again.pdf_path == first.pdf_path and first.pdf_path.stat().st_mtime_ns == pdf_mtime
    # the log's findings come back with the reused PDF
    assert [f.code for f in again.findings if f.code == "MECH811"] == ["MECH811"]

    victim = tmp_path / "victim.pdf"
    victim.write_bytes(pdf_bytes)  # same bytes, but reached through a link: compile again
    first.pdf_path.unlink()
    first.pdf_path.symlink_to(victim)
    messages.clear()
    export(nb, out_dir, pdf=True, progress=messages.append)
    assert any(m.strip().startswith("running") for m in messages)
    assert not first.pdf_path.is_symlink() and victim.read_bytes() == pdf_bytes


def test_records_received_with_the_folder_are_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build/ folder shipped with a notebook (PDF, log, render cache and export record made
    on another account) neither passes for this user's compile nor injects cached LaTeX."""
    from mechnb.exporter.context import CACHE_FILE

    nb = tmp_path / "paper.ipynb"
    shutil.copy(NOTEBOOKS / "title_from_heading.ipynb", nb)
    out_dir = tmp_path / "build" / "paper"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "their-cache"))
    theirs = export(nb, out_dir, pdf=True)
    assert theirs.pdf_path is not None
    cache_file = out_dir / CACHE_FILE
    cache = json.loads(cache_file.read_text("utf-8"))
    poisoned = [e for e in cache["entries"].values() if isinstance(e["out"], str)]
    assert poisoned
    for entry in poisoned:  # their rendering carries LaTeX of their choice
        entry["out"] = "\\MechPlanted{}" + entry["out"]
    cache_file.write_text(json.dumps(cache), "utf-8")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "my-cache"))
    messages: list[str] = []
    mine = export(nb, out_dir, pdf=True, progress=messages.append)
    assert "\\MechPlanted" not in mine.latex
    assert not any("up to date" in m for m in messages)
    assert any(m.strip().startswith("running") for m in messages)
    assert (tmp_path / "my-cache" / "mechnb" / "record-key").stat().st_mode & 0o777 == 0o600


def test_processes_creating_the_record_key_at_once_all_read_the_same_whole_key(
        tmp_path: Path) -> None:
    """Two exports started together (the server's two build slots) create the per-user key at
    the same moment: each must read the one key, all 32 bytes of it, never an empty file."""
    import subprocess
    import sys

    code = ("import sys; from mechnb.files import local_key; k = local_key(); "
            "sys.stdout.write(k.hex() if k else 'NONE')")
    for attempt in range(3):
        cache = tmp_path / f"cache{attempt}"
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                                  text=True) for _ in range(4)]
        keys = {p.communicate(timeout=60)[0] for p in procs}
        assert len(keys) == 1 and "NONE" not in keys, keys
        assert bytes.fromhex(keys.pop()) == (cache / "mechnb" / "record-key").read_bytes()
        assert [p.name for p in (cache / "mechnb").iterdir()] == ["record-key"]  # no leftovers
