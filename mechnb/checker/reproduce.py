"""Rules about reproducible evidence: unseeded randomness (MECH076), cells run out of order
(MECH077), outputs without an execution count (MECH078).

The code is read with ``ast`` (``codeflow``): a validating code cell *uses* the earlier cells
that bind a name it reads (its imports, the functions it calls, the data it plots), and those
cells' inputs in turn. Cells that do not parse are not read (no finding comes from them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..findings import Finding
from ..lazyre import lazy
from ..notebook import Cell
from .codeflow import CodeFlow, code_flow, function_locals
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

# ---- what draws random numbers, and what seeds it ------------------------------------------
NUMPY_NOT_DRAWS = frozenset({
    "seed", "default_rng", "RandomState", "Generator", "SeedSequence", "BitGenerator", "PCG64",
    "PCG64DXSM", "MT19937", "Philox", "SFC64", "get_state", "set_state", "get_bit_generator",
    "set_bit_generator", "bit_generator", "mtrand"})
"""Names in ``numpy.random`` that do not draw from the global generator."""
UNSEEDED_GENERATORS = frozenset({
    "numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.SeedSequence",
    "numpy.random.PCG64", "numpy.random.PCG64DXSM", "numpy.random.MT19937",
    "numpy.random.Philox", "numpy.random.SFC64", "random.Random", "torch.Generator"})
"""Generators that draw from fresh entropy unless given a seed."""
RANDOM_DRAWS = frozenset({
    "random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
    "gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
    "gammavariate", "betavariate", "paretovariate", "weibullvariate", "triangular",
    "getrandbits", "randbytes", "binomialvariate"})
TORCH_DRAWS = frozenset({
    "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.normal",
    "torch.bernoulli", "torch.multinomial", "torch.poisson", "torch.rand_like",
    "torch.randn_like", "torch.randint_like", "torch.dropout", "torch.alpha_dropout",
    "torch.feature_dropout", "torch.rrelu", "torch.utils.data.random_split",
    "torch.nn.functional.dropout", "torch.nn.functional.dropout1d",
    "torch.nn.functional.dropout2d", "torch.nn.functional.dropout3d",
    "torch.nn.functional.alpha_dropout", "torch.nn.functional.feature_alpha_dropout",
    "torch.nn.functional.gumbel_softmax", "torch.nn.functional.rrelu",
    "torch.nn.init.uniform_", "torch.nn.init.normal_", "torch.nn.init.xavier_uniform_",
    "torch.nn.init.xavier_normal_", "torch.nn.init.kaiming_uniform_",
    "torch.nn.init.kaiming_normal_", "torch.nn.init.trunc_normal_",
    "torch.nn.init.orthogonal_", "torch.nn.init.sparse_"})
TORCH_INIT_MODULES = frozenset({
    "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "Embedding", "EmbeddingBag", "RNN", "LSTM", "GRU",
    "RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention", "Transformer",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerDecoder"})
"""``torch.nn`` modules whose weights start at random."""
TORCH_TENSOR_DRAWS = frozenset({"normal_", "uniform_", "bernoulli_", "random_",
                                "exponential_", "cauchy_", "log_normal_", "geometric_"})
TF_DRAWS = frozenset({"normal", "uniform", "shuffle", "truncated_normal", "categorical",
                      "gamma", "poisson"})
SEEDS = {
    "numpy.random.seed": ("numpy",), "random.seed": ("random",),
    "torch.manual_seed": ("torch",), "torch.random.manual_seed": ("torch",),
    "torch.cuda.manual_seed": ("torch",), "torch.cuda.manual_seed_all": ("torch",),
    "tensorflow.random.set_seed": ("tensorflow",), "tensorflow.set_random_seed": ("tensorflow",),
    "tensorflow.compat.v1.set_random_seed": ("tensorflow",),
}
FAMILIES = ("numpy", "random", "torch", "tensorflow")
FIX = {
    "numpy": "add `np.random.seed(0)` before the first draw, or draw from "
             "`rng = np.random.default_rng(0)`",
    "random": "add `random.seed(0)` before the first draw",
    "torch": "add `torch.manual_seed(0)` before it",
    "tensorflow": "add `tf.random.set_seed(0)` before the first draw",
}
GENERATOR_NAMES = {"numpy": "NumPy's global generator", "random": "Python's `random` module",
                   "torch": "torch", "tensorflow": "TensorFlow"}
_LATE = 1 << 60
"""An offset after every statement of a cell."""


@dataclass(frozen=True)
class Draw:
    """A call that draws random numbers."""

    cell: int
    offset: int
    family: str
    """``numpy`` / ``random`` / ``torch`` / ``tensorflow``, or ``generator`` (no seed given)."""
    call: str
    """The call as written (``np.random.randn``)."""
    deferred: bool
    """Inside a function or class body: it draws when called, not when the cell runs."""


def _has_seed_argument(node: ast.Call) -> bool:
    args = [*node.args, *(k.value for k in node.keywords
                          if k.arg in ("seed", "x", "entropy", "random_state"))]
    return any(not (isinstance(a, ast.Constant) and a.value is None) for a in args)


def _draw_family(flow: CodeFlow, node: ast.Call, local: frozenset[str]) -> str | None:
    """The generator family ``node`` draws from, ``generator`` for a generator made without a
    seed, ``None`` when it draws nothing (or from a seeded generator, or a key); ``local``: the
    names local to the functions around the call."""
    qual = flow.qualified(node.func, local)
    keywords = {k.arg for k in node.keywords}
    if qual is None:
        if isinstance(node.func, ast.Attribute) and node.func.attr in TORCH_TENSOR_DRAWS \
                and "torch" in flow.aliases.values() and "generator" not in keywords:
            return "torch"
        return None
    if qual in UNSEEDED_GENERATORS:
        if qual == "torch.Generator":
            return None  # seeded with .manual_seed(); the draw names it
        return None if _has_seed_argument(node) else "generator"
    if qual.startswith("numpy.random."):
        name = qual[len("numpy.random."):]
        return None if "." in name or name in NUMPY_NOT_DRAWS else "numpy"
    if qual.startswith("random.") and qual[len("random."):] in RANDOM_DRAWS:
        return "random"
    if "generator" in keywords:
        return None
    if qual in TORCH_DRAWS:
        if any(k.arg == "training" and isinstance(k.value, ast.Constant) and not k.value.value
               for k in node.keywords):
            return None
        return "torch"
    if qual.startswith("torch.nn.") and qual[len("torch.nn."):] in TORCH_INIT_MODULES:
        return "torch"
    if qual.startswith("tensorflow.random.") and qual.rsplit(".", 1)[1] in TF_DRAWS:
        return None if "seed" in keywords else "tensorflow"
    if qual.startswith("scipy.stats.") and qual.endswith(".rvs"):
        return None if "random_state" in keywords else "numpy"
    return None


def _seeded_families(flow: CodeFlow, node: ast.Call, local: frozenset[str]
                     ) -> tuple[str, ...]:
    """The families a call seeds (``np.random.seed(0)``, ``seed_everything(0)``, …)."""
    qual = flow.qualified(node.func, local)
    if qual in SEEDS:
        return SEEDS[qual] if _has_seed_argument(node) else ()
    name = qual or (node.func.attr if isinstance(node.func, ast.Attribute) else
                    node.func.id if isinstance(node.func, ast.Name) else "")
    last = name.rsplit(".", 1)[-1].lower()
    if name.startswith(("numpy.random.", "random.", "torch.", "tensorflow.random.")) \
            and last not in ("set_random_seed",):
        return ()
    if "seed" in last and (node.args or node.keywords):
        return FAMILIES  # seed_everything(0), set_seed(0), set_random_seed(0), seed_all(0)
    return ()


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool, frozenset[str]]]:
    """Every node of ``tree`` with whether it lies inside a function or class body (it runs
    when called) and the local names of the functions around it."""
    stack: list[tuple[ast.AST, bool, frozenset[str]]] = [(tree, False, frozenset())]
    while stack:
        node, deferred, local = stack.pop()
        yield node, deferred, local
        if isinstance(node, _FUNCTIONS):
            local = local | function_locals(node)
        inner = deferred or isinstance(node, (*_FUNCTIONS, ast.ClassDef))
        stack.extend((child, inner, local)
                     for child in reversed(list(ast.iter_child_nodes(node))))


@dataclass
class _Randomness:
    draws: dict[int, list[Draw]]
    """Cell → its draws, in source order."""
    seeds: dict[str, list[tuple[int, int]]]
    """Family → ``(cell, offset)`` of every seed, in notebook order."""


def _randomness(flow: CodeFlow) -> _Randomness:
    draws: dict[int, list[Draw]] = {}
    seeds: dict[str, list[tuple[int, int]]] = {}
    for index in sorted(flow.cells):
        cell = flow.cells[index]
        for node, deferred, local in _walk(cell.tree):
            if not isinstance(node, ast.Call):
                continue
            for seeded in _seeded_families(flow, node, local):
                # a seed inside a function counts from where it is defined (when it is called
                # is not followed): this can only hide a finding, never make one
                seeds.setdefault(seeded, []).append((index, cell.offset(node)))
            family = _draw_family(flow, node, local)
            if family is not None:
                draws.setdefault(index, []).append(
                    Draw(index, cell.offset(node), family,
                         cell.snippet(node if family == "generator" else node.func, 50),
                         deferred))
    for family in seeds:
        seeds[family].sort()
    for found in draws.values():
        found.sort(key=lambda d: d.offset)
    return _Randomness(draws, seeds)


def _validating(doc: Document) -> list[Cell]:
    return [c for c in doc.cells if c.cell_type == "code" and c.validates and doc.exported(c)]


def _experiment(cell: Cell, user: Cell) -> str:
    if user.index == cell.index:
        return f"the experiment that validates {', '.join(user.validates)}"
    return f"the experiment in cell {user.index + 1} (it validates {', '.join(user.validates)})"


def check_unseeded(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Validating code (or code it uses) draws random numbers without a fixed seed."""
    validating = _validating(doc)
    if not validating:
        return
    flow = code_flow(doc)
    if not flow.cells:
        return
    users: dict[int, Cell] = {}  # cell → the first experiment that uses it
    for v in validating:  # in notebook order; each cell is explored once (linear)
        if v.index not in flow.cells or v.index in users:
            continue
        users[v.index] = v
        todo = [v.index]
        while todo:
            for k in flow.inputs(todo.pop(), v.index):
                if k not in users:
                    users[k] = v
                    todo.append(k)
    randomness = _randomness(flow)
    for index in sorted(users):
        user = users[index]
        reported: dict[str, list[Draw]] = {}
        for draw in randomness.draws.get(index, ()):
            if draw.family != "generator":
                at = (user.index, _LATE) if draw.deferred else (draw.cell, draw.offset)
                if any(seed < at for seed in randomness.seeds.get(draw.family, ())):
                    continue
            reported.setdefault(draw.family, []).append(draw)
        for family, found in sorted(reported.items(), key=lambda kv: kv[1][0].offset):
            first = found[0]
            more = f" ({len(found) - 1} more like it in this cell)" if len(found) > 1 else ""
            where = _experiment(doc.cells[index], user)
            if family == "generator":
                name = first.call.split("(", 1)[0]
                message = (f"`{first.call}` makes a generator without a seed, so {where} draws "
                           f"different numbers on every run{more}; pass one: `{name}(0)`")
            else:
                message = (f"`{first.call}` draws random numbers but nothing seeds "
                           f"{GENERATOR_NAMES[family]} before it, so {where} changes on every "
                           f"run{more}; {FIX[family]}")
            yield rule.at(doc, message, index, first.offset, user.validates)


_TOOL_LINE = lazy(r"%(?:mech\b|(?:load|reload)_ext\s+mechnb\s*$)")
"""A line of mechnb's own: a ``%mech …`` magic or loading the extension."""


def is_tool_cell(source: str) -> bool:
    """True for a code cell made only of mechnb's own magics (``%load_ext mechnb``, ``%mech
    theorem``, ``%mech check``) and comments: running it again computes nothing the paper's
    outputs depend on, so its execution count says nothing about the run order."""
    lines = [ln.strip() for ln in source.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    return bool(lines) and all(_TOOL_LINE.match(ln) for ln in lines)


def check_run_order(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Code cells were not run top to bottom (mechnb's own magic cells aside)."""
    counted = [(c.index, c.execution_count) for c in doc.cells
               if c.cell_type == "code" and isinstance(c.execution_count, int)
               and not isinstance(c.execution_count, bool) and not is_tool_cell(c.source)]
    if len(counted) < 2:
        return
    messages: dict[int, tuple[str, tuple[str, ...]]] = {}
    top, top_count = counted[0]
    for index, count in counted[1:]:
        if count <= top_count:
            messages[index] = (
                f"cell {index + 1} has execution count {count} but cell {top + 1} above it has "
                f"{top_count}, so the code was not run top to bottom and its outputs may not "
                f"follow from the code above; Restart & Run All, then save", ())
            break
        top, top_count = index, count
    validating = _validating(doc)
    if validating:
        flow = code_flow(doc)
        for v in validating:
            if not isinstance(v.execution_count, int):
                continue
            late = [(k, name) for k, name in flow.inputs(v.index).items()
                    if isinstance(doc.cells[k].execution_count, int)
                    and doc.cells[k].execution_count > v.execution_count]  # type: ignore[operator]
            if not late:
                continue
            k, name = late[0]
            messages[v.index] = (
                f"this experiment (execution count {v.execution_count}) ran before cell {k + 1} "
                f"(count {doc.cells[k].execution_count}), which defines the `{name}` it uses, so "
                f"its outputs may not follow from the code above it; Restart & Run All, then "
                f"save",
                v.validates)
    for index in sorted(messages):
        message, labels = messages[index]
        yield rule.at(doc, message, index, None, labels)


def check_execution_count(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A validating cell with outputs but no execution count."""
    for c in _validating(doc):
        if c.outputs and c.execution_count is None:
            yield rule.at(doc, f"this cell validates {', '.join(c.validates)} and has outputs but "
                               f"no execution count, so they were pasted or kept from another "
                               f"session; run it again (Restart & Run All) and save",
                          c.index, None, c.validates)

