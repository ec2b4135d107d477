"""The panel driven headlessly: widget state on typing, filter and language change, and clicks."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets
import pytest

from mechnb.errors import UsageError
from mechnb.phrases.library import Library
from mechnb.phrases.lookup import search
from mechnb.phrases.panel import ALL_FUNCTIONS, PhrasePanel, escaped_html


class Recorder:
    """An insert callback that records what it receives and answers ``ok``."""

    def __init__(self, ok: bool = True) -> None:
        self.ok = ok
        self.texts: list[str] = []

    def __call__(self, text: str) -> bool:
        self.texts.append(text)
        return self.ok


def _shown_texts(panel: PhrasePanel) -> list[str]:
    return [html.unescape(r.text.value) for r in panel.visible_rows]


def test_initial_state_lists_the_first_phrases(library: Library) -> None:
    panel = PhrasePanel(on_insert=Recorder(), library=library, max_rows=10)
    assert panel.query == "" and panel.function == ALL_FUNCTIONS and panel.lang == "en"
    assert panel.results == list(library.phrases)
    assert len(panel.visible_rows) == 10
    assert str(len(library.phrases)) in panel.status.value
    assert panel.search_box.continuous_update is True


def test_typing_filters_the_rows(library: Library) -> None:
    panel = PhrasePanel(on_insert=Recorder(), library=library, max_rows=50)
    panel.search_box.value = "closed"
    narrowed = list(panel.results)
    assert narrowed == search("closed", library=library)
    panel.search_box.value = "closed form"
    assert panel.results == search("closed form", library=library)
    assert 0 < len(panel.results) <= len(narrowed)
    assert [r.phrase for r in panel.visible_rows] == panel.results[:50]
    assert all("closed form" in t.lower() or "closed-form" in t.lower() or "closed" in t.lower()
               for t in _shown_texts(panel)[:3])
    panel.search_box.value = "zebra quokka"
    assert panel.results == [] and panel.visible_rows == []
    assert "No phrase matches" in panel.status.value


def test_function_dropdown_is_an_indented_tree(library: Library) -> None:
    panel = PhrasePanel(on_insert=Recorder(), library=library)
    labels = dict((value, label) for label, value in panel.function_dropdown.options)
    assert labels[""].startswith("All functions")
    assert labels["introduction"].startswith("introduction (")
    assert labels["introduction/gap/missing-closed-form"].startswith("\u00a0" * 6)


def test_changing_the_function_filters(library: Library) -> None:
    panel = PhrasePanel("", on_insert=Recorder(), library=library)
    panel.function_dropdown.value = "introduction/gap"
    assert panel.results and all(p.function.startswith("introduction/gap/")
                                 for p in panel.results)
    assert all(r.function.value.startswith("introduction/gap/") for r in panel.visible_rows)
    panel.function = ""
    assert len(panel.results) == len(library.phrases)


def test_language_toggle_changes_text_and_labels(library: Library) -> None:
    panel = PhrasePanel("closed form", on_insert=Recorder(), library=library)
    first = panel.results[0]
    assert html.unescape(panel.rows[0].text.value).endswith(f"{first.en}</div>")
    panel.lang_toggle.value = "zh"
    assert panel.lang == "zh"
    assert f">{html.escape(first.zh)}</div>" in panel.rows[0].text.value
    assert f">{html.escape(first.note_zh)}</div>" in panel.rows[0].note.value
    assert panel.rows[0].insert_button.description == "插入"
    assert panel.results[0] == first  # queries match both languages


def test_insert_click_hands_the_phrase_in_the_current_language(library: Library) -> None:
    recorder = Recorder()
    panel = PhrasePanel("closed form", on_insert=recorder, library=library)
    panel.rows[1].insert_button.click()
    assert recorder.texts == [panel.results[1].en]
    assert panel.last_inserted == panel.results[1]
    assert panel.results[1].id in panel.status.value
    assert panel.copy_box.layout.display == "none"
    panel.lang = "zh"
    panel.rows[0].insert_button.click()
    assert recorder.texts[-1] == panel.results[0].zh


@pytest.mark.parametrize("on_insert", [Recorder(ok=False), "raises"])
def test_failed_insert_shows_the_copy_box(library: Library, on_insert: Any) -> None:
    def broken(_text: str) -> bool:
        raise RuntimeError("comm closed")

    panel = PhrasePanel("research question", library=library,
                        on_insert=broken if on_insert == "raises" else on_insert)
    panel.rows[0].insert_button.click()
    assert panel.copy_box.layout.display == "flex"
    assert panel.copy_area.value == panel.results[0].en
    assert "Copy" in panel.copy_hint.value
    assert panel.last_inserted is None


def test_copy_button_shows_the_text_to_copy(library: Library) -> None:
    recorder = Recorder()
    panel = PhrasePanel("roadmap", lang="zh", on_insert=recorder, library=library)
    panel.rows[2].copy_button.click()
    assert panel.copy_area.value == panel.results[2].zh
    assert panel.copy_box.layout.display == "flex"
    assert recorder.texts == []


def test_html_like_phrases_are_shown_literally(mini: Library) -> None:
    recorder = Recorder()
    panel = PhrasePanel("bold", on_insert=recorder, library=mini)
    row = panel.rows[0]
    assert row.phrase is not None and row.phrase.id == "html-like"
    assert "<b>" not in row.text.value and "<script>" not in row.text.value
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; &lt;script&gt;" in row.text.value
    assert "&lt;u&gt;Markup&lt;/u&gt;" in row.note.value
    panel.lang = "zh"
    assert "<img" not in row.text.value and "&lt;img src=x" in row.text.value
    row.insert_button.click()
    assert recorder.texts == [row.phrase.zh]  # inserted as typed, unescaped


def test_escaped_html_keeps_math_untypeset() -> None:
    out = escaped_html("$a<b$ & \"q\"")
    assert "mathjax_ignore" in out and "$a&lt;b$ &amp; &quot;q&quot;" in out


def test_more_results_than_rows_says_so(library: Library) -> None:
    panel = PhrasePanel("", on_insert=Recorder(), library=library, max_rows=5)
    assert "showing 5 of" in panel.status.value
    panel.lang = "zh"
    assert "显示 5 /" in panel.status.value


def test_unknown_function_or_language_is_a_usage_error(library: Library) -> None:
    with pytest.raises(UsageError, match="list-functions"):
        PhrasePanel(function="introduction/nothing", library=library)
    with pytest.raises(UsageError):
        PhrasePanel(lang="fr", library=library)  # type: ignore[arg-type]


def test_panel_displays_as_its_widget(library: Library) -> None:
    panel = PhrasePanel(library=library)
    assert isinstance(panel.widget, widgets.VBox)
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
