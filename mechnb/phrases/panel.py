"""The phrase-lookup panel: an ipywidgets view over :func:`mechnb.phrases.lookup.search`.

Typing filters as you type; the function dropdown keeps one subtree; EN/中文 chooses the language
shown and inserted (queries match both languages, so English keywords find Chinese phrases).
"Insert" hands the phrase to ``on_insert`` (by default the frontend bridge inserts it at the
cursor of the active cell); when that is not possible, and on "Copy", the phrase appears in a
selectable text box. Phrases and notes are escaped: text is never interpreted as HTML.

This module imports ipywidgets, so it is only imported when a panel is opened.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..errors import UsageError
from .library import Library, load_library
from .lookup import functions, normalize_function, search
from .model import LANGS, Lang, Phrase

InsertCallback = Callable[[str], bool]
"""Receives the phrase text; returns whether it was inserted (``False`` shows the copy box)."""

ALL_FUNCTIONS = ""
ALL_FUNCTIONS_LABEL = "All functions / 全部功能"
_INDENT = "\u00a0\u00a0\u00a0"  # non-breaking spaces survive in <option> labels
_NO_TEX = 'class="tex2jax_ignore mathjax_ignore"'  # show "$x$" as typed, not typeset
_TEXT_CSS = "white-space:pre-wrap;line-height:1.4;user-select:text"
_NOTE_CSS = _TEXT_CSS + ";font-size:0.85em;opacity:0.75"

LABELS: dict[Lang, dict[str, str]] = {
    "en": {"placeholder": "Search phrases (English or 中文)…",
           "insert": "Insert", "copy": "Copy", "count": "{n} phrases",
           "more": "showing {shown} of {n} phrases; type more to narrow",
           "none": "No phrase matches; try fewer words or another function.",
           "inserted": "Inserted {id} into the active cell.",
           "copy_hint": "Select the text below and copy it (Ctrl+C / ⌘C):",
           "no_bridge": "Could not insert (no notebook editor reachable). Copy it instead:"},
    "zh": {"placeholder": "搜索句式（中文或英文）…",
           "insert": "插入", "copy": "复制", "count": "共 {n} 条",
           "more": "显示 {shown} / {n} 条；继续输入以缩小范围",
           "none": "没有匹配的句式；请减少关键词或换一个功能分类。",
           "inserted": "已将 {id} 插入当前单元格。",
           "copy_hint": "选中下面的文字并复制（Ctrl+C / ⌘C）：",
           "no_bridge": "无法插入（找不到可编辑的笔记本单元格），请手动复制："},
}


def escaped_html(text: str, css: str = _TEXT_CSS) -> str:
    """``text`` as an HTML fragment that displays it literally (escaped, not typeset)."""
    return f'<div {_NO_TEX} style="{css}">{html.escape(text, quote=True)}</div>'


def bridge_inserter(shell: Any = None) -> InsertCallback:
    """An insert callback that asks the frontend extension to insert at the cursor."""

    def insert(text: str) -> bool:
        sh = shell
        if sh is None:
            try:
                from IPython import get_ipython
            except ImportError:
                return False
            sh = get_ipython()
        if sh is None:
            return False
        from ..kernel.bridge import active_bridge

        bridge = active_bridge(sh)
        return bridge is not None and bool(bridge.insert_text(text))

    return insert


class ResultRow:
    """One reusable result slot of the panel (rows are reused, not rebuilt, on every keystroke)."""

    def __init__(self, panel: PhrasePanel, slot: int, lang: Lang) -> None:
        self.slot = slot
        self.text = widgets.HTML()
        """The phrase, escaped."""
        self.note = widgets.HTML()
        """The usage note, escaped."""
        self.function = widgets.Label(style={"font_size": "0.8em", "text_color": "gray"})
        """The phrase's function path, a small caption above the text."""
        button = {"width": "auto", "flex": "0 0 auto"}  # never squeezed in a narrow side bar
        self.insert_button = widgets.Button(description=LABELS[lang]["insert"],
                                            button_style="primary",
                                            layout=widgets.Layout(**button))
        self.copy_button = widgets.Button(description=LABELS[lang]["copy"],
                                          layout=widgets.Layout(**button))
        self.insert_button.on_click(lambda _b: panel.insert(slot))
        self.copy_button.on_click(lambda _b: panel.copy(slot))
        self.box = widgets.VBox(
            [self.function, self.text, self.note,
             widgets.HBox([self.insert_button, self.copy_button])],
            layout=widgets.Layout(display="none", border_bottom="1px solid #ddd",
                                  padding="4px 0"))
        self.phrase: Phrase | None = None

    @property
    def visible(self) -> bool:
        """Whether the row shows a result."""
        return bool(self.box.layout.display != "none")

    def show(self, phrase: Phrase | None, lang: Lang) -> None:
        """Display ``phrase`` in ``lang`` (``None`` hides the row)."""
        self.phrase = phrase
        if phrase is None:
            self.box.layout.display = "none"
            return
        self.text.value = escaped_html(phrase.text(lang))
        self.note.value = escaped_html(phrase.note(lang), _NOTE_CSS)
        self.function.value = phrase.function
        self.insert_button.description = LABELS[lang]["insert"]
        self.copy_button.description = LABELS[lang]["copy"]
        self.insert_button.tooltip = f"{phrase.id}"
        self.box.layout.display = "flex"


class PhrasePanel:
    """Search box, function dropdown, language toggle and result rows over the phrase library."""

    def __init__(self, query: str = "", *, function: str | None = None, lang: Lang = "en",
                 on_insert: InsertCallback | None = None, library: Library | None = None,
                 max_rows: int = 30, shell: Any = None) -> None:
        if lang not in LANGS:
            raise UsageError(f"--lang must be 'en' or 'zh', not {lang!r}")
        self.library = library if library is not None else load_library()
        self.on_insert: InsertCallback = on_insert or bridge_inserter(shell)
        self.results: list[Phrase] = []
        """Every phrase matching the current query and function, best first."""
        self.last_inserted: Phrase | None = None

        root = normalize_function(function)
        options = self._function_options()
        if root not in {value for _label, value in options}:
            raise UsageError(f"unknown phrase function {function!r}; "
                             "`mechnb phrases --list-functions` lists them")
        self.search_box = widgets.Text(value=query, continuous_update=True,
                                       placeholder=LABELS[lang]["placeholder"],
                                       layout=widgets.Layout(width="98%"))
        self.function_dropdown = widgets.Dropdown(options=options, value=root,
                                                  layout=widgets.Layout(width="98%"))
        self.lang_toggle = widgets.ToggleButtons(options=[("EN", "en"), ("中文", "zh")],
                                                 value=lang, style={"button_width": "4em"})
        self.status = widgets.Label()
        self.rows = [ResultRow(self, n, lang) for n in range(max_rows)]
        self.copy_hint = widgets.Label()
        self.copy_area = widgets.Textarea(layout=widgets.Layout(width="98%", height="5em"))
        self.copy_box = widgets.VBox([self.copy_hint, self.copy_area],
                                     layout=widgets.Layout(display="none"))
        self.widget = widgets.VBox(
            [self.search_box, self.function_dropdown, self.lang_toggle, self.status,
             self.copy_box, widgets.VBox([r.box for r in self.rows])],
            layout=widgets.Layout(width="100%"))
        self.widget.add_class("mechnb-phrase-panel")

        self.search_box.observe(self._changed, names="value")
        self.function_dropdown.observe(self._changed, names="value")
        self.lang_toggle.observe(self._lang_changed, names="value")
        self.refresh()

    # -- state -------------------------------------------------------------------------------
    @property
    def query(self) -> str:
        """The text in the search box."""
        return str(self.search_box.value)

    @query.setter
    def query(self, value: str) -> None:
        self.search_box.value = value

    @property
    def function(self) -> str:
        """The selected function subtree (``""`` for all)."""
        return str(self.function_dropdown.value)

    @function.setter
    def function(self, value: str) -> None:
        self.function_dropdown.value = normalize_function(value)

    @property
    def lang(self) -> Lang:
        """The language shown and inserted."""
        return "zh" if self.lang_toggle.value == "zh" else "en"

    @lang.setter
    def lang(self, value: Lang) -> None:
        self.lang_toggle.value = value

    @property
    def visible_rows(self) -> list[ResultRow]:
        """The rows that currently show a result."""
        return [r for r in self.rows if r.visible]

    # -- behaviour ---------------------------------------------------------------------------
    def _function_options(self) -> list[tuple[str, str]]:
        options = [(ALL_FUNCTIONS_LABEL, ALL_FUNCTIONS)]
        options += [(f"{_INDENT * n.depth}{n.name} ({n.count})", n.path)
                    for n in functions(self.library)]
        return options

    def _changed(self, _change: object = None) -> None:
        self.refresh()

    def _lang_changed(self, _change: object = None) -> None:
        labels = LABELS[self.lang]
        self.search_box.placeholder = labels["placeholder"]
        self.refresh()

    def refresh(self) -> None:
        """Run the search for the current state and update the rows (called on every change)."""
        self.results = search(self.query, function=self.function or None,
                              library=self.library)
        lang = self.lang
        for row, phrase in zip(self.rows, self.results + [None] * len(self.rows), strict=False):
            row.show(phrase, lang)
        labels = LABELS[lang]
        n, shown = len(self.results), min(len(self.results), len(self.rows))
        if n == 0:
            self.status.value = labels["none"]
        elif shown < n:
            self.status.value = labels["more"].format(shown=shown, n=n)
        else:
            self.status.value = labels["count"].format(n=n)

    def _show_copy(self, text: str, hint: str) -> None:
        self.copy_hint.value = hint
        self.copy_area.value = text
        self.copy_box.layout.display = "flex"

    def insert(self, slot: int) -> None:
        """The "Insert" click of row ``slot``: hand the phrase to ``on_insert``, else copy."""
        phrase = self.rows[slot].phrase
        if phrase is None:
            return
        text = phrase.text(self.lang)
        try:
            ok = bool(self.on_insert(text))
        except Exception:  # a broken frontend must not lose the phrase: offer the copy box
            ok = False
        labels = LABELS[self.lang]
        if ok:
            self.last_inserted = phrase
            self.copy_box.layout.display = "none"
            self.status.value = labels["inserted"].format(id=phrase.id)
        else:
            self._show_copy(text, labels["no_bridge"])

    def copy(self, slot: int) -> None:
        """The "Copy" click of row ``slot``: show the phrase in the selectable copy box."""
        phrase = self.rows[slot].phrase
        if phrase is not None:
            self._show_copy(phrase.text(self.lang), LABELS[self.lang]["copy_hint"])

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
