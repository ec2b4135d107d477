"""``mechnb count``: the paper's word count, as a journal counts it (``mechnb.wordcount``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

HELP = "count the paper's words (English) and characters (Chinese), per section, as a journal does"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``mechnb count``."""
    parser.add_argument("notebook", type=Path)
    parser.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Print the count: totals, then one line per part (title, abstract, sections, appendix)."""
    from .wordcount import count_notebook

    count = count_notebook(args.notebook)
    if args.format == "json":
        json.dump(count.to_json(), out, ensure_ascii=False, indent=1)
        out.write("\n")
    else:
        out.write("\n".join(count.text_lines(args.notebook.name)) + "\n")
    return 0
