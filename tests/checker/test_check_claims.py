"""MECH072 (number not shown), MECH073 (causal claim without intervention) and MECH074 (proof
wording for experiments), case by case, in English and Chinese.

Each case edits the clean fixture paper (``make_fixtures.clean``, which has no findings): its
abstract, conclusion, claim (clm:remove, validated by the intervention exp:ablate, which prints
"accuracy drops from 0.98 to 0.12"), theorem (thm:main, proved, and validated by the controlled
experiment fig:scores) and result cells.
"""

from __future__ import annotations

import copy
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from fixture_scripts import make_fixtures

from mechnb.checker import check
from mechnb.checker.claims import wording
from mechnb.findings import Finding, Severity
from mechnb.notebook import paper_from_dict

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"
SOUND = FIXTURES / "substance"


def _make() -> Any:
    return make_fixtures()


def _paper(edits: dict[str, str], *, lang: str = "en",
           mech: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The clean paper with the source of the first cell of each role replaced (a leading "+"
    appends instead) and metadata fields changed."""
    nb: dict[str, Any] = copy.deepcopy(_make().clean())
    for role, text in edits.items():
        cell = nb["cells"][_make().role_index(nb, role)]
        cell["source"] = cell["source"] + text[1:] if text.startswith("+") else text
    for role, fields in (mech or {}).items():
        nb["cells"][_make().role_index(nb, role)]["metadata"]["mechnb"].update(fields)
    if lang == "zh":
        nb["metadata"]["mechnb"]["lang"] = "zh"
    return nb


def _found(nb: dict[str, Any], code: str) -> list[Finding]:
    return [f for f in check(paper_from_dict(nb)) if f.code == code]


def _role_of(nb: dict[str, Any], f: Finding) -> str:
    assert f.cell is not None
    return str(nb["cells"][f.cell]["metadata"]["mechnb"]["role"])


# ---- MECH072 -------------------------------------------------------------------------------
ABSTRACT = ("Induction heads are central to in-context copying. How they form during training "
            "remains unclear. We explain their formation through the lens of gradient leading "
            "terms. ")


@pytest.mark.parametrize("sentence, shown", [
    ("Removing the leading term drops accuracy from 0.98 to 0.12.", True),
    ("Removing the leading term drops accuracy from 98% to 12%.", True),      # 98% is 0.98
    ("Removing the leading term drops accuracy from 98\\% to 12\\%.", True),  # as LaTeX
    ("Removing the leading term drops accuracy from $0.98$ to $0.12$.", True),  # in math
    ("Removing the leading term drops accuracy from 0.983 to 0.12.", False),  # more precise
    ("Removing the leading term drops accuracy to 0.15.", False),
    ("Removing the leading term drops accuracy to 15%.", False),
    ("The leading term predicts formation 2.5x earlier.", False),
    ("The leading term predicts formation 4-fold earlier.", False),
    ("Two layers and 64 heads suffice.", True),              # counts are settings
    ("We extend the argument to Llama 3.1 in Section 3.", True),  # a name, not a measurement
])
def test_a_reported_number_must_be_shown_somewhere_else(sentence: str, shown: bool) -> None:
    nb = _paper({"abstract": ABSTRACT + sentence})
    found = _found(nb, "MECH072")
    assert (found == []) is shown, [f.message for f in found]
    for f in found:
        assert _role_of(nb, f) == "abstract" and f.severity is Severity.WARNING
        assert f.labels and f.labels[0] in f.message and "no other cell" in f.message


def test_a_rounded_number_counts_as_shown_by_its_precise_output() -> None:
    nb = _paper({"abstract": ABSTRACT + "Accuracy falls to 0.1."})
    nb["cells"][_make().role_index(nb, "experiment", 1)]["outputs"][0]["text"] = \
        "accuracy drops from 0.9812 to 0.1049\n"
    assert _found(nb, "MECH072") == []                   # 0.1049 rounds to 0.1
    nb = _paper({"abstract": ABSTRACT + "Accuracy stays at 98%."})
    nb["cells"][_make().role_index(nb, "experiment", 1)]["outputs"][0]["text"] = \
        "accuracy drops from 0.9812 to 0.1049\n"
    assert _found(nb, "MECH072") == []                   # 0.9812 shows 98%


@pytest.mark.parametrize("where", ["caption", "result", "table output"])
def test_captions_results_and_tables_show_numbers(where: str) -> None:
    nb = _paper({"conclusion": "+ The head forms after 37.5% of training."})
    if where == "caption":
        cell = nb["cells"][_make().role_index(nb, "experiment")]
        cell["metadata"]["mechnb"]["caption"] = "Scores; the head forms at 37.5% of training."
    elif where == "result":
        nb["cells"][_make().role_index(nb, "result")]["source"] += " It forms at 0.375 of T."
    else:
        cell = nb["cells"][_make().role_index(nb, "experiment")]
        cell["outputs"].append({"output_type": "execute_result", "execution_count": 1,
                                "metadata": {}, "data": {
                                    "text/html": "<table><tr><td>37.5</td></tr></table>",
                                    "text/plain": "formed\n0  37.5"}})
    assert _found(nb, "MECH072") == []
    assert [_role_of(nb, f) for f in _found(_paper({"conclusion": "+ The head forms after "
                                                    "37.5% of training."}), "MECH072")] == [
        "conclusion"]


def test_a_number_whose_sentence_points_at_a_figure_is_only_info() -> None:
    nb = _paper({"conclusion": "+ The score peaks at 0.93 (\\cref{fig:scores})."})
    found = _found(nb, "MECH072")
    assert [(f.severity, _role_of(nb, f)) for f in found] == [(Severity.INFO, "conclusion")]
    assert "fig:scores" in found[0].message and "images are not read" in found[0].message


def test_numbers_in_chinese() -> None:
    nb = _paper({"conclusion": "+按间隔筛选注意力头，使检测提速 3.5 倍，准确率为 98%。"}, lang="zh")
    assert [f.labels for f in _found(nb, "MECH072")] == [("3.5 倍",)]   # 98% is the 0.98 shown


# ---- MECH073 -------------------------------------------------------------------------------
@pytest.mark.parametrize("sentence, fires", [
    (" The leading term causes the head to form (\\cref{fig:scores}).", True),
    (" The leading term is responsible for the head (\\cref{fig:scores}).", True),
    (" The leading term drives formation, as \\cref{fig:scores} shows.", True),
    (" The leading term gives rise to the head (\\cref{fig:scores}).", True),
    (" We establish the causal role of the term (\\cref{fig:scores}).", True),
    (" The leading term may cause the head to form (\\cref{fig:scores}).", False),   # hedged
    (" The leading term does not cause it (\\cref{fig:scores}).", False),            # negated
    (" The leading term doesn't drive it (\\cref{fig:scores}).", False),
    (" The head forms because the term grows (\\cref{fig:scores}).", False),
    (" A causal mask keeps the model causal (\\cref{fig:scores}).", False),
    (" A data-driven check agrees (\\cref{fig:scores}).", False),
    (" The leading term causes the head to form (\\cref{thm:main}).", False),   # proved
    (" The previous-token head causes formation (\\cref{clm:remove}).", False),  # intervention
    (" Removing the head causes the failure (\\cref{exp:ablate}).", False),      # intervention
])
def test_causal_wording_in_the_conclusion(sentence: str, fires: bool) -> None:
    nb = _paper({"conclusion": "+" + sentence})
    found = _found(nb, "MECH073")
    assert bool(found) is fires, [f.message for f in found]
    if found:
        assert _role_of(nb, found[0]) == "conclusion"
        assert "controlled (fig:scores)" in found[0].message


def test_a_claim_backed_only_by_a_controlled_experiment_may_not_say_causes() -> None:
    text = "The previous-token head causes the induction head to form."
    assert _found(_paper({"claim": text}), "MECH073") == []          # exp:ablate intervenes
    for kind in ("controlled", "real-model"):
        nb = _paper({"claim": text}, mech={"experiment": {}})
        nb["cells"][_make().role_index(nb, "experiment", 1)]["metadata"]["mechnb"]["kind"] = kind
        found = _found(nb, "MECH073")
        assert [_role_of(nb, f) for f in found] == ["claim"]
        assert "claim clm:remove says “causes”" in found[0].message
        assert f"{kind} (exp:ablate)" in found[0].message
        assert "--kind intervention" in found[0].message and "clm:remove" in found[0].message
    nb = _paper({"claim": text})
    nb["cells"][_make().role_index(nb, "experiment", 1)]["metadata"]["mechnb"]["kind"] = "ablation"
    assert _found(nb, "MECH073") == []


def test_an_unreferenced_abstract_sentence_is_read_against_the_whole_paper() -> None:
    abstract = ABSTRACT + "The leading term causes the head to form."
    assert _found(_paper({"abstract": abstract}), "MECH073") == []   # intervention and proof
    nb = _paper({"abstract": abstract})
    nb["cells"][_make().role_index(nb, "experiment", 1)]["metadata"]["mechnb"]["kind"] = \
        "controlled"
    assert _found(nb, "MECH073") == []                               # the theorem is proved
    nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("mechnb", {}).get("role")
                   != "proof"]
    assert [_role_of(nb, f) for f in _found(nb, "MECH073")] == ["abstract"]


@pytest.mark.parametrize("sentence, fires", [
    ("目标的间隔导致了注意力的集中（\\cref{fig:scores}）。", True),
    ("前导项是注意力头形成的主要原因（\\cref{fig:scores}）。", True),
    ("前导项可能导致注意力头形成（\\cref{fig:scores}）。", False),
    ("前导项并不导致注意力头形成（\\cref{fig:scores}）。", False),
    ("因为前导项增长，注意力头形成（\\cref{fig:scores}）。", False),
    ("前导项导致注意力头形成（\\cref{clm:remove}）。", False),
])
def test_causal_wording_in_chinese(sentence: str, fires: bool) -> None:
    nb = _paper({"conclusion": "+" + sentence}, lang="zh")
    assert bool(_found(nb, "MECH073")) is fires


# ---- MECH074 -------------------------------------------------------------------------------
@pytest.mark.parametrize("sentence, fires", [
    (" The ablation proves \\cref{clm:remove}.", True),
    (" \\Cref{exp:ablate} confirms \\cref{clm:remove}.", True),
    (" \\Cref{exp:ablate} proves the claim.", True),  # via what the experiment validates
    (" \\Cref{fig:scores} confirms \\cref{thm:main}.", False),   # thm:main has a proof
    (" The ablation proves useful (\\cref{clm:remove}).", False),
    (" \\Cref{exp:ablate} supports \\cref{clm:remove}.", False),
    (" \\Cref{exp:ablate} does not confirm \\cref{clm:remove}.", False),
    (" We hope to prove \\cref{clm:remove} later.", False),
])
def test_proof_wording_in_a_result(sentence: str, fires: bool) -> None:
    nb = _paper({"result": "+" + sentence})
    found = _found(nb, "MECH074")
    assert bool(found) is fires, [f.message for f in found]
    if found:
        assert found[0].severity is Severity.INFO and _role_of(nb, found[0]) == "result"
        assert "clm:remove is backed only by experiments" in found[0].message
        assert "“supports” or “is consistent with”" in found[0].message


def test_we_prove_in_the_abstract_of_a_paper_without_proofs() -> None:
    abstract = ABSTRACT + "We prove that the leading term builds the head."
    assert _found(_paper({"abstract": abstract}), "MECH074") == []   # thm:main has a proof
    nb = _paper({"abstract": abstract})
    nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("mechnb", {}).get("role")
                   != "proof"]
    found = _found(nb, "MECH074")
    assert [_role_of(nb, f) for f in found] == ["abstract"]
    assert "the paper's claims are backed only by experiments" in found[0].message


@pytest.mark.parametrize("sentence, fires", [
    ("缩小间隔的干预实验证明了 \\cref{clm:remove}。", True),
    ("\\Cref{exp:ablate} 证实了 \\cref{clm:remove}。", True),
    ("\\cref{clm:remove} 的完整证明见附录。", False),   # the noun
    ("\\Cref{exp:ablate} 支持 \\cref{clm:remove}。", False),
])
def test_proof_wording_in_chinese(sentence: str, fires: bool) -> None:
    nb = _paper({"result": "+" + sentence}, lang="zh")
    found = _found(nb, "MECH074")
    assert bool(found) is fires, [f.message for f in found]
    if found:
        assert "“支持” or “与……一致”" in found[0].message


# ---- the wording data ----------------------------------------------------------------------
def _data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.files("mechnb").joinpath(
        "data/checks/claim_wording.json").read_text("utf-8"))
    return loaded


@pytest.mark.parametrize("kind", ["causal", "proof"])
def test_every_wording_pattern_matches_its_example_and_not_its_counter_example(kind: str) -> None:
    compiled = getattr(wording(), kind)
    for entry in _data()[kind]:
        pattern = compiled[entry["lang"]]
        assert pattern.search(entry["example"]), entry["pattern"]
        if "not_example" in entry:
            assert not re.search(entry["pattern"], entry["not_example"], re.IGNORECASE) or \
                not pattern.search(entry["not_example"]), entry["not_example"]


def test_the_sound_papers_make_no_claim_these_rules_question() -> None:
    for name in ("sound_en", "sound_zh"):
        codes = {f.code for f in check(SOUND / f"{name}.ipynb")}
        assert not codes & {"MECH072", "MECH073", "MECH074"}
