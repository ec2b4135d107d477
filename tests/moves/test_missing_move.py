"""MECH060's missing-move warning on real abstracts (issue 20): how many moves that an abstract
makes it reports missing (false alarms, at most 1 in 20), and how often it reports a gap or a
validation once every sentence that makes it is deleted (detection).

Measured on the labelled real abstracts: out of fold on the ones the layer is fitted on (five
folds over abstracts, the same folds that pick the bounds), and once on ``test2``, never used
for a decision. Floors sit at the measured counts; the issue's detection goal (8 in 10) is met
out of fold (77 of 95) but not on test2 (27 of 38), see the move-analysis guide
(docs/guide/moves.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import reduce
from pathlib import Path
from typing import Any

import pytest

from mechnb.moves import MOVES, analyse
from mechnb.moves.evaluate import MissingCounts, deletions, missing_counts
from mechnb.moves.train import FALSE_ALARMS as TRAIN_BUDGET
from mechnb.moves.train import UNTUNED

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "moves"
TEST2 = [a for a in json.loads((FIXTURES / "real_en_set3.json").read_text("utf-8"))["abstracts"]
         if a["split"] == "test2"]
WRITTEN = json.loads((FIXTURES / "labelled.json").read_text("utf-8"))["abstracts"]

FALSE_ALARMS = 0.05
"""The issue's ceiling: at most 1 present move in 20 reported missing."""
CV_FOUND = {"gap": (176, 200), "validation": (218, 268)}
"""(deleted and reported, deleted) out of fold on the training abstracts, counted as ``analyse``
decides: floors a little below the measured 181 and 224, false alarms 43 of 1,358 (a budget of
3.5%; 175 and 224 at 40 with 3%), since the 82
abstracts of ``real_en_set5.json`` are fitted on too (2026-11-29; 117 of 136 and 158 of 188 at 28
of 941 before them, since the 96
abstracts of ``real_en_set4.json`` are fitted on too (2026-11-29; 62 of 67 and 82 of 95 at 14 of
484 before them; 63 and 80 before
gaps stated as limitations were cued, proofs of others no longer validated and background's
evidence words no longer counted, 2026-11-29; 62 and 77 before
adjacent word pairs were features of the sentences, 2026-11-29). Since the blind
second pass over validation (``validation_second_pass.json``, merged as a union) a deleted
validation is every sentence a reader calls evidence, so 95 copies, not 79; before it, 60 of 67
and 39 of 79 at 13 of 468 (issue 36: the abstract judged as a whole, CSAbstruct roles; the
validation's presence model also fitted on CSAbstruct abstracts with and without their results;
a weakly made move left to the abstract, ``present_above``; an abstract that states a proof or
a bound is validated by it, ``states_proof``)."""
TEST2_FOUND = {"gap": (24, 25), "validation": (30, 38)}
"""(deleted and reported, deleted) on test2: 24 and 30 at 4 of 195 false alarms since
``real_en_set5.json`` is fitted on too and the budget is 3.5% (21 and 30 at 3 of 195 with it at
3%); 23 and 29 at 3 of 195 since ``real_en_set4.json`` is fitted on too; 24 and 30 at 5 of 195
false alarms since gaps stated as limitations are cued (4 of 195 before); 24 and 30 (false
alarms: 4 of 195) with adjacent word pairs as features (chosen out of fold); 24 and 27 after
the second pass over validation; before it, 24 and 11 of 25 (6 of 182); before the gap cue was
widened, 23 and 9; before ``states_proof``, 23 and 10; before ``present_above``, 21
and 10; before the CSAbstruct rows, 23 and 4 at 7 of 182; before issue 36, 10 and 3 at 1 of
182)."""
WRITTEN_FOUND = {"en": {"gap": 8, "validation": 7}, "zh": {"gap": 8, "validation": 6}}
"""Of 8 each, on the project-written abstracts (Chinese: the rules decide). Since their blind
reading with the wide guide was merged (2026-11-29: 20 of 22 validation labels kept, 4 sentences
added, among them the grokking abstract's "we prove that …", 我们证明), a deletion takes the
proof with the experiment, and 6 of 8 are found in each language (English 4 before, with the
word pairs; Chinese 5, when the proof was left behind and validated the copy); English 5 since
real_en_set4.json is fitted on too, 7 since real_en_set5.json is too (2026-11-29; the gap 4 of 8
with it and a budget of 3%)."""


def test_false_alarms_and_detection_out_of_fold_on_the_training_abstracts(
        fresh_training: tuple[dict[str, Any], dict[str, float]]) -> None:
    model, _ = fresh_training
    every = MissingCounts.from_json(model["cv_missing"]["all"])
    splits = {k: MissingCounts.from_json(v) for k, v in model["cv_missing"].items()
              if k != "all"}
    assert set(splits) == {"dev", "dev2", *UNTUNED}
    assert reduce(MissingCounts.add, splits.values()) == every
    assert sum(every.present.values()) >= 900
    assert every.false_alarm_rate() <= FALSE_ALARMS
    # The bounds share one budget (3.5% out of fold, train.FALSE_ALARMS), and only the gap and
    # the validation (the moves DESIGN §4 asks of every paper) may spend it: the other moves
    # report none.
    assert every.false_alarm_rate() <= TRAIN_BUDGET == 0.035
    assert all(every.false_alarms[m] == 0 for m in MOVES if m not in ("gap", "validation"))
    # The splits the cue rules were never tuned on (the fairer view) stay within the ceiling.
    untuned = reduce(MissingCounts.add, (splits[k] for k in UNTUNED))
    assert untuned.false_alarm_rate() <= FALSE_ALARMS
    for move, (found, removed) in CV_FOUND.items():
        assert every.removed[move] == removed
        assert every.found[move] >= found, (move, every.found[move])


def test_false_alarms_and_detection_on_test2() -> None:
    counts = missing_counts(TEST2)
    rate = counts.false_alarm_rate()
    print(f"\ntest2: {counts.to_json()}, false alarms {rate:.3f}")
    assert sum(counts.present.values()) >= 150
    assert rate <= FALSE_ALARMS
    for move, (found, removed) in TEST2_FOUND.items():
        assert counts.removed[move] == removed
        assert counts.found[move] >= found, (move, counts.found[move])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_false_alarms_and_detection_on_the_written_abstracts(lang: str) -> None:
    counts = missing_counts(a for a in WRITTEN if a["lang"] == lang)
    assert counts.removed["gap"] == counts.removed["validation"] == 8
    for move, floor in WRITTEN_FOUND[lang].items():
        assert counts.found[move] >= floor, (move, counts.found[move])
    assert counts.false_alarm_rate() <= FALSE_ALARMS


def test_deletions_take_out_every_sentence_of_the_move() -> None:
    ab = {"lang": "en", "sentences": [
        {"text": "Heads copy.", "moves": ["context"]},
        {"text": "Why remains unclear.", "moves": ["gap"]},
        {"text": "We study them; it is open.", "moves": ["contribution", "gap"]}]}
    copies = dict(deletions(ab))
    assert [s["text"] for s in copies["gap"]["sentences"]] == ["Heads copy."]
    assert [s["text"] for s in copies["contribution"]["sentences"]] == [
        "Heads copy.", "Why remains unclear."]
    assert "context" in copies and "mechanism" not in copies


def test_a_move_is_judged_from_the_abstract_as_a_whole() -> None:
    # Nothing in the abstract states a gap or evidence: both are reported. ("We argue that":
    # a claim without evidence; "we show that" reports a result, which readers of the second
    # pass over validation count as evidence, see validation_second_pass.json's guide.)
    bare = analyse("Heads copy tokens. We argue that copying arises from a two-step circuit.")
    assert {"gap", "validation"} <= set(bare.missing)
    assert bare.presence["gap"] < 0.45 and bare.presence["validation"] < 0.15
    # A question is a gap the text still makes: not reported.
    asked = analyse("Heads copy tokens. Do they copy everywhere? We argue that copying arises "
                    "from a two-step circuit.")
    assert "gap" not in asked.missing and "validation" in asked.missing
    # Evidence anywhere in the abstract keeps validation from being reported; a move no
    # sentence makes is reported missing, or unsure where the abstract as a whole might make it
    # (the implication here: unsure until real_en_set5.json was fitted on, now just below its
    # bound).
    tested = analyse("Heads copy tokens. We argue that copying arises from a two-step circuit. "
                     "Experiments on GPT-2 confirm the prediction.")
    assert "validation" not in tested.missing and "gap" in tested.missing
    assert not any("implication" in s.moves for s in tested.sentences)
    assert ("implication" in tested.unsure) != ("implication" in tested.missing)
    # A theory abstract validates by proof: a proof or a matching bound it states is its
    # evidence, never reported missing; the same abstract without it is.
    theory = ("Which functions one attention layer computes is poorly understood. We study "
              "softmax attention through threshold circuits. {} A second layer is needed to "
              "count.")
    assert "validation" in analyse(theory.format("It computes a threshold class.")).missing
    for proof in ("We prove that it computes a threshold class.",
                  "A matching lower bound shows that the class is exact.",
                  "We also give the first lower bound for one head.",
                  "The class is provably exact.",
                  "Its error is bounded below by the size of the class."):
        assert "validation" not in analyse(theory.format(proof)).missing, proof
    # The authors' proof may be a verb joined to an earlier one.
    joined_proof = ("Heads copy tokens, yet how reliably one head picks its target is not "
                    "explained. We study the question through the lens of the logit margin and "
                    "prove that the weight on the target has a closed form in the margin. These "
                    "results suggest that margins tell when copying is reliable.")
    assert "validation" not in analyse(joined_proof).missing
    zh_theory = "注意力层的表达能力尚不清楚。我们证明单层注意力计算阈值电路类。"
    assert "validation" not in analyse(zh_theory, "zh").missing
    # Chinese (the rules decide): missing only when no sentence has any cue for the move.
    zh = analyse("归纳头很重要。本文研究它们的形成。", "zh")
    assert "gap" in zh.missing and "contribution" not in zh.missing and zh.unsure == ()


def test_a_move_tagged_weakly_but_reported_missing_says_so(tmp_path: Path) -> None:
    # The learned layer tags sentence 4 as validation, weakly; the abstract as a whole (the
    # presence model) does not report evidence, so the move is reported missing. The report and
    # the views say which sentence came near instead of "no sentence makes it". ("Our results
    # suggest" was the weak sentence until real_en_set4.json was fitted on: it now reads as an
    # implication, not evidence.)
    from mechnb.checker import check
    from mechnb.moves.view import analysis_html, analysis_text

    text = ("Transformers trained on modular arithmetic generalize long after they fit the "
            "training set. Why the delay has the length it has is not understood. We study the "
            "weight norm of a one-layer transformer during training. Our measurements suggest that "
            "the delay is set by weight decay. This points to norm control as a lever on "
            "grokking.")
    result = analyse(text, "en")
    assert "validation" in result.missing
    assert result.weakly("validation") == (3,)
    assert "validation" in result.sentences[3].moves
    note = "sentence 4 reads as one only weakly, and the abstract as a whole does not make it"
    assert result.weak_note("validation") == note
    assert result.weakly("gap") == () and result.weak_note("gap") == ""
    assert note in analysis_text(result) and note in analysis_html(result)
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "abstract", "source": text,
         "metadata": {"mechnb": {"role": "abstract"}, "tags": ["mech:abstract"]}}]}
    path = tmp_path / "paper.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    [finding] = [f for f in check(path) if f.code == "MECH060"]
    assert "the abstract has no validation move" in finding.message and note in finding.message
    assert "no sentence makes it or comes close" not in finding.message


READING = json.loads((FIXTURES / "deletion_reader.json").read_text("utf-8"))["items"]


def test_the_second_reading_is_of_the_deleted_copies_the_first_labels_make(
        fresh_training: tuple[dict[str, Any], dict[str, float]]) -> None:
    """``deletion_reader.json`` (a blind second reading of deleted copies) was made before the
    second pass over validation (``validation_second_pass.json``) widened the labels: it covers
    every test2 copy without its gap or validation and every training copy without its
    validation, each once, as the first labels (``first_labels``) make them; ``cv_found`` names
    exactly the training abstracts the stored counts say were found; and ``reader_counts``
    splits the test2 detections by the reading."""
    from mechnb.moves.evaluate import (
        VERDICTS,
        deleted_copy,
        first_labels,
        reader_counts,
        reported_missing,
    )
    from mechnb.moves.train import training_abstracts

    model, _ = fresh_training
    # the reading predates real_en_set4.json and real_en_set5.json, which no second reader read
    later = {a["id"] for name in ("real_en_set4.json", "real_en_set5.json")
             for a in json.loads((FIXTURES / name).read_text("utf-8"))["abstracts"]}
    training = {a["id"]: first_labels(a) for a in training_abstracts(FIXTURES)
                if a["id"] not in later}
    test2 = {a["id"]: first_labels(a) for a in TEST2}
    want = {(i, m) for i, a in test2.items() for m, _ in deletions(a) if m in ("gap", "validation")}
    want |= {(i, m) for i, a in training.items() for m, _ in deletions(a) if m == "validation"}
    got = [(item["id"], item["deleted"]) for item in READING if item["deleted"] is not None]
    assert sorted(got) == sorted(want)
    assert sum(m == "validation" and i in training for i, m in want) == 79
    assert all(item[m] in VERDICTS for item in READING for m in ("gap", "validation"))
    controls = [item["id"] for item in READING if item["deleted"] is None]
    assert len(controls) == len(set(controls)) == 25 and set(controls) <= {*training, *test2}
    for item in READING:
        if item["deleted"] is not None:
            copy = deleted_copy({**training, **test2}[item["id"]], item["deleted"])
            assert all(item["deleted"] not in s["moves"] for s in copy["sentences"])

    found = {m: set(ids) for m, ids in model["cv_found"].items()}
    assert model["cv_found"] == json.loads(
        (Path(__file__).resolve().parents[2] / "mechnb" / "data" / "moves" / "weights.json")
        .read_text("utf-8"))["cv_found"]
    assert {m: len(ids) for m, ids in found.items()} == {
        m: model["cv_missing"]["all"]["found"][m] for m in ("gap", "validation")}

    def on_test2(item: Mapping[str, Any]) -> bool:
        return reported_missing(deleted_copy(test2[item["id"]], item["deleted"]), item["deleted"])

    counts = reader_counts([i for i in READING if i["id"] in test2], on_test2)
    assert sum(c[1] for c in counts["validation"].values()) == 25
    assert sum(c[1] for c in counts["gap"].values()) == 25


def test_the_second_pass_only_adds_validation() -> None:
    """The blind second pass over validation (``validation_second_pass.json``) is merged as a
    union: every sentence a reader marked carries the move, the ones it added are listed in
    ``validation_added``, and taking those away (``first_labels``) gives back labels in which no
    other move changed."""
    from mechnb.moves.evaluate import first_labels

    second = json.loads((FIXTURES / "validation_second_pass.json").read_text("utf-8"))
    marked: dict[str, dict[str, list[int]]] = {}
    for row in second["rows"]:
        marked.setdefault(row["file"], {})[row["id"]] = row["validation"]
    assert set(marked) == {"real_en.json", "real_en_dev2.json", "real_en_second_annotator.json",
                           "real_en_set3.json", "labelled.json"}
    added = 0
    for name, by_id in marked.items():
        abstracts = json.loads((FIXTURES / name).read_text("utf-8"))["abstracts"]
        assert {a["id"] for a in abstracts} == set(by_id), name
        for ab in abstracts:
            first = first_labels(ab)
            extra = ab.get("validation_added", [])
            assert extra == sorted(set(extra)) and set(extra) <= set(by_id[ab["id"]])
            pairs = zip(ab["sentences"], first["sentences"], strict=True)
            for i, (now, before) in enumerate(pairs):
                assert ("validation" in now["moves"]) == (
                    i in by_id[ab["id"]] or "validation" in before["moves"]), (name, ab["id"], i)
                assert [m for m in now["moves"] if m != "validation"] == [
                    m for m in before["moves"] if m != "validation"]
                assert ("validation" in before["moves"]) == (
                    "validation" in now["moves"] and i not in extra)
            added += len(extra)
    assert added == 305  # 301 on the real sets, 4 on the project-written ones


LIMITATIONS = (
    "Sparse probes read features out of the residual stream, but they suffer from feature "
    "splitting, which severely limits their reuse across layers.",
    "Reading positions out of attention outputs remains a significant challenge at long "
    "context lengths.",
    "One limitation of current circuit analyses is that they fix a single prompt template.",
    "Accounts of copy heads are largely confined to toy tasks, lacking deeper insight into how "
    "the heads form.",
    "However, the standard mean ablation hardly isolates the contribution of a single head.",
    "Steering vectors work well in practice, yet a debate persists over whether the features "
    "they move are linear.",
    "While induction heads are widely studied, their formation in deep models is not yet well "
    "understood.",
    "Earlier analyses of positional encodings have struggled to separate position from content.",
    "Refusal training makes chat models safer, whereas existing defences can degrade fluency, "
    "limiting their use.",
    "Despite this, there has so far been little research on how the heads are scaled.",
)
"""Gaps stated as a limitation or a problem of what exists (written for the tests in the style
of 2025 abstracts): MECH060 reported "no gap" on 7 of 31 abstracts with a gap in one fresh
sample and on 11 of 30 in another, most of them gaps of this kind."""


@pytest.mark.parametrize("gap", LIMITATIONS)
def test_a_gap_stated_as_a_limitation_is_a_gap(gap: str) -> None:
    text = ("Attention heads in language models implement small algorithms. {} We trace the "
            "heads of two open models with activation patching. Experiments on GPT-2 and "
            "Pythia show that two heads carry most of the effect.")
    assert "gap" not in analyse(text.format(gap)).missing, gap
    assert "gap" in analyse(text.format("")).missing


def test_a_proof_the_paper_only_reports_of_others_is_not_its_validation() -> None:
    # Background that cites a proof (passive, prior work named or after a contrast, no first
    # person) does not validate the paper's own claim: the abstract still lacks evidence.
    theory = ("{} Chain of thought extends what transformers compute. We study how noisy "
              "training traces change the parity circuits a transformer learns. The learned "
              "circuit is fragile under label noise.")
    for others in ("In recent studies, transformers are proven to have fixed upper bounds on "
                   "their expressive power.",
                   "However, with intermediate steps transformers are provably able to solve "
                   "parity.",
                   "Prior work has noted that depth matters, but no result derives tight bounds "
                   "for it."):
        assert "validation" in analyse(theory.format(others)).missing, others
    assert "validation" not in analyse(theory.format(
        "We prove that transformers have fixed upper bounds on their expressive power.")).missing
