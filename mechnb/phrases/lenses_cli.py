"""``mechnb lenses [QUERY] [--kind ID] [--bibtex] [--lang en|zh] [--format text|json]``.

Each lens says what it reveals, the validation that usually closes a paper written through it
(and the experiment kind, ``%mech validate … --kind``), its known pitfalls, its canonical papers
(with the page each entry was checked against) and the magic that inserts its template cell. A
query keeps the lenses whose id, names or texts (English and Chinese) contain every word of it,
case and accents folded; ``--kind`` picks one lens by id (an unknown id is answered with the
nearest ones); ``--bibtex`` prints the BibTeX entries of the lenses found instead. Exit 0, 1 when
nothing matches, 2 for an unknown ``--kind``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .model import Lens, Reference

HELP = "list the analytical lenses (what each reveals, how its loop closes, its cell)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mechnb lenses``."""
    parser.add_argument("query", nargs="*", help="words to look for (default: every lens)")
    parser.add_argument("--kind", metavar="ID",
                        help="one lens by its id (as in %%mech lens --kind)")
    parser.add_argument("--bibtex", action="store_true",
                        help="print the BibTeX entries of the lenses' canonical papers")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--format", choices=("text", "json"), default="text")


def _reference_record(ref: Reference) -> dict[str, object]:
    rec = ref.to_record()
    rec["url"] = ref.url
    return rec


def _reference_line(ref: Reference, lang: str) -> str:
    where = ref.source if ref.verified else ("not verified" if lang == "en" else "未核实")
    checked = "checked at" if lang == "en" else "核对页面"
    return f"    [{ref.key}] {ref.short()} — {checked}: {where}\n"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the matching lenses."""
    import json

    from .index import fold
    from .lenscell import get_lens, lens_bibtex, suggest_lens_ids, unknown_lens_message
    from .library import load_library

    if args.kind:
        lens = get_lens(args.kind)
        if lens is None:
            err.write(unknown_lens_message(args.kind, "mechnb lenses --kind") + "\n")
            return 2
        pool: tuple[Lens, ...] = (lens,)
    else:
        pool = load_library().lenses
    words = [fold(w) for w in " ".join(args.query).split() if fold(w)]
    found = []
    for lens in pool:
        text = fold(" ".join([lens.id, *lens.name.values(), *lens.description.values(),
                              *lens.measures.values(),
                              *lens.closing_validation.values(), *lens.phrase.values()]))
        if all(w in text for w in words):
            found.append(lens)
    if args.bibtex and found:
        out.write(lens_bibtex(found))
    elif args.format == "json":
        out.write(json.dumps([{
            "id": lens.id, "name": lens.name, "reveals": lens.description,
            "measures": lens.measures,
            "closing_validation": lens.closing_validation, "phrase": lens.phrase,
            "validation_kind": lens.validation_kind, "pitfalls": lens.pitfalls,
            "references": [_reference_record(r) for r in lens.references],
            "cite": lens.cite_keys(),
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
                      f"  {'pitfalls' if lang == 'en' else '常见陷阱'}: {lens.pitfalls[lang]}\n"
                      f"  {'papers' if lang == 'en' else '经典文献'}:\n"
                      + "".join(_reference_line(r, lang) for r in lens.references)
                      + f"  {'cell' if lang == 'en' else '单元格'}: %mech lens --kind {lens.id}\n")
    if not found:
        near = suggest_lens_ids(" ".join(args.query)) if args.query and not args.kind else []
        hint = f"did you mean {' or '.join(near)}? " if near else ""
        err.write(f"mechnb lenses: no lens matches {' '.join(args.query)!r}; {hint}"
                  "`mechnb lenses` lists them all\n")
    return 0 if found else 1
