"""Search: ranking (fixture cases), filters, Chinese, accents, empty and absurd queries."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phrase_fixtures import fixture_json

from mechnb.phrases.index import fold
from mechnb.phrases.library import Library
from mechnb.phrases.lookup import functions, in_subtree, search
from mechnb.phrases.words import key


@pytest.mark.parametrize("case", fixture_json("ranking_cases.json")["cases"],
                         ids=lambda c: c["name"])
def test_ranking_cases(mini: Library, case: dict[str, Any]) -> None:
    hits = search(case["query"], function=case.get("function"), lang=case.get("lang"),
                  library=mini)
    assert [p.id for p in hits] == case["expected"]


@pytest.mark.parametrize(("text", "folded"), [
    ("Résumé", "resume"), ("NAÏVE", "naive"), ("ＦＵＬＬ width", "full width"),
    ("Straße", "strasse"), ("a—b,c", "a b c"), ("训练的Transformer", "训练的 transformer"),
    ("snake_case-word", "snake case word"), ("  ", ""),
])
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_empty_query_lists_everything_in_library_order(library: Library) -> None:
    assert search("", library=library) == list(library.phrases)
    assert search("   ", library=library) == list(library.phrases)


def test_empty_query_with_function_keeps_the_subtree_in_order(library: Library) -> None:
    hits = search("", function="introduction/gap", library=library)
    expected = [p for p in library.phrases if p.function.startswith("introduction/gap/")]
    assert hits == expected and len(hits) >= 28


def test_limit(library: Library) -> None:
    assert len(search("", limit=7, library=library)) == 7
    assert search("gap", limit=0, library=library) == []
    assert search("gap", limit=3, library=library) == search("gap", library=library)[:3]


def test_multi_word_and_over_the_real_library(library: Library) -> None:
    hits = search("closed form", lang="en", library=library)
    assert hits
    for p in hits:
        words = fold(" ".join((p.en, p.note_en, p.function, p.id))).split()
        assert "clos" in {key(w) for w in words}  # "closed" in some inflection (closing)
        assert any(w.startswith("form") for w in words)  # the last word may be half-typed
    assert "closed form" in fold(hits[0].en)


def test_best_hit_for_a_lens_name_is_the_lens(library: Library) -> None:
    assert search("logit lens", library=library)[0].id == "lens-logit-lens"
    assert search("causal tracing", function="lens", library=library)[0].id == \
        "lens-causal-tracing"


def test_exact_phrase_outranks_scattered_words(library: Library) -> None:
    hits = search("training dynamics", lang="en", library=library)
    first_scattered = next(i for i, p in enumerate(hits)
                           if "training dynamics" not in fold(p.en + " " + p.note_en))
    assert all("training dynamics" in fold(p.en + " " + p.note_en)
               for p in hits[:first_scattered])


def test_case_and_accents_do_not_change_results(library: Library) -> None:
    assert search("Trâining DYNAMICS", library=library) == \
        search("training dynamics", library=library)


def test_chinese_substring_over_the_real_library(library: Library) -> None:
    hits = search("闭式", lang="zh", library=library)
    assert len(hits) >= 5
    assert all("闭式" in p.zh or "闭式" in p.note_zh for p in hits)
    assert search("因果链", function="introduction/gap", lang="zh", library=library)


def test_english_keyword_finds_nothing_in_chinese_only_text(library: Library) -> None:
    # "zh" matches the Chinese phrase and note plus the function path and id, nothing else
    for p in search("gradient", lang="zh", library=library):
        assert "gradient" in fold(f"{p.zh} {p.note_zh} {p.function} {p.id}")


def test_function_filter_is_a_subtree_on_slash_boundaries(library: Library) -> None:
    hits = search("", function="introduction/gap/missing-closed-form", library=library)
    assert hits and all(p.function == "introduction/gap/missing-closed-form" for p in hits)
    assert search("", function="intro", library=library) == []
    assert search("", function="introduction/gap/missing", library=library) == []


def test_unknown_language_is_rejected(library: Library) -> None:
    with pytest.raises(ValueError):
        search("gap", lang="fr", library=library)  # type: ignore[arg-type]


@pytest.mark.parametrize("query", [
    "x" * 1_000_000, "gap " * 50_000, ".*[(?<!", "\\", "((((", "!!!???", "\x00\x01", "🙂🙃",
    "‮gap", "[[[]]]", "%s %d {0}", "\ud800", "ＧＡＰ", "　",
])
def test_absurd_queries_do_not_crash(library: Library, query: str) -> None:
    hits = search(query, library=library)
    assert isinstance(hits, list)


def test_repeated_words_behave_like_one(library: Library) -> None:
    assert search("gap " * 5000, library=library) == search("gap", library=library)


def test_punctuation_only_query_is_an_empty_query(library: Library) -> None:
    assert search("?!.,;:", library=library) == list(library.phrases)


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=60), lang=st.sampled_from([None, "en", "zh"]))
def test_search_never_raises_and_returns_library_phrases(library: Library, query: str,
                                                         lang: Any) -> None:
    hits = search(query, lang=lang, library=library)
    assert len(hits) == len({p.id for p in hits})
    assert set(hits) <= set(library.phrases)


def test_functions_tree_order_and_counts(library: Library) -> None:
    nodes = functions(library)
    paths = [n.path for n in nodes]
    assert len(paths) == len(set(paths))
    for n in nodes:
        if "/" in n.path:
            parent = n.path.rsplit("/", 1)[0]
            assert paths.index(parent) < paths.index(n.path)
        assert n.count == sum(1 for p in library.phrases if in_subtree(p.function, n.path))
        assert n.depth == n.path.count("/")
    top = [n.path for n in nodes if n.depth == 0]
    assert top[:3] == ["title", "abstract", "introduction"]
    assert {"lens", "formula", "limitations", "future"} <= set(top)


@pytest.mark.parametrize("case", fixture_json("writer_queries.json")["cases"],
                         ids=lambda c: c["query"])
def test_writer_queries_find_a_relevant_phrase_in_the_top_five(library: Library,
                                                               case: dict[str, Any]) -> None:
    top = search(case["query"], library=library, limit=5)
    texts = [f"{p.en} {p.zh}".lower() for p in top]
    assert any(r.lower() in t for r in case["relevant"] for t in texts), \
        [p.en for p in top]


def test_a_reasonable_query_never_comes_back_empty(library: Library) -> None:
    for query in ("the interplay of depth and precision", "why does attention sink form",
                  "为什么注意力会集中", "characterising the behaviour of optimisers"):
        assert search(query, library=library), query
