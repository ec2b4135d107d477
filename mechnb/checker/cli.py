"""``mechnb check NOTEBOOK [--format text|json] [--strict] [--verbose] [--map FILE.svg] [--rules]``.

Text lists errors first, then warnings, then info, and summarises unfilled template slots in
one line (``--verbose`` lists each); JSON lists every finding in document order.

Exit codes: 0 no errors (with ``--strict``: no errors and no warnings), 1 findings that fail,
2 the notebook cannot be read or the arguments are wrong. Only argparse is imported at module
level: ``mechnb <anything>`` imports every subcommand module.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..findings import Finding

HELP = "run the closing-loop checks on a notebook (exit 1 on errors)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mechnb check``."""
    parser.add_argument("notebook", nargs="?",
                        help="the .ipynb paper to check, or a LaTeX paper (its main .tex "
                             "file, or the folder that holds it)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (one finding per line, default) or json (a list of objects)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 on warnings too, not only on errors")
    parser.add_argument("--map", metavar="FILE.svg",
                        help="also write the argument map (an SVG picture of the argument)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="list every unfilled template slot (text output summarises them "
                             "in one line)")
    parser.add_argument("--rules", action="store_true",
                        help="list every rule (code, name, severity, what to do) and exit")


def exit_code(findings: list[object], strict: bool) -> int:
    """1 if any finding is an error (or a warning under ``strict``), else 0."""
    from ..findings import Severity

    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return 1 if any(getattr(f, "severity", None) in failing for f in findings) else 0


def map_target_problem(target: str, notebook: str) -> str | None:
    """Why ``--map target`` must not be written (it would replace the notebook or a file that
    is not an SVG picture), or ``None``."""
    import os

    if os.path.splitext(target)[1].lower() != ".svg":
        return "the map is an SVG picture; give a file name ending in .svg"
    try:
        if os.path.samefile(target, notebook):
            return "that is the notebook itself"
    except OSError:  # the map does not exist yet (or the notebook does not: said later)
        pass
    return None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``mechnb check``; prints findings to ``out`` and problems to ``err``."""

    from ..errors import NotebookReadError
    from . import check
    from .report import report_lines, rule_table_text

    if args.rules:
        out.write(rule_table_text() + "\n")
        return 0
    if not args.notebook:
        err.write("mechnb check: give the notebook to check, e.g. `mechnb check paper.ipynb`\n")
        return 2
    if args.map and (why := map_target_problem(args.map, args.notebook)):
        err.write(f"mechnb check: not writing the argument map to {args.map}: {why}\n")
        return 2
    if is_latex_target(args.notebook):
        return run_latex(args, out, err)
    from ..exporter.judged import persist_renders
    from ..notebook import read_paper

    try:
        paper = read_paper(args.notebook)
        with persist_renders():  # one check, then the process ends: keep its renderings
            findings = check(paper)
    except (NotebookReadError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, NotebookReadError) else (
            f"{args.notebook}: nested too deeply to check")
        return cannot_read(args, message, out, err)
    if args.format == "json":
        write_json(findings, out)
    else:
        out.writelines(line + "\n" for line in report_lines(findings, args.notebook,
                                                             verbose=args.verbose))
    if args.map:
        from .argmap import write_argument_map

        try:
            write_argument_map(paper, findings, args.map)
        except OSError as exc:
            err.write(f"mechnb check: cannot write the argument map {args.map}: "
                      f"{exc.strerror or exc}\n")
            return 2
    return exit_code(list(findings), args.strict)


def cannot_read(args: argparse.Namespace, message: str, out: TextIO, err: TextIO) -> int:
    """Exit 2 with ``message``; in JSON, stdout stays one valid document."""
    import json

    if args.format == "json":
        out.write(json.dumps({"error": message}, ensure_ascii=False) + "\n")
    err.write(f"mechnb check: {message}\n")
    return 2


def write_json(findings: list[Finding], out: TextIO) -> None:
    """The documented ``--format json`` list."""
    import json

    out.write(json.dumps([f.to_json() for f in findings], ensure_ascii=False, indent=1) + "\n")


def is_latex_target(target: str) -> bool:
    """A ``.tex`` file or a folder (a LaTeX paper), not a notebook."""
    import os

    return target.lower().endswith(".tex") or os.path.isdir(target)


def run_latex(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``mechnb check paper.tex``: findings at ``file.tex:LINE:COL``, errors first."""

    from ..latexin.check import check_latex
    from .report import by_severity, summary_line

    if args.map:
        err.write("mechnb check: --map is for notebooks; import the paper first "
                  "(`mechnb import paper.tex`) to draw its argument\n")
        return 2
    try:
        findings = check_latex(args.notebook)
    except (OSError, RecursionError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return cannot_read(args, f"{args.notebook}: {why}", out, err)
    except Exception as exc:  # a reader bug: one clear line, never a traceback
        return cannot_read(args, f"{args.notebook}: mechnb could not read it "
                           f"({type(exc).__name__}: {exc}); please report it", out, err)
    if args.format == "json":
        write_json(findings, out)
    else:
        out.writelines(f.format() + "\n" for f in by_severity(findings))
        out.write(summary_line(args.notebook, findings) + "\n")
    return exit_code(list(findings), args.strict)
