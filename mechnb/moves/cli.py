"""``mechnb moves [NOTEBOOK.ipynb | -] [--lang en|zh] [--format text|json] [--method M]``.

From a notebook: the ``abstract`` cell's sentences and the introduction's paragraphs; from
``-``: plain text on standard input. Exit 0, or 2 when the input cannot be read. Only argparse
is imported at module level (``mechnb <anything>`` may import this module).
"""

from __future__ import annotations

import argparse
from typing import TextIO

HELP = "show which moves (context, gap, contribution…) an abstract makes, sentence by sentence"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``mechnb moves``."""
    parser.add_argument("source", nargs="?", default="-", metavar="NOTEBOOK.ipynb | -",
                        help="a notebook (its abstract cell and introduction) or - for text on "
                             "standard input (default)")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="language of the text and the suggested phrases (default: detected)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (marked sentences, default) or json")
    parser.add_argument("--method", choices=("learned", "rules"), default="learned",
                        help="how sentences are labelled: the learned layer over the cue rules "
                             "(default; English) or the cue rules alone")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``mechnb moves``."""
    import json
    import sys

    from ..errors import NotebookReadError

    colour = args.format == "text" and hasattr(out, "isatty") and out.isatty()
    if args.source == "-":
        from .analyser import analyse
        from .view import analysis_text

        text = sys.stdin.read()
        if not text.strip():
            err.write("mechnb moves: no text on standard input (pipe an abstract in, or give "
                      "a notebook)\n")
            return 2
        analysis = analyse(text, args.lang, args.method)
        if args.format == "json":
            out.write(json.dumps(analysis.to_json(), ensure_ascii=False, indent=1) + "\n")
        else:
            out.write(analysis_text(analysis, colour=colour) + "\n")
        return 0
    from ..notebook import read_paper
    from .paper import analyse_paper
    from .view import paper_text

    try:
        paper = read_paper(args.source)
    except NotebookReadError as exc:
        err.write(f"mechnb moves: {exc}\n")
        return 2
    result = analyse_paper(paper, args.lang, args.method)
    if result.abstract is None and result.introduction is None:
        err.write(f"mechnb moves: {paper.display_name} has no `abstract` cell and no "
                  f"introduction; mark the abstract with `%mech abstract` or the role tag "
                  f"mech:abstract\n")
        return 2
    if args.format == "json":
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
    else:
        out.write(paper_text(result, args.lang or paper.lang, colour=colour) + "\n")
    return 0
