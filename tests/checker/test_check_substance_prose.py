"""MECH070 (vacuous cell) and MECH075 (nothing cited), case by case, in English and Chinese.

Each case puts one cell into the clean fixture paper (``make_fixtures.clean``, which has no
findings) and checks whether the rule fires on it.
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
from growth import assert_linear

from mechnb.checker import check
from mechnb.checker.substance import _stem, content_of, lexicon
from mechnb.notebook import paper_from_dict

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"


def _make() -> Any:
    return make_fixtures()


def _clean() -> dict[str, Any]:
    nb: dict[str, Any] = copy.deepcopy(_make().clean())
    return nb


def _index(nb: dict[str, Any], role: str, nth: int = 0) -> int:
    return int(_make().role_index(nb, role, nth))


def _findings(nb: dict[str, Any], code: str) -> list[tuple[int | None, str]]:
    return [(f.cell, f.message) for f in check(paper_from_dict(nb)) if f.code == code]


def _with(role: str, source: str, *, lang: str = "en", nth: int = 0) -> dict[str, Any]:
    nb = _clean()
    nb["cells"][_index(nb, role, nth)]["source"] = source
    if lang == "zh":
        nb["metadata"]["mechnb"]["lang"] = "zh"
    return nb


def _vacuous(role: str, source: str, *, lang: str = "en", nth: int = 0) -> list[str]:
    nb = _with(role, source, lang=lang, nth=nth)
    at = _index(nb, role, nth)
    found = _findings(nb, "MECH070")
    assert all(cell == at for cell, _ in found), found
    return [message for _, message in found]


# ---- MECH070 -------------------------------------------------------------------------------
FIRES = [
    # stock sentences, English
    ("interpretation", "This is interesting.", "stock"),
    ("interpretation", "This result is very interesting and important.", "stock"),
    ("interpretation", "The theorem has an intuitive interpretation.", "stock"),
    ("interpretation", "This is, as expected, not surprising.", None),
    ("gap", "More work is needed.", "stock"),
    ("gap", "Further research is still required.", "stock"),
    ("gap", "This remains poorly understood.", "stock"),
    ("gap", "This problem has not been studied before.", "stock"),
    ("gap", "Little work has been done on this.", "stock"),
    ("gap", "There is an important gap in the literature.", "stock"),
    ("gap", "This is an interesting open question. More work is needed. There is still room "
            "for improvement, and future work should explore this.", "stock"),
    ("limitations", "Our work has some limitations.", "stock"),
    ("limitations", "# Limitations\n\nOur work is not without limitations.", "stock"),
    ("limitations", "Our results may not generalize to all settings.", "stock"),
    ("limitations", "There are several limitations. We leave this for future work.", "stock"),
    ("implication", "These results have important implications for the field.", "stock"),
    ("implication", "This paves the way for future research.", "stock"),
    ("implication", "These insights could be useful for future research.", "stock"),
    ("lens", "Our lens provides a new perspective on the problem.", "stock"),
    ("lens", "We take a new perspective.", "stock"),
    ("result", "The experiments confirm our theory.", "stock"),
    ("result", "This is consistent with our theory.", "stock"),
    ("result", "Our method works very well.", "stock"),
    # short and tied to nothing
    ("interpretation", "That makes sense.", "shares no word"),
    ("interpretation", "Nice, clean and elegant.", "shares no word"),
    ("gap", "Existing methods fall short.", "names no"),
    ("limitations", "The scope is limited.", "names no"),
    ("implication", "This is useful in practice.", None),
    ("result", "It works as predicted.", "names no figure"),
    ("result", "The head forms as predicted.", "names no figure"),
    # stock sentences, Chinese
    ("interpretation", "这个结果很有意思。", "stock"),
    ("interpretation", "这说明定理是对的。", None),
    ("gap", "还需要更多研究。", "stock"),
    ("gap", "该问题仍未被充分理解。", "stock"),
    ("gap", "现有研究很少关注这一问题。", "stock"),
    ("limitations", "本文存在一定的局限性。", "stock"),
    ("limitations", "我们的工作还有一些不足，留待未来工作解决。", "stock"),
    ("implication", "这一结果具有重要意义。", "stock"),
    ("implication", "这有助于我们更好地理解这一问题。", "stock"),
    ("lens", "我们提供了新的视角。", "stock"),
    ("result", "实验结果验证了我们的理论。", "stock"),
    ("result", "结果与理论预期一致。", "stock"),
]

PASSES = [
    # short but specific
    ("limitations", "Our analysis covers two-layer attention-only models only."),
    ("limitations", "We only test GPT-2 small."),
    ("limitations", "The bound assumes orthogonal keys."),
    ("implication", "Training-dynamics arguments can predict when circuits appear."),
    ("implication", "Monitoring the logit margin flags unreliable heads."),
    ("lens", "We use the logit lens."),
    ("gap", "Softmax saturation in fp16 is unexplained."),
    ("gap", "Prior bounds \\citep{olsson2022} ignore depth."),
    ("gap", "No closed form for $W_T$ is known."),
    ("result", "\\Cref{fig:scores} matches the prediction."),
    ("result", "Accuracy drops to 12%."),
    ("result", "As \\cref{exp:ablate} shows, the effect vanishes."),
    ("result", "Table 2 lists the scores."),
    ("interpretation", "So the head copies once $s$ is close to one."),
    ("interpretation", "In words: the induction head forms early."),
    ("interpretation", "The rate is tight up to a factor 2."),
    ("interpretation", "This recovers the rate of \\citet{olsson2022}."),
    ("interpretation", "The score saturates quickly."),  # shares "score" with the theorem
    # stock sentence, but something specific remains
    ("interpretation", "This is interesting: the head forms before the loss drops."),
    ("limitations", "Our work has some limitations: the bound assumes orthogonal keys."),
    ("gap", "More work is needed on how the previous-token head forms."),
    ("gap", "How softmax drives sink formation is not well understood."),
    # long without a link: not flagged
    ("interpretation", "Intuitively, gradient descent rewards copying long before anything "
                       "else is learned here."),
    ("result", "The measured score rises above the prediction whenever the learning rate is "
               "large, and stays below it otherwise."),
    # template slots are MECH025's business
    ("gap", "More work is needed on [topic]."),
    ("result", "[Figure exp:controlled] shows that [measured quantity] matches."),
    # Chinese, specific
    ("limitations", "我们只考虑两层模型。"),
    ("gap", "缺少对训练过程的解释。"),
    ("lens", "我们采用训练动力学的视角。"),
    ("result", "如图 \\cref{fig:scores} 所示，权重下降。"),
    ("result", "准确率降到 12%。"),
    ("implication", "读取对数几率间隔即可判断复制头何时可靠。"),
]


@pytest.mark.parametrize(("role", "source", "why"), FIRES, ids=lambda v: str(v)[:40])
def test_vacuous_cells_fire(role: str, source: str, why: str | None) -> None:
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", source) else "en"
    messages = _vacuous(role, source, lang=lang)
    assert len(messages) == 1, messages
    if why == "stock":
        assert "stock sentences" in messages[0]
    elif why:
        assert why in messages[0]
    assert "mechnb phrases --function" in messages[0]


@pytest.mark.parametrize(("role", "source"), PASSES, ids=lambda v: str(v)[:40])
def test_specific_cells_pass(role: str, source: str) -> None:
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", source) else "en"
    assert _vacuous(role, source, lang=lang) == []


ZH_THEOREM = ("在 \\cref{def:induction} 下，经过 $T$ 步训练后，归纳头的注意力分数满足 "
              "$s \\geq 1 - \\epsilon$。")


def _zh_paper(interpretation: str) -> dict[str, Any]:
    nb = _with("theorem", ZH_THEOREM, lang="zh")
    nb["cells"][_index(nb, "interpretation")]["source"] = interpretation
    return nb


def test_a_long_chinese_interpretation_that_shares_bigrams_passes() -> None:
    nb = _zh_paper("也就是说，只要训练足够多步，归纳头就会把几乎全部注意力放在前一次出现之后的"
                   "位置上。")
    assert _findings(nb, "MECH070") == []


def test_a_short_chinese_interpretation_sharing_a_bigram_passes() -> None:
    assert _findings(_zh_paper("即归纳头很快形成。"), "MECH070") == []


def test_a_short_chinese_interpretation_sharing_nothing_fires() -> None:
    found = _findings(_zh_paper("这说明它是对的。"), "MECH070")
    assert [cell for cell, _ in found] == [_index(_zh_paper(""), "interpretation")]
    assert "shares no word or symbol with Theorem thm:main in cell 11" in found[0][1]
    assert "theorem/interpretation" in found[0][1]


def test_the_message_names_the_statement_and_the_phrase_command() -> None:
    [message] = _vacuous("interpretation", "That makes sense.")
    assert "shares no word or symbol with Theorem thm:main in cell 11" in message
    assert "`mechnb phrases --function theorem/interpretation`" in message
    [message] = _vacuous("interpretation", "That makes sense.", nth=1)
    assert "Claim clm:remove in cell 14" in message
    [message] = _vacuous("gap", "More work is needed.")
    assert "“More work is needed”" in message
    assert "`mechnb phrases --function introduction/gap`" in message
    [message] = _vacuous("result", "It works as predicted.")
    assert "short (4 words)" in message and "`mechnb phrases --function results`" in message


def test_the_stock_finding_points_at_the_stock_sentence() -> None:
    nb = _with("limitations", "# Limitations\n\nOur work has some limitations.")
    [f] = [f for f in check(paper_from_dict(nb)) if f.code == "MECH070"]
    assert (f.line, f.column) == (3, 1)


def test_an_interpretation_after_no_statement_must_name_something() -> None:
    nb = _clean()
    nb["cells"].insert(_index(nb, "setup") + 1, _make().md("interpretation", "That is neat."))
    found = _findings(nb, "MECH070")
    assert len(found) == 1 and "names no concrete object" in found[0][1]


def test_note_cells_and_empty_cells_are_not_read() -> None:
    nb = _clean()
    nb["cells"].append(_make().md("note", "More work is needed."))
    nb["cells"][_index(nb, "gap")]["metadata"]["mechnb"]["role"] = "note"
    assert _findings(nb, "MECH070") == []
    assert _vacuous("result", "   \n") == []


def test_a_huge_cell_is_not_read() -> None:
    assert _vacuous("gap", "More work is needed. " * 2000) == []


def test_the_rule_is_silenced_by_a_cell_tag() -> None:
    nb = _with("gap", "More work is needed.")
    nb["cells"][_index(nb, "gap")]["metadata"]["tags"].append("mech-ignore:MECH070")
    assert _findings(nb, "MECH070") == []


def test_every_stock_phrase_matches_its_example_and_nothing_of_the_sound_papers() -> None:
    data = json.loads(resources.files("mechnb").joinpath(
        "data/checks/stock_phrases.json").read_text("utf-8"))
    ids = [p["id"] for p in data["phrases"]]
    assert len(ids) == len(set(ids))
    langs = {p["lang"] for p in data["phrases"]}
    assert langs == {"en", "zh"}
    for phrase in lexicon().phrases:
        assert phrase.pattern.search(phrase.example), phrase.id
        assert phrase.lang in ("en", "zh")


@pytest.mark.parametrize("text", ["MORE WORK IS NEEDED!", "more  work\nis needed",
                                  "Much more research will be required."])
def test_stock_matching_is_tolerant(text: str) -> None:
    assert any(p.pattern.search(text) for p in lexicon().phrases)


def test_stemming_and_content_words() -> None:
    assert _stem("heads") == _stem("head")
    assert _stem("copying") == _stem("copies") == _stem("copied") == "copy"
    assert _stem("computed") == _stem("compute")
    assert not content_of("More work is needed on this problem.")
    assert content_of("two-layer attention-only models").stems >= {"attention", "layer"}
    assert not content_of("我们的工作存在一定的局限性")
    assert "模型" in content_of("我们只考虑两层模型").bigrams


# ---- MECH075 -------------------------------------------------------------------------------
def _uncited(nb: dict[str, Any], role: str, source: str) -> None:
    nb["cells"][_index(nb, role)]["source"] = source


def test_a_paper_that_cites_nothing_gets_one_finding_at_its_first_context_cell() -> None:
    nb = _clean()
    _uncited(nb, "context", "# Introduction\n\nIn-context copying is central to LLMs.")
    _uncited(nb, "prior", "Earlier work located induction heads in trained models.")
    found = _findings(nb, "MECH075")
    assert [cell for cell, _ in found] == [_index(nb, "context")]
    assert "cites nothing" in found[0][1] and "prior cell 3" in found[0][1]


def test_a_prior_cell_without_a_citation_is_reported_at_that_cell() -> None:
    nb = _clean()
    _uncited(nb, "prior", "Earlier work located induction heads in trained models.")
    assert [cell for cell, _ in _findings(nb, "MECH075")] == [_index(nb, "prior")]


@pytest.mark.parametrize("source", [
    "Earlier work located induction heads [@elhage2021].",
    "\\citet{elhage2021} located induction heads.",
    "Earlier work located induction heads \\citep[see][]{elhage2021}.",
    "Earlier work [cite] located [component].",
    "To our knowledge, no prior work studies how induction heads form.",
    "Induction heads were located in trained models (see \\cref{sec:setup}).",
    "已有工作定位了归纳头 [@elhage2021]。",
])
def test_prior_cells_that_cite_or_are_templates_pass(source: str) -> None:
    nb = _clean()
    _uncited(nb, "prior", source)
    assert _findings(nb, "MECH075") == []


def test_a_chinese_prior_cell_without_citation_fires() -> None:
    nb = _clean()
    nb["metadata"]["mechnb"]["lang"] = "zh"
    _uncited(nb, "prior", "已有工作在训练好的模型中定位了归纳头。")
    assert [cell for cell, _ in _findings(nb, "MECH075")] == [_index(nb, "prior")]


def test_a_paper_without_context_or_prior_cells_is_not_asked_to_cite() -> None:
    nb = _clean()
    nb["cells"] = [c for c in nb["cells"]
                   if c["metadata"].get("mechnb", {}).get("role") not in ("context", "prior")]
    assert _findings(nb, "MECH075") == []


def test_scaffolds_get_neither_rule() -> None:
    from mechnb.templates import scaffold_notebook

    for paper_type in ("expressivity", "dynamics", "failure"):
        for lang in ("en", "zh"):
            found = check(paper_from_dict(scaffold_notebook(paper_type, lang=lang)))
            assert not [f for f in found if f.code in ("MECH070", "MECH075")]


@pytest.mark.parametrize(("source", "typed"), [
    ("Olsson et al. (2022) located induction heads.", "Olsson et al. (2022)"),
    ("Induction heads were located in trained models (Elhage, 2021).", "Elhage, 2021"),
    ("Induction heads were located in trained models [12].", "[12]"),
])
def test_a_citation_typed_by_hand_is_named(source: str, typed: str) -> None:
    nb = _clean()
    _uncited(nb, "prior", source)
    [(cell, message)] = _findings(nb, "MECH075")
    assert cell == _index(nb, "prior")
    assert f"cites only by hand (“{typed}”)" in message
    assert "introduction/prior-work" in message


def test_a_paper_citing_only_by_hand_gets_one_finding_that_quotes_it() -> None:
    nb = _clean()
    _uncited(nb, "context", "# Introduction\n\nCopying matters (Olsson et al., 2022).")
    _uncited(nb, "prior", "Earlier work located induction heads.")
    [(cell, message)] = _findings(nb, "MECH075")
    assert cell == _index(nb, "context")
    assert "only by hand (“Olsson et al., 2022”" in message and "prior cell 3" in message


def test_a_large_cell_of_stock_words_stays_linear() -> None:
    assert len(_vacuous("gap", "This is interesting, and " * 780)) == 1  # 19,500 characters
    assert len(_vacuous("gap", "this is" + " " * 19_000 + "x")) == 1  # short, names nothing
    assert_linear(lambda n: _vacuous("gap", "This is interesting, and " * n), 100, "stock")
    assert_linear(lambda n: _vacuous("gap", "this is" + " " * n + "x"), 1_200, "spaces")
