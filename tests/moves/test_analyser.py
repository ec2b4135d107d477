"""The move analyser on hand-labelled abstracts (per-move precision/recall), on removed moves,
negation, position, template slots, and the phrase-derived cues."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from mechnb.moves import MOVES, analyse
from mechnb.moves.cues import derived_cues, load_lexicon
from mechnb.moves.evaluate import evaluate

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "moves"
LABELLED: list[dict[str, Any]] = json.loads(
    (FIXTURES / "labelled.json").read_text("utf-8"))["abstracts"]
REAL: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en.json").read_text("utf-8"))["abstracts"]
REAL_DEV2: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en_dev2.json").read_text("utf-8"))["abstracts"]
"""A second tuning split of real abstracts, collected after the rules were tuned on ``dev``."""
ROOT = FIXTURES.parent.parent.parent

SET3: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en_set3.json").read_text("utf-8"))["abstracts"]
"""75 more real abstracts labelled blind to the analyser: ``test2`` (the measurement, never used
for a decision) and ``train3`` (fitted on)."""
TEST2 = [a for a in SET3 if a["split"] == "test2"]
SET4: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en_set4.json").read_text("utf-8"))["abstracts"]
"""96 more real abstracts labelled blind to the analyser, all fitted on (``train4``)."""
SET5: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en_set5.json").read_text("utf-8"))["abstracts"]
"""82 more, collected and labelled the same way, all fitted on (``train5``)."""
SECOND: list[dict[str, Any]] = json.loads(
    (FIXTURES / "real_en_second_annotator.json").read_text("utf-8"))["abstracts"]

# Floors a little below the scores measured on test2 (docs/guide/moves.md), for the learned
# layer (the default) and for the rules alone. The goal (F1 >= 0.85 for every move) is
# not met: these only catch regressions.
TEST2_F1_FLOOR = {"learned": {"context": 0.87, "gap": 0.6, "contribution": 0.86,
                              "mechanism": 0.67, "validation": 0.76, "implication": 0.57},
                  "rules": {"context": 0.82, "gap": 0.57, "contribution": 0.82,
                            "mechanism": 0.4, "validation": 0.28, "implication": 0.45}}

# Floors below the measured scores on the project-written abstracts (English: learned layer;
# Chinese: the rules, the layer is English only). English implication fell from 0.67 to 0.40
# with the CSAbstruct role features (issue 36; 1 of 4 implication sentences found) and is back at
# 0.67 with the adjacent word pairs.
# English validation fell from 0.72 to 0.56 when the layer was refitted on the real abstracts'
# wider validation labels (validation_second_pass.json: "we show/find that ..." is evidence): it
# over-read evidence here; a blind reader with the wide guide kept 20 of these abstracts' 22
# validation labels and added 4 (merged 2026-11-29): with them and the adjacent word pairs,
# English validation is at 0.77; Chinese (rules), with the proof cue, at 0.67. English
# contribution fell from 0.9 to 0.88 when real_en_set4.json was fitted on too (2026-11-29).
F1_FLOOR = {"en": {"context": 0.78, "gap": 0.9, "contribution": 0.85, "mechanism": 0.65,
                   "validation": 0.65, "implication": 0.6},
            "zh": {"context": 0.85, "gap": 0.95, "contribution": 0.65, "mechanism": 0.55,
                   "validation": 0.6, "implication": 0.7}}


def test_the_labelled_set_is_large_enough_and_well_formed() -> None:
    for lang in ("en", "zh"):
        sentences = [s for a in LABELLED if a["lang"] == lang for s in a["sentences"]]
        assert len(sentences) >= 30
        assert all(set(s["moves"]) <= set(MOVES) for s in sentences)
        for move in MOVES:
            assert sum(move in s["moves"] for s in sentences) >= 5, (lang, move)


def test_the_real_set_has_forty_sourced_abstracts_split_before_tuning() -> None:
    assert len(REAL) >= 40
    assert len({a["id"] for a in REAL}) == len(REAL)
    assert sum(len(a["sentences"]) for a in REAL) >= 250
    for i, a in enumerate(REAL):
        assert a["lang"] == "en"
        assert a["source"].startswith("http") and a["title"]
        assert a["id"].startswith(("arXiv:", "OpenReview:", "arxivlens:")), a["id"]
        assert a["split"] == ("dev" if i % 2 == 0 else "heldout")
        assert all(set(s["moves"]) <= set(MOVES) for s in a["sentences"])
    for move in MOVES:
        assert sum(move in s["moves"] for a in REAL for s in a["sentences"]) >= 20, move
    # The project-written set is kept apart from the real one.
    assert not {a["id"] for a in REAL} & {a["id"] for a in LABELLED}


def test_the_second_tuning_split_is_sourced_and_apart_from_the_first_set() -> None:
    assert len(REAL_DEV2) >= 20
    ids = [a["id"] for a in REAL_DEV2]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {a["id"] for a in REAL} and not set(ids) & {a["id"] for a in LABELLED}
    assert not {a["title"].lower() for a in REAL_DEV2} & {a["title"].lower() for a in REAL}
    for a in REAL_DEV2:
        assert a["lang"] == "en" and a["split"] == "dev2"
        assert a["source"].startswith("http") and a["title"] and ":" in a["id"]
        assert all(set(s["moves"]) <= set(MOVES) for s in a["sentences"])


def test_the_third_set_is_sourced_apart_and_split_by_collection_order() -> None:
    assert len(SET3) >= 75 and len(TEST2) >= 39
    ids = [a["id"] for a in SET3]
    assert len(set(ids)) == len(ids)
    earlier = REAL + REAL_DEV2 + LABELLED
    assert not set(ids) & {a["id"] for a in earlier}
    assert not {a["title"].lower() for a in SET3} & {a.get("title", "").lower() for a in earlier}
    for topic in ("interp", "theory", "llm"):
        chosen = [a for a in SET3 if a["topic"] == topic]
        assert len(chosen) == 25
        assert [a["split"] for a in chosen] == ["test2" if i % 2 == 0 else "train3"
                                                 for i in range(len(chosen))]
    for a in SET3:
        assert a["lang"] == "en" and a["source"].startswith("http") and a["title"]
        assert all(set(s["moves"]) <= set(MOVES) for s in a["sentences"])
    for move in MOVES:
        assert sum(move in s["moves"] for a in TEST2 for s in a["sentences"]) >= 25, move


@pytest.mark.parametrize("method", ["learned", "rules"])
def test_per_move_f1_on_the_test_split(method: str) -> None:
    scores = evaluate(TEST2, method)
    assert scores.split_errors == [] and scores.sentences >= 250
    table = {row["move"]: row["f1"] for row in scores.table()}
    print(f"\ntest2 {method}: {table}")
    low = {m: table[m] for m in MOVES if table[m] < TEST2_F1_FLOOR[method][m]}
    assert low == {}


def test_the_learned_layer_beats_the_rules_alone_on_every_move() -> None:
    learned = {r["move"]: r["f1"] for r in evaluate(TEST2).table()}
    rules = {r["move"]: r["f1"] for r in evaluate(TEST2, "rules").table()}
    assert {m for m in MOVES if learned[m] <= rules[m]} == set()


def test_the_learned_weights_are_fitted_on_the_data_and_never_on_test2(
        fresh_training: tuple[dict[str, Any], dict[str, float]]) -> None:
    from mechnb.moves.train import training_abstracts

    fitted = {a["id"] for a in training_abstracts(FIXTURES)}
    assert fitted and not fitted & {a["id"] for a in TEST2}
    assert fitted == {a["id"] for a in REAL + REAL_DEV2 + SET3 + SET4 + SET5
                      if a["split"] != "test2"}
    path = ROOT / "mechnb" / "data" / "moves" / "weights.json"
    fresh, _ = fresh_training
    assert path.read_text("utf-8") == json.dumps(fresh, ensure_ascii=False, indent=1,
                                                 sort_keys=True) + "\n", \
        "run `python -m mechnb.moves.train` after changing the rules, features or data"


def test_a_quarter_of_the_training_abstracts_learns_less_than_all_of_them(
        fresh_training: tuple[dict[str, Any], dict[str, float]]) -> None:
    """The learning curve's first point against its last: the cross-validated F1 of the refit
    (``fresh_training``, equal to the shipped ``cv_f1`` by the test above), so the five folds
    on all the abstracts are not fitted twice in one run."""
    from mechnb.moves.train import learning_curve

    ((few, quarter),) = learning_curve((0.25,), FIXTURES)
    fresh, full = fresh_training
    assert few < fresh["abstracts"] * 0.8 / 2
    assert sum(quarter.values()) < sum(full.values())


def test_a_second_reader_agrees_with_the_first_far_above_the_analyser() -> None:
    from mechnb.moves.evaluate import agreement

    assert [a["id"] for a in SECOND] == [a["id"] for a in REAL]
    table = {r["move"]: r["f1"] for r in agreement(REAL, SECOND).table()}
    assert min(table.values()) >= 0.85, table
    changed = [dict(SECOND[0], sentences=SECOND[0]["sentences"][1:]), *SECOND[1:]]
    with pytest.raises(ValueError, match="different sentences"):
        agreement(REAL, changed)


def test_chinese_keeps_the_rules_and_an_unknown_method_is_refused() -> None:
    zh = ("归纳头很重要。然而它们如何形成仍不清楚。本文通过训练动力学的视角研究它们。"
          "实验表明预测成立。")
    assert analyse(zh, "zh").to_json() == analyse(zh, "zh", "rules").to_json()
    with pytest.raises(ValueError, match="method"):
        analyse("Heads matter.", "en", "neural")


def test_the_docs_accuracy_table_is_the_benchmarks() -> None:
    spec = importlib.util.spec_from_file_location("bench_moves",
                                                  ROOT / "benchmarks" / "bench_moves.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    page = (ROOT / "docs" / "guide" / "moves.md").read_text("utf-8")
    table = page.split("<!-- moves-accuracy:start -->\n", 1)[1].split(
        "\n<!-- moves-accuracy:end -->", 1)[0]
    assert table == bench.markdown(), "regenerate: python benchmarks/bench_moves.py --markdown"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_per_move_f1_on_the_labelled_set(lang: str) -> None:
    scores = evaluate(a for a in LABELLED if a["lang"] == lang)
    assert scores.split_errors == []
    table = {row["move"]: row for row in scores.table()}
    print(f"\n{lang}: " + "  ".join(f"{m} P={r['precision']:.2f} R={r['recall']:.2f} "
                                   f"F1={r['f1']:.2f}" for m, r in table.items()))
    low = {m: table[m]["f1"] for m in MOVES if table[m]["f1"] < F1_FLOOR[lang][m]}
    assert low == {}


def test_each_sentence_has_its_deciding_cue() -> None:
    result = analyse("Induction heads matter for in-context learning. However, how they form "
                     "remains unclear. In this paper, we study them through the lens of training "
                     "dynamics. The head arises from a two-step circuit in which one head copies "
                     "the previous token. "
                     "Experiments on GPT-2 confirm the prediction. This suggests a recipe for "
                     "monitoring circuits.")
    # (the mechanism was "We argue that the head arises from …" until real_en_set4.json was
    # fitted on: a first-person claim, it is now the paper's contribution first, its mechanism
    # second, and the order of moves goes by each sentence's main move)
    assert [s.moves[0] for s in result.sentences] == [
        "context", "gap", "contribution", "mechanism", "validation", "implication"]
    assert result.missing == ()
    gap = result.sentences[1].cues[0]
    assert (gap.move, gap.cue, gap.rule) == ("gap", "remains unclear", "remains unclear")
    assert result.order == MOVES


def test_negation_cancels_a_claim_but_makes_a_gap() -> None:
    claimed = analyse("We validate the mechanism on GPT-2.", "en").sentences[0]
    denied = analyse("No prior work has validated the mechanism on a trained model.",
                     "en").sentences[0]
    assert "validation" in claimed.moves
    assert "validation" not in denied.moves and "gap" in denied.moves
    zh = analyse("此前没有工作通过干预验证这一机制。", "zh").sentences[0]
    assert "gap" in zh.moves and "validation" not in zh.moves


def test_position_first_sentence_is_context_unless_first_person() -> None:
    assert analyse("Attention heads copy tokens. We study them.").sentences[0].moves == (
        "context",)
    assert "context" not in analyse("We study heads. They copy.").sentences[0].moves


def test_template_slots_make_no_move_and_are_reported() -> None:
    result = analyse("[Phenomenon] is widely observed in [model]. Why it arises remains unclear.")
    assert result.sentences[0].moves == () and result.sentences[0].template == ("context",)
    assert "context" in result.missing and result.templated == ("context",)
    assert "gap" not in result.missing


def test_out_of_order_moves_are_listed() -> None:
    result = analyse("Heads matter for copying. We study them through the lens of dynamics. "
                     "However, how they form remains unclear.")
    assert result.out_of_order == (("gap", "contribution", 2),)


def test_a_move_already_made_in_an_earlier_sentence_is_not_out_of_order() -> None:
    from mechnb.moves.analyser import move_order

    # By main moves alone, the mechanism first comes after the validation ...
    primaries = ["context", "contribution", "validation", "mechanism"]
    assert move_order(primaries, MOVES)[1] == (("mechanism", "validation", 3),)
    # ... but the contribution sentence also states it (a result sentence that names the
    # mechanism): the mechanism was made before the validation.
    made = [("context",), ("contribution", "mechanism"), ("validation",), ("mechanism",)]
    order, late = move_order(primaries, MOVES, made)
    assert late == () and order == ("context", "contribution", "validation", "mechanism")
    # Made in the validation's own sentence: not after it.
    made = [("context",), ("contribution",), ("validation", "mechanism"), ("mechanism",)]
    assert move_order(primaries, MOVES, made)[1] == ()
    # Made earlier, but still after a move that usually follows it: reported where it is made.
    primaries = ["validation", "contribution", "mechanism"]
    made = [("validation",), ("contribution", "mechanism"), ("mechanism",)]
    assert move_order(primaries, MOVES, made)[1] == (("contribution", "validation", 1),
                                                     ("mechanism", "validation", 1))


def test_json_shape_is_exactly_the_documented_one() -> None:
    data = analyse("Heads matter. How they form remains unclear.").to_json()
    assert list(data) == ["sentences", "missing", "order"]
    assert list(data["sentences"][1]) == ["text", "moves", "cues"]
    assert list(data["sentences"][1]["cues"][0]) == ["move", "score", "cue", "rule"]


def test_derived_cues_are_in_sync_with_the_phrase_library() -> None:
    stored = json.loads((Path(__file__).resolve().parent.parent.parent / "mechnb" / "data" /
                         "moves" / "derived.json").read_text("utf-8"))
    fresh = derived_cues()
    assert stored["en"] == fresh["en"] and stored["zh"] == fresh["zh"], \
        "run `python -m mechnb.moves.cues` after editing the phrases"
    lex = load_lexicon()
    assert lex.derived_en and lex.derived_zh
    assert {m for m, _ in lex.derived_en.values()} <= set(MOVES)


def test_every_rule_names_a_known_move_and_compiles() -> None:
    lex = load_lexicon()
    assert lex.moves == MOVES
    assert {r.move for r in lex.rules} == set(MOVES)
    assert set(lex.purpose) >= set(MOVES)
