"""``mechnb export``: argument parsing and presentation only (imports stay light)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..notebook import Paper
    from .api import ExportResult
    from .background import BackgroundChecks

HELP = "export a notebook to a LaTeX paper draft (PDF with --pdf, arXiv/Overleaf with --bundle)"
BIBLIOGRAPHY_FINDINGS = frozenset({"bibliography-not-found", "citations-without-bibliography"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mechnb export``."""
    parser.add_argument("notebook", help="the .ipynb paper to export (it is never modified)")
    parser.add_argument("-o", "--output-dir", metavar="DIR",
                        help="where to write <stem>.tex and its files (default: build/<stem>/ "
                             "next to the notebook)")
    parser.add_argument("--pdf", action="store_true",
                        help="also compile <stem>.pdf with latexmk and the --engine (no shell "
                             "escape)")
    parser.add_argument("--trust", action="store_true",
                        help="compile even when the TeX gate (MECH022) finds TeX that could read "
                             "or write outside the paper — only for TeX you wrote or reviewed")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit 1, nothing written) when the checks find errors")
    parser.add_argument("--force", action="store_true",
                        help="overwrite a .tex that was edited by hand since the last export")
    parser.add_argument("--template", metavar="NAME|PATH",
                        help="LaTeX template: article, ctexart, or a file with ((( body ))) "
                             "(default: by the paper's language)")
    parser.add_argument("--include-code", action="store_true",
                        help="print the source of code cells (and their text outputs)")
    parser.add_argument("--annotate", action="store_true",
                        help="put each finding of the checks in the margin as a todonotes note")
    parser.add_argument("--engine", choices=("pdflatex", "xelatex", "lualatex"),
                        help="TeX engine for --pdf and the Overleaf latexmkrc (default: "
                             "metadata.mechnb.engine, else pdflatex for English and xelatex "
                             "for Chinese papers)")
    parser.add_argument("--style", metavar="SPEC",
                        help="venue style instead of metadata.mechnb.style: a package "
                             "(neurips_2025[preprint]), a class (jmlr.cls) or a JSON object "
                             "{\"class\", \"package\", \"options\", …}")
    parser.add_argument("--bundle", action="append", choices=("arxiv", "overleaf"),
                        help="also write <stem>-arxiv.tar.gz (checked with pdfLaTeX in an empty "
                             "directory) or <stem>-overleaf.zip; may be given twice")
    parser.add_argument("--tex-timeout", metavar="SECONDS", type=float,
                        help="time limit of one compile, wall clock and CPU time per TeX "
                             "process (default: $MECHNB_TEX_TIMEOUT, else 120)")
    parser.add_argument("--findings-json", metavar="FILE", help=argparse.SUPPRESS)
    parser.add_argument("--no-cache", action="store_true",
                        help="render every cell again instead of reusing the previous export's "
                             "rendering of unchanged cells")


SLOT_HINT = "`mechnb check --verbose` lists each"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Export, print findings to ``err`` and the written paths to ``out``."""
    from ..errors import ExportError
    from ..notebook import read_paper
    from .api import output_directory, render
    from .background import BackgroundChecks
    from .context import RenderCache, cache_disabled
    from .styles import parse_style_argument

    if args.tex_timeout is not None:
        if not args.tex_timeout > 0:
            raise ExportError(f"--tex-timeout {args.tex_timeout:g} is not a positive number of "
                              "seconds")
        import os

        os.environ["MECHNB_TEX_TIMEOUT"] = str(args.tex_timeout)  # this process's compiles
    style = parse_style_argument(args.style) if args.style else None
    paper = read_paper(args.notebook)
    cache = None
    if not (args.no_cache or cache_disabled()):
        cache = RenderCache.load(output_directory(paper, args.output_dir))
    # The checks run in a forked child, so this process never imports the rules (DESIGN §6).
    if args.annotate:  # the notes go into the LaTeX, so the checks come first
        background = BackgroundChecks(paper)
        result = render(paper, template=args.template, include_code=args.include_code,
                        annotations=background.result(), cache=cache, engine=args.engine,
                        style=style)
    else:
        # Rendered first: the child inherits this rendering (``judged.remember``) and its TeX
        # gate judges it instead of rendering every cell a second time (one parse per cell);
        # it checks while this process writes the .tex and compiles, and is waited for only
        # then (or before anything is written, with --strict).
        result = render(paper, template=args.template, include_code=args.include_code,
                        cache=cache, engine=args.engine, style=style)
        background = BackgroundChecks(paper)
    try:
        return _write_and_report(args, paper, result, background, out, err)
    finally:
        background.cancel()  # only when the export stopped before it collected the findings


def _write_and_report(args: argparse.Namespace, paper: Paper, result: ExportResult,
                      background: BackgroundChecks, out: TextIO, err: TextIO) -> int:
    """Write (and compile) ``result``, then print the findings (``background``'s, collected
    as late as possible) and the written paths."""
    from ..checker.report import finding_lines
    from ..errors import ExportError
    from ..findings import Severity
    from .api import output_directory, write_result

    name = str(args.notebook)
    if args.strict:
        checks = background.result()
        errors = [f for f in checks if f.severity is Severity.ERROR]
        if errors:
            for line in finding_lines(checks, name, list_hint=SLOT_HINT):
                print(line, file=err)
            raise ExportError(f"not exported: {len(errors)} error finding(s) and --strict")

    def progress(message: str) -> None:
        print(message, file=err, flush=True)

    write_result(result, args.output_dir, pdf=args.pdf, force=args.force,
                 progress=progress if args.pdf else None, trust=args.trust)
    bundles = []
    if args.bundle:
        from .bundle import build_bundles

        bundles = build_bundles(result, args.bundle, output_directory(paper, args.output_dir),
                                trust=args.trust, progress=progress)
    checks = background.result()
    own = result.findings
    if any(f.name == "missing-bibliography" for f in checks):  # the checker said it already
        own = [f for f in own if f.name not in BIBLIOGRAPHY_FINDINGS]
    if (any(f.name == "engine-fallback" for f in own)  # compiled with XeLaTeX after all,
            and "arxiv" not in (args.bundle or ())):  # but arXiv's pdfLaTeX still stops there
        from .engines import after_fallback

        checks = after_fallback(checks)
    said = {(f.cell, f.labels) for f in checks if f.code == "MECH040"}  # the checker's twin
    own = [f for f in own if f.code != "MECH825" or (f.cell, f.labels) not in said]
    findings = sorted(checks + own,
                      key=lambda f: (f.cell if f.cell is not None else -1, f.code))
    for line in finding_lines(findings, name, list_hint=SLOT_HINT):  # errors first
        print(line, file=err)
    if getattr(args, "findings_json", None):  # the server's export reads them back
        Path(args.findings_json).write_text(
            json.dumps([f.to_json() for f in findings], ensure_ascii=False), "utf-8")
    print(result.tex_path, file=out)
    if args.pdf:
        if result.pdf_path is None:
            see = f"see {result.log_path}" if result.log_path else "see the findings above"
            print(f"mechnb export: the PDF was not produced; {see}", file=err)
            return 1
        print(result.pdf_path, file=out)
    failed = [b for b in bundles if not b.ok]
    for b in bundles:
        if b.ok:
            print(b.path, file=out)
    if failed:
        for b in failed:
            where = f"; see {b.log}" if b.log else ""
            print(f"mechnb export: the {b.kind} bundle failed its check and was not written"
                  f"{where}", file=err)
        return 1
    if args.strict and result.errors:
        print(f"mechnb export: {len(result.errors)} error finding(s) and --strict", file=err)
        return 1
    return 0
