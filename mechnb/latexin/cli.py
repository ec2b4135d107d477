"""``mechnb import PAPER.tex [-o PAPER.ipynb] [--force]`` and
``mechnb import --update NOTEBOOK.ipynb EDITED.tex``.

Exit codes: 0 imported (refused constructs are listed, and the notebook is written), 1 the
import could not be done, 2 bad arguments. Only argparse is imported at module level.
"""

from __future__ import annotations

import argparse
from typing import TextIO

HELP = "import a LaTeX paper into an annotated notebook (or bring LaTeX edits back with --update)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mechnb import``."""
    parser.add_argument("paper", help="the paper's main .tex file or its folder; with --update, "
                                      "the notebook to update")
    parser.add_argument("edited", nargs="?", help="with --update: the edited .tex")
    parser.add_argument("-o", "--output", metavar="NOTEBOOK.ipynb",
                        help="the notebook to write (default: next to the main .tex)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite the notebook and the files written next to it")
    parser.add_argument("--update", action="store_true",
                        help="carry the edits of an exported .tex back into its notebook "
                             "(a backup of the notebook is kept)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``mechnb import``."""
    if args.update:
        if not args.edited:
            err.write("mechnb import: --update needs the notebook and the edited .tex, e.g. "
                      "`mechnb import --update paper.ipynb edited.tex`\n")
            return 2
        from .update import update_notebook

        try:
            summary = update_notebook(args.paper, args.edited)
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            name = getattr(exc, "filename", None) or args.paper
            err.write(f"mechnb import --update: {name}: {why}\n")
            return 1
        out.writelines(line + "\n" for line in summary.lines())
        return 0
    from ..checker.report import by_severity
    from .importer import import_latex

    try:
        result = import_latex(args.paper, args.output, force=args.force)
    except OSError as exc:
        why = exc.strerror or str(exc)
        err.write(f"mechnb import: {exc.filename or args.paper}: {why}\n")
        return 1
    out.writelines(f.format() + "\n" for f in by_severity(result.findings))
    out.write(result.summary() + "\n")
    for path in result.written:
        out.write(f"  wrote {path}\n")
    refused = sum(f.code == "MECH022" for f in result.findings)
    if result.approved:
        out.write(f"  recorded {result.approved} imported piece(s) of LaTeX as reviewed "
                  "(`mechnb trust --list` shows them)\n")
    if refused:
        out.write(f"  {refused} refused construct(s) above: the notebook compiles only after "
                  "you remove them, or with --trust\n")
    return 0
