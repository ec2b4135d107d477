"""``mechnb roles``: the role vocabulary, as text or JSON."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

HELP = "list the roles a cell can have, and what each is for"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mechnb roles``."""
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the registry."""
    from .roles import registry

    roles = registry().values()
    if args.format == "json":
        json.dump([{"name": r.name, "group": r.group, "purpose": r.purpose(args.lang),
                    "latex": r.latex, "label_prefix": r.label_prefix,
                    "obligations": list(r.obligations)} for r in roles],
                  out, ensure_ascii=False, indent=2)
        out.write("\n")
        return 0
    width = max(len(r.name) for r in roles)
    for r in roles:
        out.write(f"{r.group:<10} {r.name:<{width}}  {r.purpose(args.lang)}\n")
    return 0
