"""Issue 35: a style, class or BibTeX style file the paper ships is approved as a whole, once, by
its hash. TeX's programming primitives are allowed there (venue styles use them); what reads or
writes files, runs programs or reaches the PDF driver stays refused — an approved style cannot
become a way to leak a file. Comments are skipped as TeX reads them, and only while ``%`` is
certainly a comment character.

The style text is a hand-written stand-in (``tests/fixtures/latexin/venue/neurips_2099.sty``);
the attacks are written here."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest

from mechnb.cli import main
from mechnb.notebook import read_paper
from mechnb.tex.gate import assess, judge_document
from mechnb.tex.trust import approve, unapproved

VENUE = Path(__file__).resolve().parent.parent / "fixtures" / "latexin" / "venue"
STYLE = (VENUE / "neurips_2099.sty").read_text("utf-8")
SECRET = "/etc/hostname"

# Each of these reads or writes a file, runs a program or talks to the driver: refused even in a
# style approved as a whole.
LEAKS = {
    "openin": f"\\newread\\venue@in \\openin\\venue@in={SECRET} \\read\\venue@in to\\x",
    "openout": "\\newwrite\\venue@out \\immediate\\openout\\venue@out=leak.tex",
    "write18": "\\immediate\\write18{cat /etc/hostname}",
    "input-absolute": f"\\input{{{SECRET}}}",
    "input-parent": "\\input{../../secret.tex}",
    "at-input": f"\\@@input {SECRET} ",
    "input-path": "\\def\\input@path{{/etc/}}",
    "include-absolute": "\\includegraphics{/home/someone/photo.png}",
    "if-file-exists": "\\IfFileExists{/home/someone/.ssh/id_rsa}{\\def\\x{y}}{}",
    "special-ps": "\\special{ps: (/etc/hostname) run}",
    "special-pdf": "\\special{pdf:fstream @x (/etc/hostname)}",
    "pdfximage": f"\\pdfximage{{{SECRET}}}",
    "lua": "\\directlua{os.execute('id')}",
    "csname-spelled": f"\\csname input\\endcsname{{{SECRET}}}",
    "escape-char": f"\\catcode`\\|=0 |input{{{SECRET}}}",
    "letter-split": f"\\catcode`\\x=12 \\inputx{{{SECRET}}}",
    "param-catcode": "\\def\\venue@make#1{\\catcode`#1=11 }",
    "superscript-char": "\\catcode`\\~=7 ~~5cinput{x}",
    "caret-backslash": f"^^5cinput{{{SECRET}}}",
    "font-path": '\\font\\venue@f="[/home/someone/.ssh/id_rsa]"',
    "percent-hides": f"\\catcode`\\%=12 % \\input{{{SECRET}}}",
    "verb-hides": f"\\verb|%| \\input{{{SECRET}}}",
    "scantokens": "\\scantokens{\\input{x}}",
    "filecontents": "\\begin{filecontents}{x.tex}hi\\end{filecontents}",
    "catcode-copy": f"\\let\\venue@cc\\catcode \\venue@cc`\\%=12 % \\input{{{SECRET}}}",
    # after a name built at run time (which might be \catcode), comments are read as TeX
    "comment-after-built-name": f"\\csname venue@#1\\endcsname % \\input{{{SECRET}}}",
}

# TeX programming as venue styles write it: allowed in a style approved as a whole.
PROGRAMMING = {
    "csname": "\\expandafter\\def\\csname venue@#1\\endcsname{x}",
    "ifcsname": "\\ifcsname venue@x\\endcsname\\else\\fi",
    "catcode-at": "\\catcode`\\@=11 \\catcode`\\@=12",
    "catcode-restore": "\\edef\\venue@c{\\the\\catcode`\\@}\\catcode`\\@=11 "
                       "\\catcode`\\@=\\venue@c",
    "catcode-chardef": "\\chardef\\venue@c=\\catcode`\\\" \\catcode`\\\"=12 "
                       "\\catcode`\\\"=\\venue@c",
    "catcode-active": "\\catcode`\\~=13 \\catcode`\\^^M=13 \\catcode 64=11",
    "font": "\\font\\venue@f=ptmb8t at 12pt \\fontdimen2\\font=0pt \\hyphenchar\\font=-1",
    "def-params": "\\def\\venue@two#1#2{#2#1}\\long\\def\\venue@x#1\\relax{#1}",
    "write-aux": "\\immediate\\write\\@auxout{\\string\\bibstyle{plain}}",
    "message": "\\typeout{Venue^^J style^^J}",
    "papersize": "\\special{papersize=8.5in,11in}",
    "end-float": "\\let\\venue@endfloat\\end@float \\def\\end@float{\\venue@endfloat}",
    "if-file-exists": "\\IfFileExists{venue-extra.cfg}{\\input{venue-extra.cfg}}{}",
    "comment": f"% \\input{{{SECRET}}} is never read: a comment",
}


def _judge(style: str) -> tuple[list, list]:
    verdict = judge_document("", [], {"neurips_2099.sty": style.encode("utf-8")})
    return verdict.refused, verdict.review


def test_the_stand_in_venue_style_is_approved_as_a_whole() -> None:
    refused, review = _judge(STYLE)
    assert refused == []
    assert [r.kind for r in review] == ["style"]  # one item: the whole file, by its hash


@pytest.mark.parametrize("name", sorted(PROGRAMMING))
def test_tex_programming_is_allowed_in_an_approved_style(name: str) -> None:
    refused, _review = _judge(PROGRAMMING[name] + "\n" + STYLE)
    assert refused == [], [(r.snippet, r.reason) for r in refused]


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_a_leak_inside_an_approved_style_is_still_refused(name: str) -> None:
    refused, review = _judge(STYLE + "\n" + LEAKS[name] + "\n")
    assert refused, name
    assert all(r.where == "the style file neurips_2099.sty" for r in refused)
    # approving the file does not approve what the gate refuses in it
    approve(review, "test")
    refused_again, review_again = _judge(STYLE + "\n" + LEAKS[name] + "\n")
    assert refused_again and not unapproved_items(review_again)


def unapproved_items(review: list) -> list:
    from mechnb.tex.gate import Assessment

    return unapproved(Assessment(review=list(review)))


# Comments are skipped as TeX reads them: a matplotlib-like .pgf (hand-written) whose header
# names commands in comments, and whose labels make % active inside a group.
PGF_HEADER = """%% Written by a plotting library's PGF backend (a stand-in, not a real file)
%%   \\input{<filename>.pgf}
%%   \\import{<path to file>}{<filename>.pgf}
%%   \\IfFileExists{scrextend.sty}{\\usepackage{scrextend}}{}
%%
"""
PGF_BODY = """\\begingroup%
\\makeatletter%
\\begin{pgfpicture}%
\\pgftext[x=0.5in,y=0.5in]{\\catcode`\\%=\\active\\def%{\\%}50%}%
\\end{pgfpicture}%
\\makeatother%
\\endgroup%
"""


def test_a_pgf_header_is_read_as_the_comment_it_is() -> None:
    verdict = judge_document("", [], {"figs/a.pgf": (PGF_HEADER + PGF_BODY).encode()})
    assert verdict.refused == []


def test_comments_are_judged_once_percent_may_stop_being_a_comment() -> None:
    header = PGF_HEADER.encode()
    # the same header in a second figure, after a first whose % change outlives the file
    ungrouped = PGF_BODY.replace("\\begingroup%\n", "").replace("\\endgroup%\n", "")
    verdict = judge_document("", [], {"figs/a.pgf": ungrouped.encode(),
                                      "figs/b.pgf": header + PGF_BODY.encode()})
    assert any(r.where == "the file figs/b.pgf" and "import" in r.snippet
               for r in verdict.refused)
    # a style that changes % at the top level: every file's comments are judged as TeX
    verdict = judge_document("", [], {"neurips_2099.sty": (STYLE + "\\catcode`\\%=12\n").encode(),
                                      "figs/b.pgf": header + PGF_BODY.encode()})
    assert any(r.where == "the file figs/b.pgf" for r in verdict.refused)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def venue_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    shutil.copytree(VENUE, folder)
    return folder


def test_editing_an_approved_style_revokes_its_approval(venue_copy: Path,
                                                        tmp_path: Path) -> None:
    out = tmp_path / "nb" / "paper.ipynb"
    code, text, err = run("import", str(venue_copy / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    assert "neurips_2099.sty" in text  # listed in the import's one approval step
    assert unapproved(assess(read_paper(out))) == []
    style = out.parent / "neurips_2099.sty"
    style.write_text(style.read_text("utf-8") + "\\def\\venue@extra{changed}\n", "utf-8")
    pending = unapproved(assess(read_paper(out)))
    assert [p.where for p in pending] == ["the style file neurips_2099.sty"]
    code, text, err = run("export", str(out), "--pdf")
    assert code != 0 and "neurips_2099.sty" in text + err, text + err
    assert not (out.parent / "build" / "paper" / "paper.pdf").exists()


def test_a_leak_in_a_shipped_style_is_reported_at_its_line_and_never_compiles(
        venue_copy: Path, tmp_path: Path) -> None:
    style = venue_copy / "neurips_2099.sty"
    lines = style.read_text("utf-8").splitlines()
    lines.insert(3, LEAKS["openin"])
    style.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "nb" / "paper.ipynb"
    code, text, err = run("import", str(venue_copy / "main.tex"), "-o", str(out), "--yes")
    assert code == 0, text + err
    assert "MECH022" in text and "neurips_2099.sty:4" in text, text
    code, text, err = run("export", str(out), "--pdf")
    assert code != 0 and "not compiled" in text + err, text + err
    assert not (out.parent / "build" / "paper" / "paper.pdf").exists()
    meta = json.loads(out.read_text("utf-8"))["metadata"]["mechnb"]
    assert meta["style"]["package"] == "neurips_2099"


# A name built at run time from a macro's argument is beyond the gate (documented): the second
# wall stops what it could reach. Without a sandbox (the weaker case), kpathsea's paranoid
# settings refuse an absolute path to \input, \openin and pdfTeX's image primitive alike.
RUN_TIME_NAMES = {
    "input": "\\venue@call{input}{SECRET}",
    "openin": "\\venue@call{openin}15=SECRET \\venue@call{read}15 to\\venue@line "
              "\\venue@line",
    "pdfximage": "\\venue@call{pdfximage}{SECRET}\\venue@call{pdfrefximage}"
                 "\\venue@call{pdflastximage}",
}


@pytest.mark.skipif(not shutil.which("latexmk"), reason="TeX Live (latexmk) not installed")
@pytest.mark.parametrize("name", sorted(RUN_TIME_NAMES))
def test_a_name_built_at_run_time_in_an_approved_style_reads_no_secret(
        name: str, venue_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / ("secret.pdf" if name == "pdfximage" else "secret.tex")
    secret.write_text("TOKEN-OUTSIDE-THE-PAPER\n", "utf-8")  # typeset if ever read
    style = venue_copy / "neurips_2099.sty"
    style.write_text(style.read_text("utf-8") + "\\def\\venue@call#1{\\csname #1\\endcsname}\n"
                     "\\AtBeginDocument{" + RUN_TIME_NAMES[name].replace("SECRET", str(secret))
                     + "}\n", "utf-8")
    out = tmp_path / "nb" / "paper.ipynb"
    code, text, err = run("import", str(venue_copy / "main.tex"), "-o", str(out), "--yes")
    assert code == 0 and "MECH022" not in text, text + err  # the gate cannot see the name
    monkeypatch.setenv("MECHNB_SANDBOX", "off")
    code, text, err = run("export", str(out), "--pdf")
    build = out.parent / "build" / "paper"
    assert code != 0, text + err  # TeX stops: the file is not there for it
    for path in build.rglob("*"):
        if path.is_file():
            assert b"TOKEN-OUTSIDE-THE-PAPER" not in path.read_bytes(), path
    if name == "pdfximage":  # refused by name, before pdfTeX looks at what the file holds
        log = (build / "paper.log").read_text("utf-8", "replace")
        assert "cannot find image file" in log, log[-2000:]
