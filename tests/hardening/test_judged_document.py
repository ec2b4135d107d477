"""The judged document is the compiled document (DESIGN §2a, issue "the gate judges exactly
what TeX compiles").

Every test here runs with ``MECHNB_SANDBOX=off``: the gate and TeX's own limits are the only
walls. A secret lies in a file outside the paper's folder; whatever the notebook does, the
secret reaches no output. The placements are enumerated from the document model
(``PaperMeta``'s fields, every part of a cell), so a field added later is covered too.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mechnb.exporter.api import UntrustedTexError, export, render
from mechnb.exporter.bundle import build_bundles
from mechnb.exporter.judged import assess, judge_result
from mechnb.notebook import PaperMeta, read_paper
from mechnb.tex.trust import approve

SECRET = "SECRETXYZZY"
HAS_TEX = bool(shutil.which("pdflatex") and shutil.which("latexmk"))
PNG_1PX = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAC"
                           "hwGA60e6kgAAAABJRU5ErkJggg==")

# ---- payload families: each reaches a file outside the paper (or an action) if TeX runs it
FAMILIES: dict[str, str] = {
    "input": "\\input{{{s}}}",
    "caret": "^^5cinput{{{s}}}",
    "csname": "\\csname input\\endcsname{{{s}}}",
    "csuse": "\\csuse{{input}}{{{s}}}",
    "special": "\\special{{pdf:fstream @x ({s})}}",
    "write18": "\\immediate\\write18{{cat {s}}}",
    "href-run": "\\href{{run:{s}}}{{x}}",
    "href-alias": "\\newcommand{{\\h}}{{\\href}}\\h{{run:{s}}}{{x}}",
    "let-alias": "\\let\\h\\href \\h{{run:{s}}}{{x}}",
    "graphics": "\\includegraphics{{{s}}}",
    "url-percent": "\\url{{%}}\\input{{{s}}}\n}}",
    "cr-comment": "% hidden\r\\input{{{s}}}",
    "text-percent": "\\text{{%}}\\input{{{s}}}",
    "key-option": "\\begin{{tcolorbox}}[watermark graphics={s}]x\\end{{tcolorbox}}",
}


ACTIVE: dict[str, str] = {
    "input": "\\input{{{s}}}", "caret": "^^5cinput", "csname": "\\csname input",
    "csuse": "\\csuse{{input}}", "special": "\\special{{pdf:", "write18": "\\write18{{",
    "href-run": "{{run:{s}}}", "href-alias": "{{run:{s}}}", "let-alias": "{{run:{s}}}",
    "graphics": "\\includegraphics{{{s}}}", "url-percent": "\\input{{{s}}}",
    "cr-comment": "\\input{{{s}}}", "text-percent": "\\input{{{s}}}",
    "key-option": "graphics={s}",
}
"""What of each family, written as TeX (not escaped as text), would act if TeX ran it."""


def _payload(family: str, secret_path: Path) -> str:
    return FAMILIES[family].format(s=secret_path)


@pytest.fixture
def secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A secret next to (outside) the paper's folder; TeX runs without a sandbox."""
    monkeypatch.setenv("MECHNB_SANDBOX", "off")
    outside = tmp_path / "outsidesecretdir"
    outside.mkdir()
    path = outside / "secret.tex"
    path.write_text(SECRET + "\n", "utf-8")
    (outside / "secret.png").write_bytes(PNG_1PX)
    (tmp_path / "paper").mkdir()
    return path


# ---- placements: every field of the document model, every part of a cell
def _md(source: str, cell_id: str = "m", **mechnb: Any) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": cell_id, "source": source,
            "metadata": {"mechnb": mechnb} if mechnb else {}}


def _code(outputs: list[dict[str, Any]], cell_id: str = "k", tags: tuple[str, ...] = (),
          **mechnb: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"tags": list(tags)}
    if mechnb:
        metadata["mechnb"] = mechnb
    return {"cell_type": "code", "id": cell_id, "execution_count": 1, "source": "show()",
            "metadata": metadata, "outputs": outputs}


def _display(mime: str, value: str) -> dict[str, Any]:
    return {"output_type": "display_data", "metadata": {}, "data": {mime: value}}


BASE_CELLS = [_md("# Abstract\nWe study heads [@a].", "abs", role="abstract"),
              _md("# Introduction\nAttention $\\frac{a}{b}$ routes tokens.", "intro")]


def _meta_placements() -> dict[str, Callable[[str], dict[str, Any]]]:
    """One placement per field of ``PaperMeta`` (the notebook's ``metadata.mechnb``)."""
    out: dict[str, Callable[[str], dict[str, Any]]] = {}
    for f in dataclasses.fields(PaperMeta):
        def put(payload: str, key: str = f.name, typ: Any = f.type) -> dict[str, Any]:
            value: Any = payload
            if "tuple" in str(typ) and key != "affiliations":
                value = [payload]
            if key == "affiliations":
                return {"authors": [{"name": "A", "affiliation": payload}]}
            if key == "checks":
                value = {"disable": [payload]}
            return {key: value}
        out[f"metadata.{f.name}"] = put
    return out


def _cell_placements() -> dict[str, Callable[[str], list[dict[str, Any]]]]:
    """Every part of a cell the export can print."""
    return {
        "markdown math": lambda p: [_md(f"Text ${p}$ here.", "x")],
        "markdown display": lambda p: [_md(f"$$\n{p}\n$$", "x")],
        "display label": lambda p: [_md(f"$$x$$ (a}}{p}\\label{{b)", "x")],
        "markdown prose": lambda p: [_md(f"Prose {p} here.", "x")],
        "raw latex": lambda p: [{"cell_type": "raw", "id": "x", "source": p,
                                 "metadata": {"format": "text/latex"}}],
        "raw note": lambda p: [{"cell_type": "raw", "id": "x", "source": p,
                                "metadata": {"format": "text/latex", "mechnb": {"role": "note"}}}],
        "caption": lambda p: [_code([_display("image/png",
                                              base64.b64encode(PNG_1PX).decode())],
                                    "x", role="figure", label="fig:x", caption=f"C ${p}$.")],
        "cell title": lambda p: [_md("A claim.", "x", role="theorem", label="thm:x",
                                     title=f"T ${p}$")],
        "latex output": lambda p: [_code([_display("text/latex", p)], "x", role="result")],
        "latex output, show-code": lambda p: [_code([_display("text/latex", p)], "x",
                                                    tags=("mech-show-code",))],
        "latex output, role-less": lambda p: [_code([_display("text/latex", p)], "x")],
        "markdown output": lambda p: [_code([_display("text/markdown", f"${p}$")], "x",
                                            role="result")],
        "stream output": lambda p: [_code([{"output_type": "stream", "name": "stdout",
                                            "text": p}], "x", role="result")],
        "plain output": lambda p: [_code([_display("text/plain", p)], "x", role="result")],
        "cell id": lambda p: [_md("x", p.replace("\\", "/"))],
    }


def _notebook(meta: dict[str, Any], cells: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nbformat": 4, "nbformat_minor": 5, "cells": [*BASE_CELLS, *cells],
            "metadata": {"mechnb": {"title": "A paper", "bibliography": "refs.bib", **meta}}}


def _write(folder: Path, nb: dict[str, Any], name: str = "p.ipynb") -> Path:
    (folder / "refs.bib").write_text("@misc{a, title={A}, year={2024}}\n", "utf-8")
    path = folder / name
    path.write_text(json.dumps(nb), "utf-8")
    return path


_VERBATIM_BODY = re.compile(r"\\begin\{Verbatim\}(?:\[breakanywhere\])?\n(.*?)\\end\{Verbatim\}",
                            re.S)


_COMMENT = re.compile(r"(?<!\\)%[^\r\n]*")


def _outside_verbatim(tex: str) -> str:
    """What TeX reads as TeX, roughly: no verbatim bodies, no comments (the gate reads it
    exactly; this only decides whether a refusal is expected)."""
    return _COMMENT.sub("", _VERBATIM_BODY.sub("", tex))


def _check_judged(path: Path, include_code: bool, marker: str, active: str) -> bool:
    """The gate's regions partition the .tex, mechnb's own text holds nothing of the notebook,
    and whatever of the payload reaches TeX as TeX is refused. Whether it reached the .tex."""
    paper = read_paper(path)
    result = render(paper, include_code=include_code)
    tex = result.latex
    regions = sorted((r for r in result.rendered.regions if r.source != "block"),
                     key=lambda r: r.start)
    assert regions[0].start == 0 and regions[-1].end == len(tex)
    assert all(a.end == b.start for a, b in itertools.pairwise(regions))
    for r in regions:
        if r.source == "own":
            assert marker not in tex[r.start:r.end], r
    verdict = judge_result(result)
    assert verdict == assess(paper, include_code=include_code)  # check/trust see the same
    in_files = any(marker.encode() in data for data in result.resources.values())
    read = _outside_verbatim(tex)
    if active in read or in_files:
        at = read.find(active)
        assert verdict.refused, (path, read[max(0, at - 200):at + 80])
    return marker in tex or in_files


# ---- the property: every field, every family -----------------------------------------------
def test_every_field_and_family_is_judged_where_it_stands_in_the_tex(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    rng = random.Random(20261127)
    reached: set[str] = set()
    fragments = ["$\\alpha_i$", "**bold**", "see [@a]", "$$\\sum_i x_i$$", "`code`", "- item"]
    placements: list[tuple[str, str, dict[str, Any], list[dict[str, Any]]]] = []
    for family in FAMILIES:
        payload = _payload(family, secret)
        for name, put in _meta_placements().items():
            placements.append((f"{name}/{family}", family, put(payload), []))
        for name, cells in _cell_placements().items():
            placements.append((f"{name}/{family}", family, {}, cells(payload)))
    for n, (name, family, meta, cells) in enumerate(placements):
        active = ACTIVE[family].format(s=secret)
        filler = _md(" ".join(rng.sample(fragments, 3)), f"f{n}")
        meta = {**meta, "lang": meta.get("lang", rng.choice(["en", "zh"]))}
        path = _write(folder, _notebook(meta, [filler, *cells]))
        for include_code in (False, True):
            if _check_judged(path, include_code, "outsidesecretdir/secret", active):
                reached.add(name.split("/")[0])
    # the document model's printed fields all reached the .tex somewhere, and were judged there
    for printed in ("metadata.title", "metadata.authors", "metadata.title_en",
                    "metadata.abstract_en", "metadata.keywords", "metadata.affiliations",
                    "markdown math", "display label", "raw latex", "caption",
                    "cell title", "latex output", "latex output, show-code", "markdown output",
                    "stream output"):
        assert printed in reached, printed
    # a `note` is never exported, a raw LaTeX note included (it was printed until issue 38)
    assert "raw note" not in reached


def test_the_gate_refuses_before_anything_compiles(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    path = _write(folder, _notebook({"keywords": ["$" + _payload("input", secret) + "$"]}, []))
    with pytest.raises(UntrustedTexError, match="keywords"):
        export(path, folder / "out", pdf=True)
    assert not (folder / "out").exists()


# ---- files: the build folder holds the judged files and nothing else --------------------------
@pytest.mark.parametrize("bibliography", ["refs.bbl", "refs.bib,", " refs",
                                          "../outsidesecretdir/refs"])
def test_the_bibliography_named_any_way_is_the_judged_file(secret: Path,
                                                           bibliography: str) -> None:
    folder = secret.parent.parent / "paper"
    path = _write(folder, _notebook({"bibliography": bibliography}, []))
    bad = f"@misc{{a, title={{\\input{{{secret}}}}}}}\n"
    (folder / "refs.bbl").write_text(f"\\input{{{secret}}}\n", "utf-8")
    (folder / "refs.bib").write_text(bad, "utf-8")
    (secret.parent / "refs.bib").write_text(bad, "utf-8")
    result = render(read_paper(path))
    verdict = judge_result(result)
    for name, data in result.resources.items():  # whatever went in is judged, and refused
        if str(secret).encode() in data:
            assert any(name in r.where for r in verdict.refused), name
    assert not any(str(secret.parent) in n for n in result.resources)


def test_a_bib_preamble_behind_a_percent_sign_needs_review(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    path = _write(folder, _notebook({}, []))
    (folder / "refs.bib").write_text('% @preamble{"\\newcommand{\\x}{y}"}\n'
                                     "@misc{a, title={A}}\n", "utf-8")
    verdict = assess(read_paper(path))
    assert [r.kind for r in verdict.review] == ["bib"]


def test_a_style_named_as_a_file_is_judged_as_the_file_the_export_copies(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    (folder / "evil.sty").write_text(f"\\input{{{secret}}}\n", "utf-8")
    path = _write(folder, _notebook({"style": {"package": "evil.sty"}}, []))
    result = render(read_paper(path))
    assert "evil.sty" in result.resources
    assert any("evil.sty" in r.where for r in judge_result(result).refused)


def test_trust_show_lists_every_file_of_the_judged_set_with_its_hash(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    (folder / "venue.sty").write_text("\\RequirePackage{amsmath}\n", "utf-8")
    os.symlink(secret.parent / "secret.png", folder / "linked.png")
    nb = _notebook({"style": "venue"}, [_md("![x](linked.png) [@a]", "i")])
    path = _write(folder, nb)
    proc = subprocess.run([sys.executable, "-m", "mechnb", "trust", str(path), "--show",
                           "--list"], capture_output=True, text=True, timeout=120, check=False)
    listed = dict(reversed(line.split()) for line in proc.stdout.splitlines()
                  if re.match(r"\s+[0-9a-f]{64}\s", line))
    assert set(listed) == {"venue.sty", "p_files/refs.bib"}, proc.stdout
    assert SECRET not in proc.stdout  # the symlink out of the folder was never read
    os.symlink(secret, folder / "evil.sty")  # a style file that is a link out of the folder
    path = _write(folder, _notebook({"style": "evil"}, []))
    proc = subprocess.run([sys.executable, "-m", "mechnb", "trust", str(path), "--show",
                           "--list"], capture_output=True, text=True, timeout=120, check=False)
    assert SECRET not in proc.stdout and "evil.sty" not in proc.stdout, proc.stdout


@pytest.mark.tex
@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
def test_a_sample_the_gate_lets_through_compiles_and_leaks_nothing(secret: Path) -> None:
    """Payloads where the gate finds nothing to refuse (fields printed as text, fields never
    printed) compile with pdfLaTeX and no sandbox; the secret is in no output."""
    folder = secret.parent.parent / "paper"
    payload = _payload("input", secret)
    meta = {"title": payload, "paper_type": payload, "checks": {"disable": [payload]}}
    cells = [_md(f"Prose {payload} and `{payload}`.", "x"),
             _code([{"output_type": "stream", "name": "stdout", "text": payload}], "y",
                   role="result")]
    path = _write(folder, _notebook(meta, cells))
    result = export(path, folder / "out", pdf=True, include_code=True, engine="pdflatex")
    assert result.pdf_path is not None, [f.message for f in result.findings]
    text = subprocess.run(["pdftotext", str(result.pdf_path), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "input" in text and SECRET not in text  # printed as text, never read
    for produced in (folder / "out").rglob("*"):
        if produced.is_file():
            assert SECRET.encode() not in produced.read_bytes(), produced


# ---- TeX's own limits, the second wall --------------------------------------------------------
@pytest.mark.tex
@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
@pytest.mark.parametrize(("engine", "sandbox"), [("pdflatex", "off"), ("xelatex", "off"),
                                                 ("xelatex", "auto")])
def test_trusted_tex_still_cannot_read_outside_the_build_folder(
        secret: Path, engine: str, sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--trust`` skips the gate; kpathsea's paranoid mode and the private build folder still
    keep the file out (an absolute path, a parent path, a file left next to the notebook) — and
    in sandbox mode (bubblewrap where it works) too."""
    monkeypatch.setenv("MECHNB_SANDBOX", sandbox)
    folder = secret.parent.parent / "paper"
    (folder / "beside.tex").write_text(SECRET + "\n", "utf-8")
    raw = (f"\\IfFileExists{{{secret}}}{{\\input{{{secret}}}}}{{}}"
           "\\IfFileExists{../outsidesecretdir/secret.tex}{\\input{../outsidesecretdir/secret.tex}}{}"
           "\\IfFileExists{beside.tex}{\\input{beside.tex}}{}")
    path = _write(folder, _notebook({}, [{"cell_type": "raw", "id": "r", "source": raw,
                                          "metadata": {"format": "text/latex"}}]))
    result = export(path, folder / "out", pdf=True, trust=True, engine=engine)
    assert result.pdf_path is not None, [f.message for f in result.findings]
    text = subprocess.run(["pdftotext", str(result.pdf_path), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Introduction" in text and SECRET not in text
    for produced in (folder / "out").rglob("*"):
        if produced.is_file():
            assert SECRET.encode() not in produced.read_bytes(), produced
    assert sorted(p.name for p in secret.parent.iterdir()) == ["secret.png", "secret.tex"]


@pytest.mark.tex
@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
def test_an_approved_template_cannot_bring_a_file_it_names(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    template = (Path(__file__).parents[2] / "mechnb" / "data" / "latex" / "article.tex"
                ).read_text("utf-8")
    (folder / "mine.tex").write_text(template.replace("\\begin{document}",
                                                      "\\begin{document}\\input{helper.tex}"),
                                     "utf-8")
    (folder / "helper.tex").write_text(SECRET + "\n", "utf-8")
    path = _write(folder, _notebook({"template": "mine.tex"}, []))
    verdict = assess(read_paper(path))
    assert not verdict.refused and [r.kind for r in verdict.review] == ["template"]
    approve(verdict.review, str(path))
    result = export(path, folder / "out", pdf=True, engine="pdflatex")
    assert result.pdf_path is None  # helper.tex is not among the judged files: TeX lacks it
    log = result.log_path.read_text("utf-8", "replace") if result.log_path else ""
    assert "helper.tex" in log and SECRET not in log


@pytest.mark.tex
@pytest.mark.skipif(not HAS_TEX, reason="TeX Live is not installed")
def test_a_log_bomb_stops_at_the_file_limit_and_is_read_bounded(secret: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    monkeypatch.setenv("MECHNB_TEX_MAX_FILE", str(2_000_000))
    monkeypatch.setenv("MECHNB_LOG_READ_LIMIT", str(200_000))
    folder = secret.parent.parent / "paper"
    bomb = "\\def\\b{\\typeout{" + "x" * 200 + "}\\b}\\b"
    path = _write(folder, _notebook({}, [{"cell_type": "raw", "id": "r", "source": bomb,
                                          "metadata": {"format": "text/latex"}}]))
    result = export(path, folder / "out", pdf=True, trust=True, engine="pdflatex")
    assert result.pdf_path is None
    assert any("MECHNB_TEX_MAX_FILE" in f.message or "log" in f.message
               for f in result.findings), [f.message for f in result.findings]
    assert result.log_path is not None and result.log_path.stat().st_size < 300_000


# ---- no hang on a pipe ------------------------------------------------------------------------
@pytest.mark.parametrize("what", ["bib", "image", "template", "style"])
def test_a_fifo_named_by_the_notebook_never_blocks(secret: Path, what: str) -> None:
    folder = secret.parent.parent / "paper"
    meta: dict[str, Any] = {}
    cells: list[dict[str, Any]] = []
    if what == "bib":
        meta["bibliography"] = "pipe.bib"
        fifo = folder / "pipe.bib"
    elif what == "image":
        cells = [_md("![x](pipe.png)", "i")]
        fifo = folder / "pipe.png"
    elif what == "template":
        meta["template"] = "pipe.tex"
        fifo = folder / "pipe.tex"
    else:
        meta["style"] = "pipe"
        fifo = folder / "pipe.sty"
    path = _write(folder, _notebook(meta, cells))
    os.mkfifo(fifo)
    done: list[object] = []

    def work() -> None:
        done.append(assess(read_paper(path)))
        done.append(render(read_paper(path)))

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():  # unblock the reader so the test process can end
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "w") as fh:
            fh.write("x")
        pytest.fail(f"a FIFO as the {what} blocked the reader")
    assert len(done) == 2


# ---- LuaLaTeX never runs unsandboxed without --trust, on every path ---------------------------
def test_lualatex_without_a_sandbox_is_refused_on_every_path(secret: Path) -> None:
    folder = secret.parent.parent / "paper"
    path = _write(folder, _notebook({"engine": "lualatex"}, []))
    result = render(read_paper(path))
    assert result.engine == "lualatex"
    with pytest.raises(UntrustedTexError, match="LuaLaTeX"):
        export(path, folder / "pdf", pdf=True)
    with pytest.raises(UntrustedTexError, match="LuaLaTeX"):
        build_bundles(result, ["overleaf"], folder / "bundle")
    from mechnb.exporter.preview import build

    blocked = build(path)
    assert blocked.status == "blocked" and "LuaLaTeX" in blocked.message
