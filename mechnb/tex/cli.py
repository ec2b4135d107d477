"""``mechnb trust``: review what a notebook sends to TeX off the allow-list, and approve it."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .gate import ReviewItem

HELP = "show what needs review before a notebook compiles, and approve it once read"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mechnb trust``."""
    parser.add_argument("notebook", help="the notebook (.ipynb)")
    parser.add_argument("--list", action="store_true",
                        help="only list what needs review (approve nothing)")
    parser.add_argument("--yes", "-y", action="store_true",
                        help="approve without asking (you have read it)")
    parser.add_argument("--show", action="store_true",
                        help="print each item's content in full before asking, and every "
                             "file TeX may read with its SHA-256")
    # the export's options: the judged document is the one this export would compile
    parser.add_argument("--include-code", action="store_true",
                        help="judge the document `mechnb export --include-code` compiles")
    parser.add_argument("--style", help="judge it with this venue style (as export --style)")
    parser.add_argument("--template", help="judge it with this template (as export --template)")
    parser.add_argument("--engine", choices=("pdflatex", "xelatex", "lualatex"),
                        help="the TeX engine the export uses")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """List the needs-review items, ask, record the approval. Exit 0 when nothing is left to
    approve (or it was approved now), 1 when something is refused or approval was declined."""
    from ..exporter.judged import assess, export_options
    from ..notebook import read_paper
    from .trust import approve, describe, unapproved

    paper = read_paper(args.notebook)
    verdict = assess(paper, **export_options(args))
    name = paper.path.name if paper.path else args.notebook
    if args.show:
        out.write(f"the judged document: the .tex (sha256 {verdict.tex_digest[:16]}…) and "
                  f"{len(verdict.files)} file(s) TeX may read:\n")
        for rel, sha in verdict.files.items():
            out.write(f"    {sha}  {rel}\n")
    for r in verdict.refused:
        where = "the notebook" if r.cell is None else f"cell {r.cell + 1}"
        where += f" {r.where}" if r.where else ""
        out.write(f"refused  {where}: `{r.snippet}` {r.reason}\n")
    pending = unapproved(verdict)
    done = len(verdict.review) - len(pending)
    for item in pending:
        out.write(f"review   {describe(item)}\n")
        if args.show:
            out.write(f"    digest {item.digest}\n" + _content(item))
    if verdict.refused:
        out.write(f"{name}: {len(verdict.refused)} refused place(s) never compile without "
                  "--trust and cannot be approved; remove them (see `mechnb check`)\n")
    if not pending:
        out.write(f"{name}: nothing needs review"
                  + (f" ({done} item(s) approved before)" if done else "") + "\n")
        return 1 if verdict.refused else 0
    if args.list:
        out.write(f"{name}: {len(pending)} item(s) need review; approve them with "
                  f"`mechnb trust {shlex.quote(name)}`\n")
        return 1
    if not args.yes:
        if not sys.stdin.isatty():
            err.write("mechnb trust: not approved (no terminal to ask on); read the items, "
                      "then run again with --yes\n")
            return 1
        out.write(f"Approve these {len(pending)} item(s) of {name} for compiling "
                  "(exactly this content; a change needs review again)? [y/N] ")
        out.flush()
        if input().strip().lower() not in ("y", "yes"):
            out.write("not approved\n")
            return 1
    added = approve(pending, str(paper.path or name))
    out.write(f"{name}: approved {added} item(s); `mechnb export --pdf` (and %mech export, the "
              "Export button) compiles them until they change\n")
    return 1 if verdict.refused else 0


def _content(item: ReviewItem) -> str:
    """The text of a needs-review item as it stands in the compiled ``.tex``, for ``--show``."""
    body = item.content[:4000]
    return "".join(f"    | {line}\n" for line in body.splitlines()) or "    | (empty)\n"
