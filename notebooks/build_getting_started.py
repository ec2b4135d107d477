"""Build and execute ``getting-started.ipynb``, the tour of mechnb.

Run with the project's venv: ``.venv/bin/python notebooks/build_getting_started.py``. The tour
writes its small draft paper under ``build/tour/`` next to the notebook (git-ignored).
"""

from __future__ import annotations

from nbbuild import HERE, code, execute_and_write, md, notebook, output_dir

OUT = HERE / "getting-started.ipynb"

CELLS = [
    md(r"""
# Getting started with mechnb

mechnb helps you write a *mechanism paper* — one that explains how a behavior of a transformer
arises and then closes the loop with a proof, an experiment or an intervention — in the notebook
where the evidence lives. This tour walks through the magics, the phrase panel, the checks and
the export. Run it top to bottom; everything it writes goes to `build/tour/` next to this
notebook.

The finished examples are in this folder: `example_paper.ipynb` (training dynamics),
`failure_paper.ipynb` (numerical failure) and `expressivity_paper_zh.ipynb` (expressivity, in
Chinese).
"""),
    md(r"""
## 1. Load the extension

`%load_ext mechnb` registers the `%mech` magic. It imports almost nothing, so it is cheap to keep
in the first cell of every paper.
"""),
    code(r"""
%load_ext mechnb
%mech help
"""),
    md(r"""
## 2. Roles: what each cell does in the argument

Every cell of a paper can carry a *role* — `gap`, `lens`, `theorem`, `experiment`,
`limitations`, … — stored in `metadata.mechnb.role` and mirrored as a `mech:<role>` tag.
`%mech list` shows them all with what each is for.
"""),
    code(r"""
%mech list
"""),
    md(r"""
## 3. Insert templates with the magics

`%mech <role>` inserts the template for a role below the running cell, with its metadata set; a
`theorem` comes with the `interpretation` cell that must follow it. In JupyterLab or Notebook 7
with the extension the cells appear directly in the notebook. Where the extension is not active
(this tour was executed headless, for instance) the cells are shown as output instead, ready to
copy. The square-bracket slots, such as `[setting]`, are for you to fill; `%mech check` lists the
ones you missed.
"""),
    code(r"""
%mech theorem --label thm:mass --title "Attention mass"
"""),
    md(r"""
`%mech validate <label>` inserts an experiment that declares what it validates. The template is
visibly *pending*: until you replace its stand-in with a real measurement, it refuses to pass as
evidence and `%mech check` reports it. `--kind intervention` gives the most convincing kind of
validation — change only the claimed mechanism and watch the effect vanish.
"""),
    code(r"""
%mech validate thm:mass --kind intervention
"""),
    md(r"""
`%mech new failure` (or `dynamics`, `expressivity`) scaffolds a whole paper of that type; from a
terminal, `mechnb new failure paper.ipynb` writes it as a new notebook.

## 4. The phrase panel

`%mech phrases [query]` opens a searchable, bilingual phrase library organized by rhetorical
function (announce a formula, explain symbols, give the intuition, describe the gap, state a
limitation, …). With the extension it opens in the right side bar, and a click inserts the phrase
into the active cell; elsewhere the panel appears under the cell (run the next cell to see it; its output is not
saved with this notebook). The same search is available in a terminal:
"""),
    code(r"""
%mech phrases intuition
"""),
    code(r"""
import sys

!{sys.executable} -m mechnb phrases "intuition" --limit 3
"""),
    md(r"""
## 5. Check that the argument closes

`%mech check` runs the closing-loop checks on the saved notebook: the paper must state a gap, a
lens and its limitations; every theorem needs an interpretation and a proof or a validating
experiment; references must resolve; TeX must balance; and so on. To see it on a small paper, we
write a draft with a deliberately *open loop*: it states a theorem but never proves or tests it.
Roles are plain notebook metadata, which `mechnb.notebook.role_metadata` builds.
"""),
    code(r"""
import json
from pathlib import Path

from mechnb.notebook import role_metadata

TOUR = Path("build/tour")
TOUR.mkdir(parents=True, exist_ok=True)
DRAFT = TOUR / "draft.ipynb"


def cell(source, role, **fields):
    return {"cell_type": "markdown", "metadata": role_metadata(role, **fields),
            "source": source}


draft_cells = [
    cell("Attention heads in long contexts still single out one token. How much attention a "
         "favored key receives has had no closed form. We show that it is a logistic function "
         "of the score margin and prove it in two lines.", "abstract"),
    cell("# Introduction\n\nIn a long context a head's attention is spread over many keys, yet "
         "trained heads still pick out one token.", "context"),
    cell("What is missing is a closed form for how much attention one favored key receives.",
         "gap"),
    cell("We look through the lens of softmax concentration: scores that take only two values "
         "have a softmax we can write down exactly.", "lens"),
    cell("# Theory\n\nIf one of $n$ attention scores exceeds the other $n-1$, which are equal, by "
         "$\\beta$, the softmax puts mass $p=e^{\\beta}/(e^{\\beta}+n-1)$ on it.", "theorem",
         label="thm:mass", title="Attention mass"),
    cell("In words, one key wins the head's attention once $\\beta$ exceeds $\\log(n-1)$; "
         "longer contexts need only logarithmically larger scores.", "interpretation"),
    cell("The statement assumes exactly two score levels; real heads have many.", "limitations"),
    cell("# Conclusion\n\nOne favored key receives attention $p$ in closed form.", "conclusion"),
]


def save(cells):
    DRAFT.write_text(json.dumps({
        "cells": cells, "nbformat": 4, "nbformat_minor": 4,
        "metadata": {"mechnb": {"title": "Attention Mass in Closed Form", "lang": "en",
                                "authors": ["A. Reader"]}}}, indent=1))


save(draft_cells)
"""),
    md(r"""
Checking the draft reports the open loop as errors, each naming the cell and what to do. In
JupyterLab, clicking a row selects the cell; the argument map under the table draws each move of
the argument and marks the open ends in red.
"""),
    code(r"""
%mech check build/tour/draft.ipynb
"""),
    md(r"""
To close the loop, add the missing validation right after the interpretation. In a real paper
you would type `%mech proof` there, or `%mech validate thm:mass` for an experiment; here we add
the proof cell to the draft file directly.
"""),
    code(r"""
proof = cell("The softmax of the scores $(\\beta, 0, \\dots, 0)$ is "
             "$(e^{\\beta}, 1, \\dots, 1)/(e^{\\beta}+n-1)$, whose first entry is $p$.", "proof")
save(draft_cells[:6] + [proof] + draft_cells[6:])
"""),
    code(r"""
%mech check build/tour/draft.ipynb
"""),
    md(r"""
The same checks run from a terminal with `mechnb check paper.ipynb` (exit status 1 on errors,
`--format json` for tools), and every rule can be re-leveled or disabled in
`[tool.mechnb]` of `pyproject.toml`.

## 6. Move analysis

A mechanism paper's abstract walks the moves of the argument: context, gap, contribution,
mechanism, validation, implication. `%mech moves` labels each sentence of the abstract (and each
paragraph of the introduction) with the moves it makes, and suggests phrases from the library
for every move that is missing.
"""),
    code(r"""
%mech moves build/tour/draft.ipynb
"""),
    md(r"""
## 7. Export to LaTeX, PDF and an arXiv bundle

`%mech export` turns the saved notebook into a LaTeX draft: theorem environments with labels, the
boxed research question, figures from experiment outputs with their captions, and the
bibliography; `--pdf` compiles it. Here we export the draft, which is not the notebook this
kernel runs, so we name it with `--notebook`.
"""),
    code(r"""
%mech export build/tour/out --notebook build/tour/draft.ipynb
"""),
    code(r"""
print(Path("build/tour/out/draft.tex").read_text().split("\\begin{document}")[1][:900])
"""),
    md(r"""
From a terminal, `mechnb export paper.ipynb --pdf` also compiles the PDF, and
`--bundle arxiv` writes a `.tar.gz` ready for arXiv (with the `.bbl` and flat figure paths),
after checking that it compiles with pdfLaTeX in an empty directory:
"""),
    code(r"""
!{sys.executable} -m mechnb export build/tour/draft.ipynb -o build/tour/arxiv --bundle arxiv --force 2>&1 | tail -n 2
"""),
    md(r"""
That is the whole loop: write with roles and templates, find words in the phrase panel, let
`%mech check` show what is still open, close it, and export. `make demo` exports every
example paper in this folder the same way.
"""),
]


def build():  # type: ignore[no-untyped-def]
    """The notebook, not yet executed."""
    return notebook(CELLS, {})


if __name__ == "__main__":
    target = output_dir(f"Build and execute {OUT.name}, the getting-started tour.") / OUT.name
    execute_and_write(build(), target, live_only=("%mech phrases",))
    print(f"wrote {target}")
