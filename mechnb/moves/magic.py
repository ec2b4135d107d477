"""``%mech moves [NOTEBOOK] [--lang en|zh]``: the abstract with each sentence highlighted by move.

Like ``%mech check`` it reads the notebook *file*, so it sees the last saved version.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from ..errors import UsageError

USAGE = "%mech moves [NOTEBOOK] [--lang en|zh]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"%mech moves: {message}\nusage: {USAGE}")


def mech_moves(shell: Any, argv: list[str]) -> object:
    """Analyse the kernel's notebook (or ``NOTEBOOK``) and return the report."""
    from ..notebook import read_paper
    from .paper import analyse_paper
    from .view import MovesReport

    parser = _Parser(prog="%mech moves", add_help=False)
    parser.add_argument("notebook", nargs="?")
    parser.add_argument("--lang", choices=("en", "zh"))
    args = parser.parse_args(argv)
    if args.notebook:
        path = Path(args.notebook)
    else:
        from ..kernel.context import notebook_path

        found = notebook_path(shell)
        if found is None:
            raise UsageError("%mech moves cannot tell which notebook this kernel runs (the "
                             "frontend did not say, and no saved notebook in this folder holds "
                             "this cell: save it with Ctrl+S and run again); or pass its path: "
                             "%mech moves paper.ipynb")
        path = found
    paper = read_paper(path)
    lang = args.lang or paper.lang
    return MovesReport(analyse_paper(paper, lang), lang, path.name)
