"""The ``%mech`` line magic: parse arguments, call library functions, hand cells to insertion.

Only light modules are imported here, so ``%load_ext mechnb`` stays fast; templates, the checker,
the exporter and the phrase panel load on first use.
"""

from __future__ import annotations

import argparse
import importlib
import shlex
from collections.abc import Callable
from typing import Any, NoReturn

from ..errors import MechnbError, UsageError
from .context import notebook_lang

# Subcommands implemented in their own packages: name -> "module:function(shell, argv)".
DELEGATED: dict[str, str] = {
    "check": "mechnb.checker.magic:mech_check",
    "export": "mechnb.exporter.magic:mech_export",
    "phrases": "mechnb.phrases.magic:mech_phrases",
    "moves": "mechnb.moves.magic:mech_moves",
}

USAGE = """\
%mech <role> [--label L] [--title T] [--lang en|zh] [--kind K]   insert the template for a role
%mech lens --kind <lens>         a lens cell from the catalog, with its closing experiment
%mech new <expressivity|dynamics|failure> [--variant V] [--lang en|zh] scaffold a paper
%mech validate <label> [--kind K]  an experiment that validates <label>; K: controlled, real-model,
                                 intervention, ablation, construction, localize, seeds, baseline
%mech figures [--columns 1|2]    matplotlib figures in the paper's fonts, vector in the PDF
%mech list [--lang en|zh]        the roles and what each is for
%mech check [NOTEBOOK]           closing-loop checks on this notebook (last saved version)
%mech phrases [QUERY]            the phrase-lookup panel
%mech moves [NOTEBOOK]           the abstract's moves, sentence by sentence (last saved version)
%mech export [DIR] [--pdf]       export this notebook to LaTeX (and PDF)
%mech help                       this text"""


class _Parser(argparse.ArgumentParser):
    """argparse that raises ``UsageError`` instead of exiting the kernel."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}\n\n{USAGE}")


def _parser(prog: str, positional: str | None = None) -> _Parser:
    parser = _Parser(prog=prog, add_help=False)
    if positional:
        parser.add_argument(positional)
    parser.add_argument("--lang", choices=("en", "zh"))
    return parser


def _insert(shell: Any, cells: list[Any]) -> Any:
    from .insertion import insert_cells

    result = insert_cells(cells, shell)
    if result.method == "frontend":
        return Inserted(result.cells)
    return None


class Inserted:
    """A one-line confirmation shown after the extension inserted cells."""

    def __init__(self, cells: Any) -> None:
        self.cells = cells

    def __repr__(self) -> str:
        names = []
        for cell in self.cells:
            mech = cell.metadata.get("mechnb", {})
            names.append(mech.get("role", cell.cell_type) + (
                f" ({mech['label']})" if mech.get("label") else ""))
        return (f"mechnb: {len(self.cells)} cell(s) inserted below: {', '.join(names)} "
                f"(running this cell again does not duplicate them)")


class LensInserted:
    """``%mech lens --kind``: the insertion's confirmation and what went into the .bib."""

    def __init__(self, inserted: Any, bib: Any) -> None:
        self.inserted = inserted
        self.bib = bib

    def __repr__(self) -> str:
        return "\n".join(repr(x) for x in (self.inserted, self.bib) if x is not None)


def mech_role(shell: Any, role: str, argv: list[str]) -> Any:
    """``%mech <role> …``: the role's template cells."""
    from ..templates import role_cells

    parser = _parser(f"%mech {role}")
    parser.add_argument("--label")
    parser.add_argument("--title")
    parser.add_argument("--kind")
    args = parser.parse_args(argv)
    lang = args.lang or notebook_lang(shell)
    if role == "lens" and args.kind:
        from ..phrases.lenscell import get_lens, lens_insertion, unknown_lens_message
        from ..templates import variants

        if args.kind not in variants("lens"):
            if get_lens(args.kind) is None:
                raise UsageError(unknown_lens_message(args.kind, "%mech lens --kind") +
                                 f"; the template variants are {', '.join(variants('lens'))}")
            done = lens_insertion(shell, args.kind, lang=lang, label=args.label,
                                  title=args.title)
            return LensInserted(_insert(shell, done.cells), done.bib)
    cells = role_cells(role, lang=lang, label=args.label, title=args.title, kind=args.kind)
    return _insert(shell, cells)


def mech_new(shell: Any, argv: list[str]) -> Any:
    """``%mech new <paper-type>``: the whole skeleton of a paper."""
    from ..templates import scaffold_cells

    parser = _parser("%mech new", "paper_type")  # the type is checked there
    parser.add_argument("--variant")
    args = parser.parse_args(argv)
    return _insert(shell, scaffold_cells(args.paper_type, lang=args.lang or notebook_lang(shell),
                                         variant=args.variant))


def mech_validate(shell: Any, argv: list[str]) -> Any:
    """``%mech validate <label> [--kind K]``: an experiment that declares what it validates."""
    from ..templates import DEFAULT_VARIANT, validation_cells, variants

    parser = _parser("%mech validate", "label")
    parser.add_argument("--kind", default="controlled",
                        choices=[v for v in variants("experiment") if v != DEFAULT_VARIANT])
    args = parser.parse_args(argv)
    return _insert(shell, validation_cells(args.label, kind=args.kind,
                                           lang=args.lang or notebook_lang(shell)))


class RoleTable:
    """``%mech list``: the roles, their group and purpose, as HTML and text."""

    def __init__(self, lang: str) -> None:
        from ..roles import registry

        self.rows = [(r.group, r.name, r.purpose(lang)) for r in registry().values()]

    def _repr_html_(self) -> str:
        from html import escape

        body = "".join(f"<tr><td>{escape(g)}</td><td><code>{escape(n)}</code></td>"
                       f"<td style='text-align:left'>{escape(p)}</td></tr>"
                       for g, n, p in self.rows)
        return ("<table><thead><tr><th>group</th><th>role</th><th>what it is for</th></tr>"
                f"</thead><tbody>{body}</tbody></table>")

    def __repr__(self) -> str:
        width = max(len(n) for _, n, _ in self.rows)
        return "\n".join(f"{g:<10} {n:<{width}}  {p}" for g, n, p in self.rows)


class HelpText:
    """``%mech help``."""

    def __repr__(self) -> str:
        return USAGE


def mech_figures(shell: Any, argv: list[str]) -> Any:
    """``%mech figures [--columns 1|2] [--lang en|zh]``: the paper's figure style."""
    from ..figures import apply
    from .context import notebook_lang

    parser = _parser("%mech figures")
    parser.add_argument("--columns", type=int, choices=(1, 2), default=1)
    args = parser.parse_args(argv)
    return apply(args.lang or notebook_lang(shell), args.columns)


def mech_list(shell: Any, argv: list[str]) -> Any:
    """``%mech list``."""
    args = _parser("%mech list").parse_args(argv)
    return RoleTable(args.lang or notebook_lang(shell))


def _delegate(target: str) -> Callable[[Any, list[str]], Any]:
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


SUBCOMMANDS: dict[str, Callable[[Any, list[str]], Any]] = {
    "new": mech_new,
    "validate": mech_validate,
    "list": mech_list,
    "figures": mech_figures,
    "help": lambda shell, argv: HelpText(),
}


def strip_comment(line: str) -> str:
    """``line`` without a trailing ``# comment``, as a shell reads it: a ``#`` that starts a
    word, outside quotes (``--label thm:#1`` and ``--title "A # B"`` keep theirs). IPython
    hands a line magic its comment as arguments."""
    quote = ""
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1  # an escaped character inside double quotes
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
        i += 1
    return line


def run_mech(shell: Any, line: str) -> Any:
    """Run one ``%mech`` line; raises ``MechnbError`` for bad input."""
    from ..roles import get_role, role_names, suggest_role

    try:
        argv = shlex.split(strip_comment(line))
    except ValueError as exc:
        raise UsageError(f"cannot parse '%mech {line}': {exc}") from None
    if not argv:
        return HelpText()
    command, rest = argv[0], argv[1:]
    if command in SUBCOMMANDS:
        return SUBCOMMANDS[command](shell, rest)
    if command in DELEGATED:
        return _delegate(DELEGATED[command])(shell, rest)
    if get_role(command) is not None:
        return mech_role(shell, command, rest)
    hint = suggest_role(command)
    if hint is None:
        import difflib

        close = difflib.get_close_matches(command, [*SUBCOMMANDS, *DELEGATED], n=1)
        hint = close[0] if close else None
    raise UsageError(
        f"'{command}' is neither a role nor a %mech command"
        + (f"; did you mean '{hint}'?" if hint else "")
        + f"\nRoles: {', '.join(role_names())}\n\n{USAGE}")


def mech(line: str) -> Any:
    """The ``%mech`` magic (see ``%mech help``)."""
    from IPython import get_ipython
    from IPython.core.error import UsageError as IPythonUsageError

    shell = get_ipython()
    try:
        result = run_mech(shell, line)
    except MechnbError as exc:
        # IPython shows UsageError as a short message, without a traceback.
        raise IPythonUsageError(str(exc)) from None
    # Shown here, not returned: IPython displays only a cell's last expression, and the
    # Quickstart runs `%mech check` and `%mech phrases` in the middle of one cell.
    if result is not None:
        from IPython.display import display

        display(result)  # type: ignore[no-untyped-call]
    return None


def register(shell: Any) -> None:
    """Register ``%mech`` with ``shell`` and let the frontend bridge announce itself."""
    shell.register_magic_function(mech, "line", "mech")
    _bridge_hook("on_load", shell)


def unregister(shell: Any) -> None:
    """Remove ``%mech`` and close the frontend bridge."""
    shell.magics_manager.magics["line"].pop("mech", None)
    _bridge_hook("on_unload", shell)


def _bridge_hook(name: str, shell: Any) -> None:
    """Tell the frontend bridge (when this build has one) that the extension (un)loaded."""
    try:
        from . import bridge as _bridge
    except ImportError:
        return
    hook = getattr(_bridge, name, None)
    if hook is not None:
        hook(shell)
