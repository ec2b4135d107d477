"""``%mech check [NOTEBOOK] [--no-map]``: the findings as a table plus the argument map.

The checker reads the notebook *file*, so it sees the last saved version. Rows carry
``data-mechnb-cell-id`` / ``data-mechnb-cell-index`` so the JupyterLab extension can select the
cell when a row is clicked.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..errors import UsageError
from ..findings import Finding

USAGE = "%mech check [NOTEBOOK] [--no-map] [--verbose]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"%mech check: {message}\nusage: {USAGE}")


class CheckReport:
    """What ``%mech check`` displays: HTML in a notebook, plain text in a terminal."""

    def __init__(self, path: Path, findings: Sequence[Finding], svg: str | None,
                 verbose: bool = False) -> None:
        self.path = path
        self.findings = list(findings)
        self.svg = svg
        self.verbose = verbose
        self.stale = False
        """The running cell is not in the saved file: cells were added since the last save,
        so the saved file's cell numbers may not be the ones on screen."""

    def _note(self) -> str:
        if self.stale:
            return ("(the last saved version, which does not have this cell yet: cell numbers "
                    "are the saved file's — save with Ctrl+S and run again)")
        return "(the last saved version — save first to check your edits)"

    def _repr_html_(self) -> str:
        from .report import findings_html

        return findings_html(self.findings, self.path.name, self.svg, note=self._note())

    def __repr__(self) -> str:
        from .report import report_lines

        lines = report_lines(self.findings, self.path.name, verbose=self.verbose,
                             list_hint="%mech check --verbose lists each")
        lines[-1] += " " + (self._note() if self.stale else "(last saved version)")
        return "\n".join(lines)


def _notebook(shell: Any, given: str | None) -> Path:
    if given:
        return Path(given)
    from ..kernel.context import notebook_path

    path = notebook_path(shell)
    if path is None:
        raise UsageError("%mech check cannot tell which notebook this kernel runs (the frontend "
                         "did not say, and no saved notebook in this folder holds this cell: "
                         "save it with Ctrl+S and run again); or pass its path: "
                         "%mech check paper.ipynb")
    return path


def mech_check(shell: Any, argv: list[str]) -> object | None:
    """Run the checks on the kernel's notebook (or ``NOTEBOOK``) and return the report."""
    from . import check
    from .argmap import argument_map_svg

    parser = _Parser(prog="%mech check", add_help=False)
    parser.add_argument("notebook", nargs="?")
    parser.add_argument("--no-map", action="store_true")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)
    path = _notebook(shell, args.notebook)
    from ..notebook import read_paper

    paper = read_paper(path)
    findings = check(paper)
    svg = None if args.no_map else argument_map_svg(paper, findings)
    report = CheckReport(path, findings, svg, verbose=args.verbose)
    if args.notebook is None:
        from ..kernel.context import current_cell_id

        running = current_cell_id(shell)
        if running and all(c.id != running for c in paper.cells):
            report.stale = True
    return report
