"""``mechnb phrases``: look phrases up from the command line (text or JSON)."""

from __future__ import annotations

import argparse
from typing import TextIO

HELP = "look up bilingual phrases for a mechanism paper by words and rhetorical function"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``mechnb phrases``."""
    parser.add_argument("query", nargs="*", metavar="QUERY",
                        help="words to look for (inflections, spelling variants and synonyms "
                             "count; no query: every phrase of the filter)")
    parser.add_argument("--function", "-f", metavar="F",
                        help="keep one function subtree, e.g. introduction/gap")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="match and show only this language")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--limit", type=int, metavar="N", help="show at most N phrases")
    parser.add_argument("--list-functions", action="store_true",
                        help="list the function tree with the number of phrases in each")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the matching phrases (or the function tree); returns the exit code."""
    import json

    from ..errors import UsageError
    from .lookup import functions, normalize_function, search
    from .model import LANGS, Lang

    nodes = functions()
    if args.list_functions:
        if args.format == "json":
            json.dump([{"function": n.path, "count": n.count} for n in nodes], out,
                      ensure_ascii=False, indent=1)
            out.write("\n")
        else:
            for n in nodes:
                out.write(f"{'  ' * n.depth}{n.name}  ({n.count})  {n.path}\n")
        return 0
    root = normalize_function(args.function)
    if root and root not in {n.path for n in nodes}:
        raise UsageError(f"unknown function {args.function!r}; "
                         "`mechnb phrases --list-functions` lists them")
    if args.limit is not None and args.limit < 0:
        raise UsageError("--limit must be zero or more")
    hits = search(" ".join(args.query), function=root or None, lang=args.lang, limit=args.limit)
    if args.format == "json":
        json.dump([p.to_record() for p in hits], out, ensure_ascii=False, indent=1)
        out.write("\n")
        return 0
    langs: tuple[Lang, ...] = (args.lang,) if args.lang else LANGS
    for p in hits:
        out.write(f"{p.id}  [{p.function}]\n")
        for lang in langs:
            prefix = f"  {lang}: " if len(langs) > 1 else "  "
            out.write(f"{prefix}{p.text(lang)}\n")
        for lang in langs:
            out.write(f"    note: {p.note(lang)}\n")
        out.write("\n")
    if not hits:
        err.write("no phrase matches; try other words or another --function\n")
    return 0
