"""Where the values a validating cell shows come from: computed, loaded, or typed in by hand.

One pass over the notebook's code cells in order (``codeflow`` parses them) keeps, for every
name, a ``Val``: ``NONE`` (no numbers: strings without figures, ``None``, empty containers),
``GRID`` (a fixed sequence made from literals: ``range``, ``np.arange``, ``np.linspace``,
``np.zeros``), ``LIT`` (numbers written in the notebook, or containers and literal constructors
of them) or ``COMP`` (anything else: a call into a library, loading, randomness, arithmetic on a
grid or on computed values, names the notebook never binds). Calls into functions defined in
the notebook are followed (a helper that only returns literals is still literals), and so are
the plots and prints they make. While a validating cell runs, every *sink* it reaches — a plot
(``plt.plot``, ``ax.bar``, ``df.plot``, ``sns.lineplot`` …), ``print``/``display``, a table
(``.to_latex()``…) or the cell's last expression — records the value it shows.

The judgement is conservative: anything not understood is ``COMP``; a cell is hand-typed only
when it computes nothing (no call that is not a literal constructor, a grid maker or plotting),
at least one sink shows typed-in numbers and no sink shows a computed value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast
from weakref import WeakKeyDictionary

from .codeflow import CodeCell, CodeFlow, code_flow

if TYPE_CHECKING:
    from .document import Document

NONE, GRID, LIT, COMP, MODULE, FUNC, PLOT = range(7)
_DATA = (NONE, GRID, LIT, COMP)
BUDGET = 20_000
"""Nodes evaluated per cell, plus ``BUDGET_PER_CHAR`` per character of its source, before giving
up on it (its names become computed): following calls can multiply the work, never beyond."""
BUDGET_PER_CHAR = 2
MAX_DEPTH = 12
"""Calls into notebook functions followed this deep (recursion beyond is computed)."""

_NUMBER_TEXT = re.compile(r"(?<![\d.])\d*\.\d+(?![\d.])|\d+(?:\.\d+)?\s*%|"
                          r"\d+(?:\.\d+)?\s*[x×](?!\w)")
"""A figure in a string that reads as a result: ``0.98``, ``98%``, ``3x`` (not ``epoch 10``)."""

CONSTRUCTORS = frozenset({
    "list", "tuple", "dict", "set", "frozenset", "float", "int", "complex", "str", "bool",
    "sorted", "reversed", "zip", "enumerate", "round", "abs", "min", "max", "sum", "len",
    "repr", "format", "collections.OrderedDict",
    "numpy.array", "numpy.asarray", "numpy.asanyarray", "numpy.stack", "numpy.vstack",
    "numpy.hstack", "numpy.column_stack", "numpy.concatenate", "numpy.float32",
    "numpy.float64", "numpy.int64", "numpy.int32",
    "pandas.DataFrame", "pandas.Series", "pandas.Index", "pandas.DataFrame.from_dict",
    "pandas.DataFrame.from_records", "pandas.concat",
    "torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor",
    "torch.stack", "torch.cat",
    "jax.numpy.array", "jax.numpy.asarray", "tensorflow.constant",
    "IPython.display.Markdown", "IPython.display.Latex", "IPython.display.HTML",
    "IPython.display.Math", "IPython.display.Pretty", "Markdown", "Latex", "HTML", "Math",
})
"""Calls that only arrange the values given to them: literals in, literals out."""
GRID_MAKERS = frozenset({
    "range", "numpy.arange", "numpy.linspace", "numpy.logspace", "numpy.geomspace",
    "numpy.zeros", "numpy.ones", "numpy.full", "numpy.empty", "numpy.eye", "numpy.identity",
    "numpy.zeros_like", "numpy.ones_like", "numpy.full_like", "torch.arange",
    "torch.linspace", "torch.zeros", "torch.ones", "torch.full", "torch.eye",
    "jax.numpy.arange", "jax.numpy.linspace",
})
"""Calls that make a fixed sequence (an axis, a grid): no measurement in it, no typed values."""
NEUTRAL_PREFIXES = ("warnings.", "logging.", "numpy.set_printoptions", "pandas.set_option",
                    "pandas.options", "IPython.display.clear_output",
                    "IPython.display.set_matplotlib_formats", "matplotlib_inline.",
                    "builtins.isinstance", "isinstance", "type", "getattr", "hasattr")
"""Calls that configure the session and compute nothing."""
PRINT_SINKS = frozenset({"print", "display", "IPython.display.display", "pprint.pprint",
                         "pprint", "rich.print"})
PLOT_MODULES = ("matplotlib", "seaborn", "plotly", "mpl_toolkits")
PLOT_SINKS = frozenset({
    "plot", "scatter", "bar", "barh", "imshow", "errorbar", "hist", "hist2d", "hexbin",
    "fill_between", "fill_betweenx", "step", "stem", "pie", "boxplot", "violinplot", "matshow",
    "pcolormesh", "pcolor", "contour", "contourf", "semilogx", "semilogy", "loglog", "heatmap",
    "lineplot", "barplot", "scatterplot", "histplot", "kdeplot", "lmplot", "relplot",
    "catplot", "pointplot", "stripplot", "swarmplot", "boxenplot", "plot_surface",
    "plot_wireframe", "quiver", "stackplot", "table", "area", "line", "spy", "stairs",
    "ecdfplot", "clustermap", "regplot", "vlines", "hlines",
})
"""Calls (functions of the plotting modules, or methods) that put data on a figure."""
PLOT_DATA_KEYWORDS = frozenset({"x", "y", "data", "height", "yerr", "xerr", "values", "X", "Y",
                                "Z", "C", "cellText", "y1", "y2", "left", "bottom"})
TABLE_SINKS = frozenset({"to_latex", "to_markdown", "to_html", "to_string"})
"""Methods that turn a table into text for the paper."""
MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault",
                      "appendleft", "extendleft", "__setitem__"})
PURE_METHODS = frozenset({
    "copy", "tolist", "reshape", "flatten", "ravel", "astype", "mean", "sum", "max", "min",
    "round", "transpose", "squeeze", "unsqueeze", "item", "items", "keys", "values", "get",
    "format", "join", "split", "strip", "upper", "lower", "title", "replace", "to_numpy",
    "numpy", "float", "int", "T", "set_index", "reset_index", "rename", "sort_values",
    "sort_index", "head", "tail", "style", "round_", "cpu", "detach", "clone", "view",
    "pivot", "melt", "ljust", "rjust", "center", "zfill",
})
"""Methods that rearrange a literal value without computing from data."""


@dataclass(frozen=True, slots=True)
class Val:
    """What is known about a value: its kind and, for typed-in values, where they were typed."""

    kind: int
    origin: tuple[CodeCell, ast.AST] | None = None
    """``LIT``: the cell and node of the first literal it comes from."""
    qual: str | None = None
    """``MODULE``: the imported module or object (``numpy.random``)."""
    func: tuple[CodeCell, ast.AST] | None = None
    """``FUNC``: the cell and ``def``/``lambda`` node of a notebook function."""


V_NONE, V_GRID, V_COMP, V_PLOT = Val(NONE), Val(GRID), Val(COMP), Val(PLOT)


def _data(v: Val) -> int:
    return v.kind if v.kind in _DATA else COMP


def join(vals: Iterable[Val]) -> Val:
    """A value holding all of ``vals`` (a container, a constructor's result)."""
    kind, origin = NONE, None
    for v in vals:
        k = _data(v)
        if k > kind:
            kind = k
        if origin is None and k == LIT:
            origin = v.origin
    if kind == COMP:
        return V_COMP
    return Val(kind, origin if kind == LIT else None)


def arith(vals: Iterable[Val]) -> Val:
    """A value computed from all of ``vals``: arithmetic on literals stays literal, on a grid
    or on computed values it is a computation."""
    vals = list(vals)
    if any(_data(v) == GRID for v in vals):
        return V_COMP
    return join(vals)


def merge(old: Val | None, new: Val) -> Val:
    """The value of a name assigned in a branch or loop: either one."""
    if old is None or old == new:
        return new
    if old.kind == PLOT and new.kind == PLOT:
        return V_PLOT
    return join((old, new))


@dataclass
class Sink:
    """A place where a validating cell shows data."""

    verb: str
    """``plots`` / ``prints`` / ``tabulates`` / ``shows``."""
    offset: int
    """Offset of the statement in the validating cell."""
    value: Val


@dataclass
class HandTyped:
    """A validating cell whose shown values are all typed in."""

    cell: int
    offset: int
    """Where to report: the literal when it is in the cell, else the statement showing it."""
    verb: str
    literal: str
    """The literal, shortened (``[0.1, 0.5, 0.9]``)."""
    literal_cell: int
    literal_line: int


_TRY: tuple[type[ast.stmt], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))


class _OutOfBudget(Exception):
    pass


class _Frame:
    __slots__ = ("globals", "names", "returns")

    def __init__(self) -> None:
        self.names: dict[str, Val] = {}
        self.globals: set[str] = set()
        self.returns: list[Val] = []


class Tracer:
    """Runs the notebook's code abstractly, one cell after another."""

    def __init__(self, flow: CodeFlow) -> None:
        self.flow = flow
        self.module = _Frame()
        self.frames: list[_Frame] = [self.module]
        self.scopes: list[dict[str, Val]] = []
        """Comprehension variables, innermost last."""
        self.cell: CodeCell | None = None
        self.steps = 0
        self.budget = BUDGET
        self.sinks: list[Sink] | None = None
        self.computes = False
        self.site = 0
        self.active: list[ast.AST] = []
        self.weak = 0

    # ---- cells ------------------------------------------------------------------------------
    def run_cell(self, cell: CodeCell, collect: bool) -> tuple[list[Sink], bool] | None:
        """Run one cell; with ``collect``, return its sinks and whether it computes (``None``
        when the cell is too large to follow)."""
        self.cell, self.steps, self.weak = cell, 0, 0
        self.budget = BUDGET + BUDGET_PER_CHAR * len(cell.source)
        self.frames, self.scopes, self.active = [self.module], [], []
        self.sinks = [] if collect else None
        self.computes = False
        body = cell.tree.body
        shown = not cell.source.rstrip().endswith(";")  # `x;` shows nothing
        try:
            for k, stmt in enumerate(body):
                self.site = cell.offset(stmt)
                if collect and shown and k == len(body) - 1 and isinstance(stmt, ast.Expr):
                    assert self.sinks is not None
                    before = len(self.sinks)
                    value = self.expr(stmt.value)
                    if len(self.sinks) == before and value.kind in (GRID, LIT, COMP):
                        self.sinks.append(Sink("shows", self.site, value))
                else:
                    self.stmt(stmt)
        except (_OutOfBudget, RecursionError):
            for name in cell.defines:
                self.module.names[name] = V_COMP
            return None
        return (self.sinks or [], self.computes) if collect else None

    def unknown_cell(self, source: str) -> None:
        """A code cell that could not be read: whatever it assigns is computed."""
        for m in re.finditer(r"(?m)^[ \t]*([A-Za-z_]\w*)(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]*"
                             r"(?:=(?!=)|\+=|-=|\*=|/=)", source):
            for name in re.findall(r"[A-Za-z_]\w*", m.group(0).split("=")[0]):
                self.module.names[name] = V_COMP
        for m in re.finditer(r"(?m)^[ \t]*(?:def|class)[ \t]+([A-Za-z_]\w*)", source):
            self.module.names[m.group(1)] = V_COMP

    # ---- names --------------------------------------------------------------------------
    def lookup(self, name: str) -> Val | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        frame = self.frames[-1]
        if name in frame.names and name not in frame.globals:
            return frame.names[name]
        return self.module.names.get(name)

    def bind(self, name: str, value: Val) -> None:
        if self.scopes and name in self.scopes[-1]:
            self.scopes[-1][name] = value
            return
        frame = self.frames[-1]
        if name in frame.globals:
            frame = self.module
        if self.weak:
            value = merge(frame.names.get(name), value)
        frame.names[name] = value

    def mutate(self, target: ast.expr, value: Val) -> None:
        """``x[k] = v``, ``x.append(v)``, ``x.attr = v``: ``x`` now also holds ``value``."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Starred)):
            root = root.value
        if not isinstance(root, ast.Name):
            return
        old = self.lookup(root.id)
        if old is None or old.kind not in _DATA:
            return  # an axes, a module, a function: not data
        frame = self.frames[-1]
        if root.id not in frame.names or root.id in frame.globals:
            frame = self.module
        frame.names[root.id] = join((old, value))

    def assign(self, target: ast.expr, value: Val, node: ast.expr | None = None) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(target.elts) \
                    and not any(isinstance(e, ast.Starred) for e in node.elts):
                for t, n in zip(target.elts, node.elts, strict=True):
                    self.assign(t, self.expr(n), n)
                return
            for t in target.elts:
                self.assign(t, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            self.mutate(target, value)

    # ---- statements -----------------------------------------------------------------------
    def block(self, stmts: Sequence[ast.stmt], weak: bool = False) -> None:
        self.weak += weak
        try:
            for stmt in stmts:
                self.stmt(stmt)
        finally:
            self.weak -= weak

    def stmt(self, node: ast.stmt) -> None:
        self.tick()
        if isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value, node.value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value))
        elif isinstance(node, ast.AugAssign):
            value = self.expr(node.value)
            if isinstance(node.target, ast.Name):
                self.bind(node.target.id, arith((self.expr(node.target), value)))
            else:
                self.mutate(node.target, arith((value, V_NONE)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert self.cell is not None
            self.bind(node.name, Val(FUNC, func=(self.cell, node)))
        elif isinstance(node, ast.ClassDef):
            self.bind(node.name, V_COMP)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self.bind(a.asname, Val(MODULE, qual=a.name))
                else:
                    top = a.name.split(".")[0]
                    self.bind(top, Val(MODULE, qual=top))
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    qual = f"{node.module}.{a.name}" if node.module and not node.level else None
                    self.bind(a.asname or a.name, Val(MODULE, qual=qual) if qual else V_COMP)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            it = self.expr(node.iter)
            self.weak += 1
            try:
                for _ in range(2):  # twice: values carried from one iteration to the next
                    self.assign(node.target, it)
                    self.block(node.body)
                self.block(node.orelse)
            finally:
                self.weak -= 1
        elif isinstance(node, ast.While):
            self.expr(node.test)
            self.block(node.body, True)
            self.block(node.body, True)
            self.block(node.orelse, True)
        elif isinstance(node, ast.If):
            self.expr(node.test)
            self.block(node.body, True)
            self.block(node.orelse, True)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.block(node.body)
        elif isinstance(node, _TRY):
            tried = cast(ast.Try, node)  # TryStar (``except*``) has the same fields
            self.block(tried.body)
            for handler in tried.handlers:
                if handler.name:
                    self.bind(handler.name, V_COMP)
                self.block(handler.body, True)
            self.block(tried.orelse, True)
            self.block(tried.finalbody)
        elif isinstance(node, ast.Return):
            self.frames[-1].returns.append(self.expr(node.value) if node.value else V_NONE)
        elif isinstance(node, ast.Global):
            self.frames[-1].globals.update(node.names)
        elif isinstance(node, ast.Match):
            self.expr(node.subject)
            for case in node.cases:
                self.block(case.body, True)

    # ---- expressions ----------------------------------------------------------------------
    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise _OutOfBudget

    def literal(self, node: ast.AST) -> Val:
        assert self.cell is not None
        return Val(LIT, (self.cell, node))

    def expr(self, node: ast.expr) -> Val:
        self.tick()
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or value is None or value is Ellipsis:
                return V_NONE
            if isinstance(value, (int, float, complex)):
                return self.literal(node)
            if isinstance(value, str) and _NUMBER_TEXT.search(value):
                return self.literal(node)
            return V_NONE
        if isinstance(node, ast.Name):
            found = self.lookup(node.id)
            if found is not None:
                return found
            qual = self.flow.qualified(node)
            return Val(MODULE, qual=qual) if qual else V_COMP
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value)
            if base.kind == MODULE:
                return Val(MODULE, qual=f"{base.qual}.{node.attr}")
            if base.kind == FUNC:
                return V_COMP
            return base
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value)
            index = self.expr(node.slice)
            if base.kind in (MODULE, FUNC):
                return V_COMP
            return V_COMP if index.kind == COMP and base.kind != PLOT else base
        if isinstance(node, ast.Slice):
            return join(self.expr(p) for p in (node.lower, node.upper, node.step) if p)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return self.container(node, [self.expr(e) for e in node.elts])
        if isinstance(node, ast.Dict):
            parts = [self.expr(k) for k in node.keys if k is not None]
            return self.container(node, parts + [self.expr(v) for v in node.values])
        if isinstance(node, ast.BinOp):
            return arith((self.expr(node.left), self.expr(node.right)))
        if isinstance(node, ast.UnaryOp):
            return arith((self.expr(node.operand),))
        if isinstance(node, ast.BoolOp):
            return arith([self.expr(v) for v in node.values])
        if isinstance(node, ast.Compare):
            return arith([self.expr(node.left), *(self.expr(c) for c in node.comparators)])
        if isinstance(node, ast.IfExp):
            return arith((self.expr(node.test), self.expr(node.body), self.expr(node.orelse)))
        if isinstance(node, ast.JoinedStr):
            return self.container(node, [self.expr(v) for v in node.values])
        if isinstance(node, ast.FormattedValue):
            return self.expr(node.value)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node)
        if isinstance(node, ast.Lambda):
            assert self.cell is not None
            return Val(FUNC, func=(self.cell, node))
        if isinstance(node, ast.NamedExpr):
            named = self.expr(node.value)
            self.assign(node.target, named)
            return named
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.Starred, ast.Await)):
            return self.expr(node.value)
        return V_COMP

    def container(self, node: ast.AST, parts: list[Val]) -> Val:
        out = join(parts)
        return self.literal(node) if out.kind == LIT else out

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
                      ) -> Val:
        scope: dict[str, Val] = {}
        self.scopes.append(scope)
        try:
            sources: list[Val] = []
            for gen in node.generators:
                it = self.expr(gen.iter)
                if it.kind != GRID:
                    sources.append(it)
                for name in _names(gen.target):
                    scope[name] = it
                for cond in gen.ifs:
                    if self.expr(cond).kind == COMP:
                        sources.append(V_COMP)
            if isinstance(node, ast.DictComp):
                sources += [self.expr(node.key), self.expr(node.value)]
            else:
                sources.append(self.expr(node.elt))
        finally:
            self.scopes.pop()
        return join(sources)

    # ---- calls ----------------------------------------------------------------------------
    def call(self, node: ast.Call) -> Val:
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value)
            if receiver.kind == MODULE:
                return self.library(f"{receiver.qual}.{func.attr}", node, args, kwargs)
            if receiver.kind == PLOT:
                if func.attr in PLOT_SINKS:
                    self.sink("plots", self.plotted(args, kwargs, None))
                return V_PLOT
            if receiver.kind == FUNC:
                return self.computed()
            return self.method(func, receiver, args, kwargs)
        target = self.expr(func)
        if target.kind == FUNC:
            return self.call_function(target, node, args, kwargs)
        if target.kind == MODULE and target.qual:
            return self.library(target.qual, node, args, kwargs)
        if isinstance(func, ast.Name) and self.lookup(func.id) is None:
            return self.library(func.id, node, args, kwargs)  # a builtin: print, range, …
        return self.computed()

    def computed(self) -> Val:
        self.computes = True
        return V_COMP

    def sink(self, verb: str, value: Val) -> None:
        if self.sinks is not None and value.kind in (GRID, LIT, COMP):
            self.sinks.append(Sink(verb, self.site, value))

    @staticmethod
    def plotted(args: list[Val], kwargs: dict[str | None, Val], receiver: Val | None) -> Val:
        data = join([*args, *(v for k, v in kwargs.items() if k in PLOT_DATA_KEYWORDS)])
        if data.kind == NONE and receiver is not None:
            return receiver
        return data

    def library(self, qual: str, node: ast.Call, args: list[Val],
                kwargs: dict[str | None, Val]) -> Val:
        name = qual[9:] if qual.startswith("builtins.") else qual
        everything = [*args, *kwargs.values()]
        if name in PRINT_SINKS:
            self.sink("prints", join(args))
            return V_NONE
        if name.startswith(PLOT_MODULES):
            if name.rsplit(".", 1)[-1] in PLOT_SINKS:
                self.sink("plots", self.plotted(args, kwargs, None))
            return V_PLOT
        if name in CONSTRUCTORS:
            return join(everything)
        if name in GRID_MAKERS:
            made = join(everything)
            return V_GRID if made.kind != COMP else self.computed()
        if name.startswith(NEUTRAL_PREFIXES):
            return V_NONE
        return self.computed()

    def method(self, func: ast.Attribute, receiver: Val, args: list[Val],
               kwargs: dict[str | None, Val]) -> Val:
        attr = func.attr
        if attr in PLOT_SINKS:
            self.sink("plots", self.plotted(args, kwargs, receiver))
            return V_PLOT
        if attr in TABLE_SINKS:
            self.sink("tabulates", receiver)
            return receiver
        if attr in MUTATORS:
            self.mutate(func.value, join([*args, *kwargs.values()]))
            return V_NONE
        if attr in PURE_METHODS and receiver.kind in (NONE, GRID, LIT):
            return join([receiver, *args, *kwargs.values()])
        return self.computed()

    def call_function(self, target: Val, node: ast.Call, args: list[Val],
                      kwargs: dict[str | None, Val]) -> Val:
        assert target.func is not None
        cell, fnode = target.func
        if len(self.active) >= MAX_DEPTH or fnode in self.active:
            return self.computed()
        assert isinstance(fnode, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        frame = _Frame()
        params = fnode.args
        positional = [*params.posonlyargs, *params.args]
        saved_cell, saved_scopes = self.cell, self.scopes
        self.cell, self.scopes = cell, []
        self.frames.append(frame)
        self.active.append(fnode)
        weak, self.weak = self.weak, 0
        try:
            defaults = dict(zip([p.arg for p in positional[len(positional)
                                                           - len(params.defaults):]],
                                params.defaults, strict=True))
            defaults.update({p.arg: d for p, d in zip(params.kwonlyargs, params.kw_defaults,
                                                      strict=True) if d is not None})
            for k, p in enumerate(positional):
                if k < len(args):
                    frame.names[p.arg] = args[k]
                elif p.arg in kwargs:
                    frame.names[p.arg] = kwargs[p.arg]
                elif p.arg in defaults:
                    frame.names[p.arg] = self.expr(defaults[p.arg])
                else:
                    frame.names[p.arg] = V_NONE
            for p in params.kwonlyargs:
                frame.names[p.arg] = kwargs[p.arg] if p.arg in kwargs else (
                    self.expr(defaults[p.arg]) if p.arg in defaults else V_NONE)
            if params.vararg:
                frame.names[params.vararg.arg] = join(args[len(positional):])
            if params.kwarg:
                frame.names[params.kwarg.arg] = join(kwargs.values())
            if isinstance(fnode, ast.Lambda):
                return self.expr(fnode.body)
            self.block(fnode.body)
            if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fnode)):
                return self.computed()
            return join(frame.returns) if frame.returns else V_NONE
        finally:
            self.weak = weak
            self.active.pop()
            self.frames.pop()
            self.cell, self.scopes = saved_cell, saved_scopes


def _names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


_CACHE: WeakKeyDictionary[Document, dict[int, HandTyped]] = WeakKeyDictionary()


def hand_typed(doc: Document) -> dict[int, HandTyped]:
    """Validating code cells whose shown values are all typed in (computed once per document)."""
    found = _CACHE.get(doc)
    if found is None:
        found = _CACHE[doc] = _trace(doc)
    return found


def _trace(doc: Document) -> dict[int, HandTyped]:
    validating = {c.index for c in doc.cells
                  if c.cell_type == "code" and c.validates and doc.exported(c)}
    if not validating:
        return {}
    flow = code_flow(doc)
    tracer = Tracer(flow)
    out: dict[int, HandTyped] = {}
    last = max(validating)
    for index in flow.code_indexes:
        if index > last:
            break
        cell = flow.cells.get(index)
        if cell is None:
            tracer.unknown_cell(doc.cells[index].source)
            continue
        result = tracer.run_cell(cell, index in validating)
        if result is None:
            continue
        sinks, computes = result
        shown = [s for s in sinks if s.value.kind in (GRID, LIT, COMP)]
        if computes or not shown or any(s.value.kind == COMP for s in shown):
            continue
        typed = next((s for s in shown if s.value.kind == LIT and s.value.origin), None)
        if typed is None or typed.value.origin is None:
            continue
        where, node = typed.value.origin
        at = where.offset(node)
        line = where.source.count("\n", 0, at) + 1
        out[index] = HandTyped(index, at if where.index == index else typed.offset, typed.verb,
                               where.snippet(node), where.index, line)
    return out


def describe(found: HandTyped) -> str:
    """``the literal `[0.1, 0.5]` typed at line 2`` (or ``… in cell 4, line 2``)."""
    where = (f"at line {found.literal_line}" if found.literal_cell == found.cell
             else f"in cell {found.literal_cell + 1}, line {found.literal_line}")
    return f"the literal `{found.literal}` typed {where}"

