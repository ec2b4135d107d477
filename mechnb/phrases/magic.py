"""``%mech phrases [QUERY] [--function F] [--lang en|zh]``: open the phrase-lookup panel.

With the JupyterLab / Notebook 7 extension the panel opens in the right side bar; elsewhere the
panel widget is returned and shown inline under the cell.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from ..errors import UsageError
from ..kernel.context import notebook_lang

USAGE = "%mech phrases [QUERY] [--function F] [--lang en|zh] [--inline]"
SIDEBAR_TITLE = "Phrases"


class _Parser(argparse.ArgumentParser):
    """argparse that raises ``UsageError`` instead of exiting the kernel."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"%mech phrases: {message}\nusage: {USAGE}")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The magic's arguments (the query may be several words)."""
    parser = _Parser(prog="%mech phrases", add_help=False)
    parser.add_argument("query", nargs="*")
    parser.add_argument("--function", "-f")
    parser.add_argument("--lang", choices=("en", "zh"))
    parser.add_argument("--inline", action="store_true",
                        help="show the panel under the cell even when the side bar is available")
    return parser.parse_args(argv)


class OpenedInSidebar:
    """What the magic displays when the panel went to the side bar."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        """The :class:`~mechnb.phrases.panel.PhrasePanel` shown in the side bar."""

    def __repr__(self) -> str:
        return "mechnb: the phrase panel is open in the right side bar."


_SIDEBAR_PANELS: dict[int, Any] = {}
"""The side-bar panel of each shell, reused by later ``%mech phrases`` (one set of widgets)."""


def mech_phrases(shell: Any, argv: list[str]) -> object | None:
    """Open the panel in the side bar through the bridge, else return a new one for display."""
    args = parse_args(argv)
    from .lookup import functions, normalize_function
    from .model import Lang
    from .panel import PhrasePanel, bridge_inserter

    query = " ".join(args.query)
    function = normalize_function(args.function)
    if function and function not in {n.path for n in functions()}:
        raise UsageError(f"%mech phrases: unknown function {args.function!r}; "
                         "`mechnb phrases --list-functions` lists them")
    lang: Lang = "zh" if (args.lang or notebook_lang(shell)) == "zh" else "en"
    if not args.inline:
        from ..kernel.bridge import active_bridge

        bridge = active_bridge(shell)
        if bridge is not None and "open_sidebar" in bridge.capabilities:
            panel = _SIDEBAR_PANELS.get(id(shell))
            if panel is None:
                panel = PhrasePanel(query, function=function, lang=lang,
                                    on_insert=bridge_inserter(shell), shell=shell)
            else:
                panel.query, panel.function, panel.lang = query, function, lang
            if bridge.open_sidebar(panel.widget, title=SIDEBAR_TITLE):
                _SIDEBAR_PANELS[id(shell)] = panel
                return OpenedInSidebar(panel)
    panel = PhrasePanel(query, function=function, lang=lang, on_insert=bridge_inserter(shell),
                        shell=shell)
    widget: object = panel.widget
    return widget
