"""The notebook's code read with ``ast``: parsed cells, imported names, and which cells a cell uses.

Shared by the evidence rule (MECH071, ``provenance.py``) and the reproducibility rules
(MECH076–078, ``reproduce.py``). Everything here is best effort and quiet: IPython magics and
``!shell`` lines are masked before parsing, a cell that still does not parse (or is larger than
``MAX_CELL_CHARS``) is simply not read, and nothing raises. Computed once per ``Document``.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from ..lazyre import lazy
from ..memo import SourceMemo

if TYPE_CHECKING:
    from .document import Document

MAX_CELL_CHARS = 100_000
"""Code cells longer than this are not parsed (a generated or pasted blob is not an experiment)."""
MAX_NOTEBOOK_CHARS = 2_000_000
"""Beyond this much code in total, the notebook's code is not read at all (check stays fast)."""

PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit"})
"""Cell magics whose body is still Python (``%%time``); any other ``%%`` cell is not Python."""
_MAGIC_LINE = lazy(r"(?m)^([ \t]*)(?:[%!].*|[\w.]+\?\??[ \t]*|\?.*)$")
_MAGIC_VALUE = lazy(r"(?m)^([ \t]*[\w.,() \t]+=[ \t]*)[%!].*$")
_CELL_MAGIC = lazy(r"\A\s*%%(\w+)")

DEFAULT_ALIASES = {
    "np": "numpy", "plt": "matplotlib.pyplot", "pd": "pandas", "torch": "torch",
    "nn": "torch.nn", "F": "torch.nn.functional", "sns": "seaborn", "jnp": "jax.numpy",
    "tf": "tensorflow", "random": "random", "jax": "jax", "json": "json", "pickle": "pickle",
}
"""What a conventional name means when the notebook uses it without importing it (a kernel
started with a profile that imports them)."""


def mask_magics(source: str) -> str | None:
    """``source`` with IPython syntax turned into Python that keeps every line where it was
    (``%time x = f()`` → ``pass``, ``files = !ls`` → ``files = None``, ``np.array?`` → ``pass``);
    ``None`` for a cell magic whose body is not Python (``%%bash``, ``%%html``)."""
    m = _CELL_MAGIC.match(source)
    if m and m.group(1) not in PYTHON_CELL_MAGICS:
        return None
    if "%" not in source and "!" not in source and "?" not in source:
        return source
    source = _MAGIC_VALUE.sub(r"\1None", source)
    return _MAGIC_LINE.sub(r"\1pass", source)


def parse_code(source: str) -> tuple[ast.Module, str] | None:
    """The cell's syntax tree and the text parsed (magics masked), or ``None`` (too large, not
    Python, or a syntax error)."""
    if len(source) > MAX_CELL_CHARS:
        return None
    masked = mask_magics(source)
    if masked is None or not masked.strip():
        return None
    try:
        return ast.parse(masked), masked
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class CodeCell:
    """One parsed code cell."""

    index: int
    source: str
    tree: ast.Module
    defines: frozenset[str] = frozenset()
    """Names the cell binds at module level (assignments, ``def``, ``class``, imports, loops)."""
    free: frozenset[str] = frozenset()
    """Names the cell reads at module level before binding them itself."""
    free_in_functions: frozenset[str] = frozenset()
    """Names its function and class bodies read from the module (resolved when they run)."""
    assigned: frozenset[str] = frozenset()
    """The names of ``defines`` bound other than by an import."""
    imports: dict[str, str] = field(default_factory=dict)
    """Names it imports → what they name (``np`` → ``numpy``; empty for relative imports)."""
    masked: str | None = None
    """The text that was parsed, when masking magics changed it."""
    _lines: list[int] = field(default_factory=list)

    def offset(self, node: ast.AST) -> int:
        """Character offset of ``node`` in the cell source (ast columns count UTF-8 bytes)."""
        if not self._lines:
            self._lines = [0] + [m.end() for m in re.finditer("\n", self.source)]
        lineno = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        if not 1 <= lineno <= len(self._lines):
            return 0
        start = self._lines[lineno - 1]
        end = self._lines[lineno] if lineno < len(self._lines) else len(self.source)
        line = self.source[start:end]
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))
        return start + min(col, len(line))

    def snippet(self, node: ast.AST, limit: int = 40) -> str:
        """The source text of ``node``, shortened to ``limit`` characters on one line."""
        text = ast.get_source_segment(self.source, node) if self._same_lines(node) else None
        if text is None:
            try:
                text = ast.unparse(node)
            except Exception:  # pragma: no cover - unparse handles every parsed node
                text = "…"
        text = " ".join(text.split())
        return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"

    def _same_lines(self, node: ast.AST) -> bool:
        # on a masked line the parsed text differs from the source: unparse the node instead
        return self.masked is None


@dataclass
class CodeFlow:
    """The notebook's parsed code cells and how they depend on each other."""

    cells: dict[int, CodeCell]
    """Parsed code cells by 0-based index (cells that do not parse are absent)."""
    code_indexes: list[int]
    """Every code cell's index, in notebook order (parsed or not)."""
    aliases: dict[str, str]
    """Name → the module or object it was imported as (``np`` → ``numpy``), notebook-wide."""
    assigned: frozenset[str] = frozenset()
    """Names some cell binds other than by importing them (they shadow an import's meaning)."""
    _definers: dict[str, list[int]] = field(default_factory=dict)

    def definer(self, name: str, before: int, inclusive: bool = False) -> int | None:
        """The last code cell before ``before`` (or at it, when ``inclusive``) binding ``name``."""
        where = self._definers.get(name)
        if not where:
            return None
        k = (bisect_right if inclusive else bisect_left)(where, before) - 1
        return where[k] if k >= 0 else None

    def inputs(self, index: int, when: int | None = None) -> dict[int, str]:
        """Earlier cells whose names cell ``index`` reads → one such name (direct inputs only).
        Its functions read globals when they run: as of cell ``when`` (default: ``index``)."""
        cell = self.cells.get(index)
        if cell is None:
            return {}
        when = index if when is None else when
        out: dict[int, str] = {}
        # name a computed value rather than a module when a cell gives both
        for name in sorted(cell.free, key=lambda n: (n not in self.assigned, n)):
            k = self.definer(name, index)
            if k is not None:
                out.setdefault(k, name)
        for name in sorted(cell.free_in_functions, key=lambda n: (n not in self.assigned, n)):
            k = self.definer(name, when, inclusive=True)
            if k is not None and k != index:
                out.setdefault(k, name)
        return dict(sorted(out.items()))

    def uses(self, index: int) -> list[int]:
        """Cell ``index`` and every earlier cell it uses, directly or through other cells (the
        functions it calls read the globals bound when cell ``index`` runs)."""
        seen = {index}
        todo = [index]
        while todo:
            for k in self.inputs(todo.pop(), index):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        return sorted(seen)

    def qualified(self, node: ast.expr, local: frozenset[str] = frozenset()) -> str | None:
        """``np.random.seed`` → ``numpy.random.seed`` through the notebook's imports (``None``
        when the expression does not start at an imported or conventional name, or at a name
        the notebook also assigns, or at one of the ``local`` names of a function)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.assigned or node.id in local:
            return None
        base = self.aliases.get(node.id) or DEFAULT_ALIASES.get(node.id)
        if base is None:
            return None
        return ".".join([base, *reversed(parts)])


# ---- names a cell binds and reads -------------------------------------------------------
def _target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _bindings(stmt: ast.stmt) -> tuple[set[str], dict[str, str]]:
    """What ``stmt`` binds in its own scope (not inside nested functions or classes): names
    bound by assignments, loops, ``def`` and ``class``; and imported names → what they import."""
    out: set[str] = set()
    imported: dict[str, str] = {}
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            if node is not stmt:
                continue
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    imported[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    imported[top] = top
            continue
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    module = node.module if node.module and not node.level else ""
                    imported[a.asname or a.name] = f"{module}.{a.name}" if module else ""
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # comprehension variables are local to the comprehension (walrus aside: rare)
            stack.extend(g.iter for g in node.generators)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return out, imported


def bound_names(stmt: ast.stmt) -> set[str]:
    """Names ``stmt`` binds in its own scope, imports included."""
    assigned, imported = _bindings(stmt)
    return assigned | set(imported)


def function_locals(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """A function's parameters and the names its body binds (``global`` ones excepted)."""
    args = node.args
    local = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if args.vararg:
        local.add(args.vararg.arg)
    if args.kwarg:
        local.add(args.kwarg.arg)
    body = node.body if isinstance(node.body, list) else [node.body]
    declared_global: set[str] = set()
    for stmt in body:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Global):
                declared_global.update(sub.names)
        if isinstance(stmt, ast.stmt):
            local |= bound_names(stmt)
    return local - declared_global


def _function_free(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Names a function body reads that are neither parameters nor bound in the body."""
    body = node.body if isinstance(node.body, list) else [node.body]
    return {n for stmt in body for n in _loads(stmt)} - function_locals(node)


def _loads(node: ast.AST) -> Iterator[str]:
    """Every name ``node`` reads, including free names of nested functions and lambdas."""
    stack: list[ast.AST] = [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            yield sub.id
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if sub is not node:
                yield from _function_free(sub)
                if not isinstance(sub, ast.Lambda):
                    stack.extend(sub.decorator_list)
                stack.extend(d for d in [*sub.args.defaults, *sub.args.kw_defaults] if d)
                continue
            stack.extend(ast.iter_child_nodes(sub))
        elif isinstance(sub, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            targets = {n for g in sub.generators for n in _target_names(g.target)}
            parts: list[ast.AST] = [g.iter for g in sub.generators]
            parts += [cond for g in sub.generators for cond in g.ifs]
            parts += [sub.key, sub.value] if isinstance(sub, ast.DictComp) else [sub.elt]
            for part in parts:
                yield from (name for name in _loads(part) if name not in targets)
        else:
            stack.extend(ast.iter_child_nodes(sub))


def _scan(cell: CodeCell) -> None:
    """Fill in what ``cell`` binds, imports and reads."""
    bound: set[str] = set()
    assigned: set[str] = set()
    free: set[str] = set()
    in_functions: set[str] = set()
    for stmt in cell.tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_functions |= _function_free(stmt)
            for d in [*stmt.decorator_list, *stmt.args.defaults,
                      *[k for k in stmt.args.kw_defaults if k]]:
                free.update(n for n in _loads(d) if n not in bound)
        elif isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    in_functions |= _function_free(sub)
                else:
                    free.update(n for n in _loads(sub) if n not in bound)
            for d in [*stmt.bases, *stmt.decorator_list]:
                free.update(n for n in _loads(d) if n not in bound)
        else:
            free.update(n for n in _loads(stmt) if n not in bound)
        names, imported = _bindings(stmt)
        assigned |= names
        cell.imports.update(imported)
        bound |= names | set(imported)
    cell.assigned = frozenset(assigned)
    cell.defines = frozenset(bound)
    cell.free = frozenset(free)
    cell.free_in_functions = frozenset(in_functions)


def _parse_and_scan(source: str) -> CodeCell | None:
    parsed = parse_code(source) if source.strip() else None
    if parsed is None:
        return None
    cell = CodeCell(0, source, parsed[0], masked=None if parsed[1] == source else parsed[1])
    _scan(cell)
    return cell


_SCANNED = SourceMemo(_parse_and_scan)
"""Source → its parsed and scanned cell (at index 0): a long-lived process (the Jupyter
server's checks) parses only the cells that changed since its last check. Nothing mutates a
syntax tree once parsed."""


def _scanned(index: int, source: str) -> CodeCell | None:
    """``source`` parsed and scanned as cell ``index``, or ``None`` (not parsable Python)."""
    done = _SCANNED(source)
    return None if done is None else replace(done, index=index, imports=dict(done.imports))


_FLOWS: WeakKeyDictionary[Document, CodeFlow] = WeakKeyDictionary()


def code_flow(doc: Document) -> CodeFlow:
    """The parsed code of ``doc`` (computed once per document)."""
    flow = _FLOWS.get(doc)
    if flow is None:
        flow = _FLOWS[doc] = build_flow(doc)
    return flow


def build_flow(doc: Document) -> CodeFlow:
    """Parse every code cell of ``doc`` and index which cell binds which name."""
    indexes = [c.index for c in doc.cells if c.cell_type == "code"]
    cells: dict[int, CodeCell] = {}
    if sum(len(doc.cells[i].source) for i in indexes) <= MAX_NOTEBOOK_CHARS:
        for i in indexes:
            cell = _scanned(i, doc.cells[i].source)
            if cell is not None:
                cells[i] = cell
    definers: dict[str, list[int]] = {}
    for i, cell in cells.items():
        for name in cell.defines:
            definers.setdefault(name, []).append(i)
    aliases = {name: qual for cell in cells.values() for name, qual in cell.imports.items()
               if qual}
    assigned = frozenset(name for cell in cells.values() for name in cell.assigned)
    return CodeFlow(cells, indexes, aliases, assigned, definers)
