"""``mechnb import PAPER.tex [-o PAPER.ipynb] [--force] [--yes]`` and
``mechnb import --update NOTEBOOK.ipynb EDITED.tex``.

At the end, what the imported notebook sends to TeX that needs review is listed once, each item
with the start of its SHA-256 digest, and approved in that one step when the user says so
(``--yes`` for scripts; with no terminal to ask on and no ``--yes``, nothing is approved and
``mechnb trust NOTEBOOK`` does it later).

Exit codes: 0 imported (refused constructs are listed, and the notebook is written, approved or
not), 1 the import could not be done, 2 bad arguments. Only argparse is imported at module
level.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .importer import ImportResult

DIGEST_SHOWN = 12
"""Hex digits of a review item's SHA-256 digest shown in the list."""

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
    parser.add_argument("--yes", "-y", action="store_true",
                        help="approve what needs review in the imported notebook (listed at the "
                             "end) without asking, as `mechnb trust --yes` would; for scripts")
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
    from ..errors import MechnbError
    from .importer import import_latex

    try:
        result = import_latex(args.paper, args.output, force=args.force)
    except OSError as exc:
        why = exc.strerror or str(exc)
        err.write(f"mechnb import: {exc.filename or args.paper}: {why}\n")
        return 1
    except MechnbError:
        raise  # the CLI's own errors print as they always do
    except Exception as exc:  # a reader bug: one clear line, never a traceback
        err.write(f"mechnb import: {args.paper}: mechnb could not import it "
                  f"({type(exc).__name__}: {exc}); please report it\n")
        return 1
    out.writelines(f.format() + "\n" for f in by_severity(result.findings))
    out.write(result.summary() + "\n")
    for path in result.written:
        out.write(f"  wrote {path}\n")
    refused = sum(f.code == "MECH022" for f in result.findings)
    if refused:
        out.write(f"  {refused} refused construct(s) above: the notebook compiles only after "
                  "you remove them, or with --trust; they are never approved\n")
    return review_step(result, args.yes, out, err)


def review_step(result: ImportResult, yes: bool, out: TextIO, err: TextIO) -> int:
    """List what needs review with its digest, once; approve it on ``yes`` or when the user
    confirms on a terminal; else say how to approve it later. Returns the exit code (0)."""
    from ..tex.trust import TrustRecordError, describe
    from .importer import approve_import

    name = result.notebook_path.name
    import shlex

    path = shlex.quote(str(result.notebook_path))  # as the user would type it again
    before = (f" ({result.reviewed_before} item(s) approved before)"
              if result.reviewed_before else "")
    if not result.review:
        out.write(f"{name}: nothing needs review{before}\n")
        return 0
    out.write(f"{name}: {len(result.review)} item(s) need review before the notebook compiles"
              f"{before} (`mechnb trust {path} --show` prints them in full):\n")
    for item in result.review:
        out.write(f"  review  {item.digest[:DIGEST_SHOWN]}  {describe(item)}\n")
    if not yes:
        if not sys.stdin.isatty():
            out.write(f"{name}: nothing approved (no terminal to ask on); read the items, then "
                      f"run `mechnb trust {path}`, or import again with --yes\n")
            return 0
        out.write(f"Approve these {len(result.review)} item(s) of {name} for compiling "
                  "(exactly this content; a change needs review again)? [y/N] ")
        out.flush()
        try:
            answer = input()
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            out.write(f"{name}: nothing approved; `mechnb trust {path}` approves it later\n")
            return 0
    try:
        added = approve_import(result)
    except TrustRecordError as exc:
        err.write(f"mechnb import: the notebook is written but nothing was approved: {exc}\n")
        return 0
    out.write(f"{name}: approved {added} item(s); `mechnb export --pdf` (and %mech export, the "
              "Export button) compiles them until they change\n")
    return 0
