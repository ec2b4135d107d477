"""The ``mechnb`` command line: the only place that prints and exits.

Subcommands live in their own modules, listed in ``SUBCOMMANDS``; each module provides
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args, out, err) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TextIO

from ._version import __version__
from .errors import MechnbError

SUBCOMMANDS: dict[str, str] = {
    "export": "mechnb.exporter.cli",
    "check": "mechnb.checker.cli",
    "phrases": "mechnb.phrases.cli",
    "roles": "mechnb.roles_cli",
    "new": "mechnb.scaffold_cli",
    "moves": "mechnb.moves.cli",
    "trust": "mechnb.tex.cli",
    "import": "mechnb.latexin.cli",
    "lenses": "mechnb.phrases.lenses_cli",
    "count": "mechnb.count_cli",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that subcommand's module is imported."""
    parser = argparse.ArgumentParser(
        prog="mechnb", description="Write mechanism papers in Jupyter: check and export.")
    parser.add_argument("--version", action="version", version=f"mechnb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("mechnb"):
                continue  # a subcommand not shipped in this build
            raise
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command line; returns the exit code (tests call this as a function)."""
    out = out or sys.stdout
    err = err or sys.stderr
    argv = sys.argv[1:] if argv is None else argv
    # Import only the subcommand asked for: every command starts faster (help lists them all).
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help(out)
        return 2
    try:
        code: int = args._run(args, out, err)
    except MechnbError as exc:
        print(f"mechnb {args.command}: {exc}", file=err)
        return 1
    except KeyboardInterrupt:
        print(f"mechnb {args.command}: interrupted", file=err)
        return 130
    except BrokenPipeError:
        # `mechnb check … | head`: the reader went away; exit quietly like other Unix tools.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
