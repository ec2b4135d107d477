"""The rules that read the experiments' code with ``ast``: hand-typed evidence (MECH071),
unseeded randomness (MECH076), cells run out of order (MECH077) and outputs without an
execution count (MECH078); and the code reading they share (``codeflow``, ``provenance``)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from growth import HANG_GUARD

from mechnb.checker.codeflow import build_flow, mask_magics, parse_code
from mechnb.checker.document import Document
from mechnb.checker.evidence import evidence_problems
from mechnb.checker.rules import RULES_BY_CODE
from mechnb.findings import Finding
from mechnb.notebook import paper_from_dict

PNG = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo="}}


def cell(source: str, validates: tuple[str, ...] = (), count: int | None = None,
         outputs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A code cell; an experiment validating ``validates`` when given."""
    meta: dict[str, Any] = {}
    if validates:
        meta = {"mechnb": {"role": "experiment", "validates": list(validates)},
                "tags": ["mech:experiment"]}
    return {"cell_type": "code", "metadata": meta, "source": source, "execution_count": count,
            "outputs": outputs if outputs is not None else ([PNG] if count else [])}


def experiment(source: str, count: int | None = None, **kw: Any) -> dict[str, Any]:
    return cell(source, ("thm:main",), count, **kw)


def doc_of(*cells: dict[str, Any]) -> Document:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"id": f"c{i}", **c} for i, c in enumerate(cells)]}
    return Document(paper_from_dict(nb))


def run(code: str, *cells: dict[str, Any]) -> list[Finding]:
    rule = RULES_BY_CODE[code]
    return list(rule.check(doc_of(*cells), rule))


def where(findings: list[Finding]) -> list[tuple[int | None, int | None]]:
    return [(f.cell, f.line) for f in findings]


# ---- MECH071: values typed in by hand -------------------------------------------------------
@pytest.mark.parametrize("source", [
    "scores = [0.1, 0.5, 0.9]\nprint(scores)",
    'print("accuracy drops from 0.98 to 0.12")',
    "import numpy as np\nimport matplotlib.pyplot as plt\nplt.plot(np.array([0.1, 0.5, 0.9]))",
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.bar(['a', 'b'], "
    "{'a': 0.9, 'b': 0.1}.values())\nplt.show()",
    "import pandas as pd\ndf = pd.DataFrame({'acc': [0.98, 0.12]})\nprint(df.to_latex())",
    "import pandas as pd\npd.DataFrame({'acc': [0.98, 0.12]}, index=['on', 'off'])",
    "acc = (0.98, 0.12)\nprint(f'{acc[0]:.2f} -> {acc[1]:.2f}')",
    "import torch\nx = torch.tensor([[0.1, 0.9], [0.8, 0.2]])\ndisplay(x)",
    "values = [v * 100 for v in [0.98, 0.12]]\nprint(values)",
    "import numpy as np\nsteps = np.arange(3)\nmeasured = [0.1, 0.5, 0.9]\n"
    "import matplotlib.pyplot as plt\nplt.plot(steps, measured)\nplt.show()",
    "%matplotlib inline\nrows = []\nrows.append(0.98)\nrows.append(0.12)\nprint(rows)",
])
def test_values_typed_into_the_cell_are_not_evidence(source: str) -> None:
    found = run("MECH071", experiment(source, 1))
    assert len(found) == 1 and found[0].cell == 0
    assert "compute them in the notebook or load" in found[0].message


def test_a_helper_that_only_returns_literals_is_still_literals() -> None:
    helper = cell("import numpy as np\n\n\ndef measured():\n    # from the run log\n"
                  "    return np.array([0.1, 0.5, 0.9])\n")
    exp = experiment("import matplotlib.pyplot as plt\nplt.plot(measured(), 'o-')\nplt.show()",
                     1)
    found = run("MECH071", helper, exp)
    assert where(found) == [(1, 2)]  # at the statement that shows it; the literal is elsewhere
    assert "`[0.1, 0.5, 0.9]` typed in cell 1, line 6" in found[0].message


def test_the_literal_is_named_at_its_own_line_in_the_cell() -> None:
    found = run("MECH071", experiment("# 模型输出\nimport numpy as np\n\n分数 = "
                                      "np.array([0.1, 0.5, 0.9])  # 手抄\nprint(分数)", 1))
    assert where(found) == [(0, 4)]  # columns count characters, not UTF-8 bytes
    assert found[0].column == 15 and "`[0.1, 0.5, 0.9]` typed at line 4" in found[0].message


def test_a_helper_that_plots_literals_is_followed() -> None:
    helper = cell("import matplotlib.pyplot as plt\n\ndef show():\n    plt.plot([0.2, 0.4])\n")
    assert where(run("MECH071", helper, experiment("show()", 1))) == [(1, 1)]


@pytest.mark.parametrize("source", [
    "import numpy as np\nscores = np.load('scores.npy')\nprint(scores)",
    "import pandas as pd\ndf = pd.read_csv('runs.csv')\ndf.plot()",
    "import json\nwith open('r.json') as f:\n    r = json.load(f)\nprint(r['acc'])",
    "import numpy as np\nsteps = np.arange(1, 4)\nprint(1 - np.exp(-steps))",
    "import numpy as np\nmeasured = np.array([0.1, 0.5, 0.9])\npredicted = 1 - np.exp("
    "-np.arange(3))\nprint(measured - predicted)",
    "import matplotlib.pyplot as plt\nplt.plot([0, 1, 2], model_scores())",
    "results = []\nfor seed in range(3):\n    results.append(train(seed))\nprint(results)",
    "import numpy as np\nplt.plot(np.linspace(0, 1, 5))",  # a grid alone is not typed values
    "print('run 3 of 3')",  # no result-like number
    "print('done')",
    "acc = 0.98\nsave(acc)\nprint(acc)",  # it computes (calls something) besides
    "import torch\nmodel = torch.load('m.pt')\nprint([0.98, model.eval()])",
    "x = [0.1, 0.2]\nx = undefined_elsewhere\nprint(x)",
    "print(\"accuracy drops from 0.98 to 0.12\"",  # a syntax error: not judged
    "%%bash\necho 0.98",  # not Python
    "x = [0.98, 0.12]\nx;",  # the semicolon hides the last expression
])
def test_computed_or_loaded_values_are_evidence(source: str) -> None:
    assert run("MECH071", experiment(source, 1)) == []


def test_names_are_followed_through_earlier_cells_and_globals() -> None:
    computed = cell("import numpy as np\nrng = np.random.default_rng(0)\n"
                    "scores = rng.normal(size=3)")
    assert run("MECH071", computed, experiment("print(scores)", 1)) == []
    typed = cell("scores = [0.1, 0.2]\n\ndef refresh():\n    global scores\n"
                 "    scores = compute()\n")
    assert run("MECH071", typed, experiment("refresh()\nprint(scores)", 1)) == []
    assert len(run("MECH071", typed, experiment("print(scores)", 1))) == 1
    unreadable = cell("scores = compute(\n")  # does not parse: what it assigns is computed
    assert run("MECH071", typed, unreadable, experiment("print(scores)", 1)) == []


def test_a_placeholder_is_reported_by_mech046_only() -> None:
    source = "# mechnb: pending\nimport matplotlib.pyplot as plt\nplt.plot([0.1, 0.5, 0.9])"
    doc = doc_of(experiment(source, 1))
    assert [p.kind for p in evidence_problems(doc, doc.cells[0])] == ["placeholder"]
    assert run("MECH071", experiment(source, 1)) == []
    assert len(run("MECH046", experiment(source, 1))) == 1
    typed = doc_of(experiment("print([0.1, 0.5])", 1))
    assert [p.kind for p in evidence_problems(typed, typed.cells[0])] == ["hand-typed"]
    assert evidence_problems(typed, typed.cells[0])[0].offset == 6


def test_recursion_and_huge_cells_stay_quiet_and_fast() -> None:
    recursive = experiment("def f(n):\n    return f(n - 1) if n else [0.5]\nprint(f(3))", 1)
    assert run("MECH071", recursive) == []
    many = "\n".join(f"x{i} = [{i}.5, {i}.25]" for i in range(2000)) + "\nprint(x1)"
    nested = "def g0():\n    return [0.5]\n" + "".join(
        f"def g{i}():\n    return g{i - 1}() + g{i - 1}()\n" for i in range(1, 40)) + \
        "print(g39())"
    huge = "x = [" + "0.5, " * 40_000 + "]\nprint(x)"  # larger than MAX_CELL_CHARS
    deep = "x = " + " + ".join(["0.5"] * 5000) + "\nprint(x)"  # deeper than Python recursion
    start = time.process_time()
    assert len(run("MECH071", experiment(many, 1))) == 1
    assert run("MECH071", experiment(nested, 1)) == []  # out of budget: not judged
    assert run("MECH071", experiment(huge, 1)) == []
    assert run("MECH071", experiment(deep, 1)) == []
    assert run("MECH076", experiment(deep, 1)) == []
    assert time.process_time() - start < HANG_GUARD  # the budgets stop the walk: no hang


# ---- reading the code ------------------------------------------------------------------------
def test_magics_are_masked_line_for_line() -> None:
    source = ("%matplotlib inline\n!pip install x\nfiles = !ls\nnp.array?\n"
              "    %time y = 1\nx = 1 % 2\n")
    masked = mask_magics(source)
    assert masked == "pass\npass\nfiles = None\npass\n    pass\nx = 1 % 2\n"
    assert mask_magics("%%time\nx = 1") == "pass\nx = 1"
    assert mask_magics("%%html\n<b>x</b>") is None
    assert parse_code("def f(:\n") is None and parse_code("   \n") is None


def test_a_cell_uses_the_earlier_cells_that_bind_what_it_reads() -> None:
    doc = doc_of(cell("import numpy as np\nrng = np.random.default_rng(0)"),
                 cell("def draw(n):\n    return rng.normal(size=n)"),
                 cell("rng = 5  # unused later"),
                 cell("n = 3\nx = draw(n)\ny = [v for v in x]\nprint(y, n)"))
    flow = build_flow(doc)
    assert flow.inputs(3) == {1: "draw"}
    assert flow.uses(3) == [1, 2, 3]  # draw reads rng when called: the latest rng is cell 2
    assert flow.qualified(flow.cells[0].tree.body[1].value.func) == "numpy.random.default_rng"


# ---- MECH076: unseeded randomness ------------------------------------------------------------
@pytest.mark.parametrize(("source", "line", "fix"), [
    ("import numpy as np\nx = np.random.randn(10)\nprint(x.mean())", 2, "np.random.seed(0)"),
    ("import numpy as np\nrng = np.random.default_rng()\nprint(rng.normal())", 2,
     "np.random.default_rng(0)"),
    ("import numpy as np\nrs = np.random.RandomState(None)\nprint(rs.rand())", 2,
     "np.random.RandomState(0)"),
    ("import random\nprint(random.random())", 2, "random.seed(0)"),
    ("import torch\nprint(torch.randn(3))", 2, "torch.manual_seed(0)"),
    ("import torch.nn as nn\nlayer = nn.Linear(4, 4)\nprint(layer.weight)", 2,
     "torch.manual_seed(0)"),
    ("import torch.nn.functional as F\nimport torch\ntorch.manual_seed(0)\n"
     "np.random.shuffle(x)\nprint(F.dropout(x))", 4, "np.random.seed(0)"),
    ("from numpy.random import choice\nprint(choice(3))", 2, "np.random.seed(0)"),
    ("import numpy as np\nx = np.random.rand(3)\nnp.random.seed(0)\nprint(x)", 2,
     "np.random.seed(0)"),
    ("import tensorflow as tf\nprint(tf.random.normal((2,)))", 2, "tf.random.set_seed(0)"),
])
def test_random_draws_without_a_seed(source: str, line: int, fix: str) -> None:
    found = run("MECH076", experiment(source, 1))
    assert where(found) == [(0, line)] and fix in found[0].message


@pytest.mark.parametrize("source", [
    "import numpy as np\nnp.random.seed(0)\nprint(np.random.randn(3))",
    "import numpy as np\nrng = np.random.default_rng(seed=1)\nprint(rng.normal())",
    "import random\nrandom.seed(1)\nprint(random.choice([1, 2]))",
    "import torch\ntorch.manual_seed(0)\nprint(torch.randn(3), torch.nn.Linear(2, 2))",
    "import jax\nkey = jax.random.PRNGKey(0)\nprint(jax.random.normal(key, (3,)))",
    "import torch\ng = torch.Generator().manual_seed(0)\nprint(torch.randn(3, generator=g))",
    "from lightning import seed_everything\nimport torch\nseed_everything(0)\n"
    "print(torch.rand(2))",
    "import numpy as np\nrandom = np.random.default_rng(0)\nprint(random.random())",
    "import torch.nn.functional as F\nprint(F.dropout(x, training=False))",
])
def test_seeded_or_keyed_draws_are_fine(source: str) -> None:
    assert run("MECH076", experiment(source, 1)) == []


def test_a_seed_in_an_earlier_cell_covers_later_cells() -> None:
    seed = cell("import numpy as np\nnp.random.seed(0)")
    draw = experiment("print(np.random.rand(3))", 1)
    assert run("MECH076", seed, draw) == []
    assert where(run("MECH076", draw, seed)) == [(0, 1)]


def test_draws_in_cells_the_experiment_uses_are_reported_there_once() -> None:
    helper = cell("import numpy as np\n\ndef noise(n):\n    return np.random.randn(n) + "
                  "np.random.rand(n)\n")
    unrelated = cell("junk = np.random.rand(3)")  # no experiment reads `junk`
    found = run("MECH076", helper, unrelated, experiment("print(noise(3))", 1),
                experiment("print(noise(4))", 2))
    assert where(found) == [(0, 4)]
    assert "experiment in cell 3" in found[0].message and "1 more like it" in found[0].message
    # the helper draws when it is called: a seed between its definition and the call is enough
    seeded = cell("np.random.seed(0)")
    assert run("MECH076", helper, seeded, experiment("print(noise(3))", 1)) == []


# ---- MECH077: run out of order ---------------------------------------------------------------
def test_counts_out_of_notebook_order_are_reported_once() -> None:
    found = run("MECH077", cell("a = 1", count=4), cell("b = 2", count=2),
                cell("c = 3", count=3), cell("d = 4", count=1))
    assert where(found) == [(1, None)]
    assert found[0].message.startswith("cell 2 has execution count 2 but cell 1 above it has 4")
    assert "Restart & Run All, then save" in found[0].message


def test_an_experiment_run_before_its_inputs_is_reported_at_the_experiment() -> None:
    cells = [cell("import numpy as np\nsteps = np.arange(3)", count=9),
             cell("other = 1", count=10),
             experiment("print(steps * 2)", 3),
             experiment("print(other)", 11),
             experiment("print(steps + 1)", 2)]
    found = run("MECH077", *cells)
    assert where(found) == [(2, None), (4, None)]
    assert "ran before cell 1 (count 9), which defines the `steps` it uses" in found[0].message


def test_a_shuffled_notebook_gives_a_handful_of_findings() -> None:
    counts = [7, 3, 9, 1, 5, 2, 8, 4, 6, 10]
    cells = [cell(f"v{i} = {i}", count=c) for i, c in enumerate(counts)]
    assert len(run("MECH077", *cells)) == 1


def test_top_to_bottom_with_gaps_and_unrun_cells_is_fine() -> None:
    assert run("MECH077", cell("a = 1", count=1), cell("b = a"), cell("c = a", count=5),
               experiment("print(c)", 6)) == []


# ---- MECH078: outputs without an execution count ---------------------------------------------
def test_outputs_without_a_count() -> None:
    pasted = experiment("print(x)", None, outputs=[PNG])
    assert where(run("MECH078", pasted)) == [(0, None)]
    assert run("MECH078", cell("print(1)", outputs=[PNG])) == []  # validates nothing
    assert run("MECH078", experiment("print(x)", None, outputs=[])) == []  # not run: MECH007


def test_every_statement_kind_is_read_without_error() -> None:
    source = ("import numpy as np\nfrom os import *\nfrom . import local\n"
              "class Box:\n    size = 3\n"
              "async def fetch():\n    await thing()\n"
              "try:\n    x = [0.5]\nexcept* ValueError as err:\n    x = err\nfinally:\n    pass\n"
              "with open('f') as f, ctx():\n    data = f.read()\n"
              "while False:\n    x = x\nelse:\n    pass\n"
              "match x:\n    case [a]:\n        y = a\n    case _:\n        y = 0.5\n"
              "if (n := 3) > 2:\n    del n\nglobal g\nassert x\nz: float = 0.5\n"
              "w = {k: v for k, v in {'a': 0.5}.items() if v}\nlam = lambda q=0.5: q\n"
              "print(lam(), w, *x, z, f'{y!r:>4}', x[1:2], -z, z if z else 0.25, Box().size)")
    assert run("MECH071", experiment(source, 1)) == []  # it computes (opens a file, …)
    assert run("MECH076", experiment(source, 1)) == []


def test_a_parameter_named_like_a_module_is_not_that_module() -> None:
    helper = cell("def pick(random, items):\n    return random.choice(items)\n")
    exp = experiment("import numpy as np\nrng = np.random.default_rng(0)\nprint(pick(rng, [1]))",
                     1)
    assert run("MECH076", helper, exp) == []
