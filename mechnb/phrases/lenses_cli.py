"""``mechnb lenses [QUERY] [--lang en|zh] [--format text|json]``: the lens catalog.

Each lens says what it reveals, the validation that usually closes a paper written through it
(and the experiment kind, ``%mech validate … --kind``), and the magic that inserts its template
cell. A query keeps the lenses whose id, names or texts (English and Chinese) contain every
word of it, case and accents folded. Exit 0, or 1 when nothing matches.
"""

from __future__ import annotations

import argparse
from typing import TextIO

HELP = "list the analytical lenses (what each reveals, how its loop closes, its cell)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mechnb lenses``."""
    parser.add_argument("query", nargs="*", help="words to look for (default: every lens)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the matching lenses."""
    import json

    from .index import fold
    from .library import load_library

    words = [fold(w) for w in " ".join(args.query).split() if fold(w)]
    found = []
    for lens in load_library().lenses:
        text = fold(" ".join([lens.id, *lens.name.values(), *lens.description.values(),
                              *lens.measures.values(),
                              *lens.closing_validation.values(), *lens.phrase.values()]))
        if all(w in text for w in words):
            found.append(lens)
    if args.format == "json":
        out.write(json.dumps([{
            "id": lens.id, "name": lens.name, "reveals": lens.description,
            "measures": lens.measures,
            "closing_validation": lens.closing_validation, "phrase": lens.phrase,
            "validation_kind": lens.validation_kind,
            "cell": f"%mech lens --kind {lens.id}"} for lens in found],
            ensure_ascii=False, indent=1) + "\n")
    else:
        lang = args.lang
        for lens in found:
            out.write(f"{lens.id} — {lens.name[lang]}\n"
                      f"  {'reveals' if lang == 'en' else '揭示'}: {lens.description[lang]}\n"
                      f"  {'measures' if lang == 'en' else '测量'}: {lens.measures[lang]}\n"
                      f"  {'closes with' if lang == 'en' else '闭环验证'}: "
                      f"{lens.closing_validation[lang]} ({lens.validation_kind})\n"
                      f"  {'cell' if lang == 'en' else '单元格'}: %mech lens --kind {lens.id}\n")
        if not found:
            err.write(f"mechnb lenses: no lens matches {' '.join(args.query)!r}; "
                      "`mechnb lenses` lists them all\n")
    return 0 if found else 1
