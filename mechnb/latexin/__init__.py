"""LaTeX input: check a LaTeX paper, import it into a notebook, bring LaTeX edits back.

``read_latex`` reads a paper (its main file or folder, ``\\input`` files in place) into blocks;
``build_notebook`` makes the annotated notebook (the same ``Paper`` the notebook reader makes);
``check_latex`` runs the rules on it and reports at ``file.tex:LINE:COL``; ``import_latex``
writes the notebook; ``update_notebook`` carries an edited export back into its notebook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .check import check_latex
    from .reader import read_latex

__all__ = ["check_latex", "read_latex"]


def __getattr__(name: str) -> Any:
    if name == "check_latex":
        from .check import check_latex

        return check_latex
    if name == "read_latex":
        from .reader import read_latex

        return read_latex
    raise AttributeError(name)
