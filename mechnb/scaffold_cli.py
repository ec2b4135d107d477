"""``mechnb new``: write a new paper notebook from a paper-type scaffold."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from .errors import UsageError
from .files import atomic_write
from .notebook import PAPER_TYPES

HELP = "create a new paper notebook with the skeleton of a paper type"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mechnb new``."""
    parser.add_argument("paper_type", choices=PAPER_TYPES)
    parser.add_argument("notebook", type=Path, help="the .ipynb file to create")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--title", help="the paper's title")
    parser.add_argument("--variant", help="a variant of the type's scaffold (failure: "
                        "mechanistic — a circuit component that misfires, not a numerical "
                        "failure)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the scaffold notebook atomically; never overwrite without ``--force``."""
    from .templates import scaffold_notebook

    path: Path = args.notebook
    if path.suffix != ".ipynb":
        raise UsageError(f"{path}: the notebook name must end in .ipynb")
    if path.exists() and not args.force:
        raise UsageError(f"{path} already exists; choose another name or pass --force")
    nb = scaffold_notebook(args.paper_type, lang=args.lang, title=args.title,
                           variant=args.variant)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, (json.dumps(nb, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    kind = f"{args.paper_type}, {args.variant}" if args.variant else args.paper_type
    out.write(f"wrote {path} ({len(nb['cells'])} cells, {kind}, {args.lang})\n")
    return 0
