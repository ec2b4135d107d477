"""Shared helpers of the example-paper builders: cells with roles set as the magics set them.

The builders write each notebook with nbformat and execute it with nbclient, so every figure and
table in the saved notebook is computed by a real kernel.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from mechnb.notebook import role_metadata

HERE = Path(__file__).resolve().parent

SINGLE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                         "MKL_NUM_THREADS")}
"""The kernels run with one BLAS thread: the same numbers on any machine (the papers say so)."""


def md(source: str, role: str | None = None, **fields: Any) -> nbformat.NotebookNode:
    """A markdown cell, with ``role`` metadata and mirror tag when a role is given."""
    cell = nbformat.v4.new_markdown_cell(source.strip("\n"))
    if role:
        cell.metadata.update(role_metadata(role, **fields))
    return cell


def code(source: str, role: str | None = None, **fields: Any) -> nbformat.NotebookNode:
    """A code cell, with ``role`` metadata and mirror tag when a role is given."""
    cell = nbformat.v4.new_code_cell(source.strip("\n"))
    if role:
        cell.metadata.update(role_metadata(role, **fields))
    return cell


def notebook(cells: list[nbformat.NotebookNode], meta: dict[str, Any]) -> nbformat.NotebookNode:
    """A notebook with the python3 kernelspec and ``metadata.mechnb`` = ``meta``."""
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    for index, cell in enumerate(cells):  # stable ids: rebuilding changes only what changed
        cell["id"] = f"cell-{index}"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    if meta:
        nb.metadata["mechnb"] = meta
    return nb


def output_dir(description: str) -> Path:
    """The folder to write into: ``notebooks/`` itself, or ``--out-dir DIR`` (``make demo``
    builds every example afresh in ``build/examples/`` and leaves the committed ones alone)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out-dir", type=Path, default=HERE,
                        help="where to write the executed notebook(s) (default: notebooks/)")
    out = parser.parse_args().out_dir.resolve()
    out.mkdir(parents=True, exist_ok=True)
    return out


def execute_and_write(nb: nbformat.NotebookNode, out: Path, timeout: int = 120,
                      live_only: tuple[str, ...] = ()) -> None:
    """Run every cell in a fresh kernel (working directory: the notebook's folder) and save.

    Outside ``notebooks/``, the notebook's bibliography is copied beside it first.

    Cells whose source starts with one of ``live_only`` run, but their outputs are not saved:
    they are interactive widgets whose saved state would be large and dead without a kernel.
    """
    os.environ.update(SINGLE_THREAD)  # inherited by the kernel nbclient starts
    bib = nb.metadata.get("mechnb", {}).get("bibliography")
    if bib and out.parent != HERE:
        shutil.copy(HERE / bib, out.parent / bib)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=not live_only,
                   record_timing=False,
                   resources={"metadata": {"path": str(out.parent)}}).execute()
    for cell in nb.cells:
        if live_only and cell.cell_type == "code" and cell.source.startswith(live_only):
            cell.outputs = []
    nbformat.validate(nb)
    nbformat.write(nb, out)
