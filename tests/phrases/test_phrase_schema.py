"""The shipped phrase data: complete in both languages, consistent blanks, coverage of DESIGN §3."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest
from phrase_fixtures import fixture_json

from mechnb.phrases.index import has_cjk, is_cjk
from mechnb.phrases.library import (
    LENSES_MARKER,
    Library,
    lens_problems,
    library_from_records,
    record_problems,
)
from mechnb.phrases.lookup import in_subtree
from mechnb.phrases.model import LABEL_SLOT_RE, slots_in
from mechnb.phrases.words import british_spellings, overcorrected_spellings

DATA = resources.files("mechnb").joinpath("data")
PHRASES = DATA.joinpath("phrases")
ENGINE_FILES = ("title.json", "abstract.json", "introduction.json", "impact.json",
                "limitations.json", "future.json")
LENS_IDS = ("training-dynamics", "succinctness", "gradient-leading-terms",
            "numerical-error-propagation", "formal-language-theory", "mechanistic-decomposition",
            "causal-tracing", "circuit-analysis", "logit-lens", "sparse-dictionaries",
            "dynamical-systems", "direct-attribution", "attribution-patching", "backward-lens",
            "mean-field-attention", "energy-attention", "circuit-complexity", "algorithmic-cores")


def _index() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(PHRASES.joinpath("index.json").read_text("utf-8"))
    return raw


def test_library_loads_without_problems(library: Library) -> None:
    assert list(library.problems) == []


def test_every_listed_file_is_present() -> None:
    present = {item.name for item in PHRASES.iterdir()}
    missing = [n for n in _index()["files"] if n != LENSES_MARKER and n not in present]
    assert missing == []


@pytest.mark.parametrize("name", sorted(
    item.name for item in PHRASES.iterdir() if item.name.endswith(".json")
    and item.name != "index.json"))
def test_each_file_is_a_list_of_valid_records(name: str) -> None:
    raw = json.loads(PHRASES.joinpath(name).read_text("utf-8"))
    assert isinstance(raw, dict) and isinstance(raw["entries"], list) and raw["entries"]
    problems = [p for n, rec in enumerate(raw["entries"])
                for p in record_problems(rec, f"{name}[{n}]")]
    assert problems == []


def test_at_least_400_entries(library: Library) -> None:
    assert len(library.phrases) >= 400


def test_engine_files_hold_at_least_210_entries(library: Library) -> None:
    assert sum(1 for p in library.phrases if p.source in ENGINE_FILES) >= 210


def test_ids_are_unique(library: Library) -> None:
    ids = [p.id for p in library.phrases]
    assert len(ids) == len(set(ids))


def test_every_entry_is_complete_in_both_languages(library: Library) -> None:
    for p in library.phrases:
        assert p.en.strip() and p.zh.strip() and p.note_en.strip() and p.note_zh.strip(), p.id
        assert any(is_cjk(c) for c in p.zh), p.id
        assert any(is_cjk(c) for c in p.note_zh), p.id
        assert not any(is_cjk(c) for c in p.en), p.id
        assert not any(is_cjk(c) for c in p.note_en), p.id


def test_slots_match_the_blanks_in_both_languages(library: Library) -> None:
    for p in library.phrases:
        assert set(slots_in(p.en)) == set(p.slots), p.id
        assert set(slots_in(p.zh)) == set(p.zh_slots), p.id
        assert len(set(p.slots)) == len(p.slots) == len(p.zh_slots) == len(set(p.zh_slots)), p.id


def test_chinese_phrases_have_chinese_blanks(library: Library) -> None:
    # a blank for a label or citation key (\cref{[ref]}, \citep{[refs]}) stays ASCII
    wrong = {p.id: [s for s in slots_in(p.zh) if not has_cjk(s)
                    and s not in {m.group(1) for m in LABEL_SLOT_RE.finditer(p.zh)}]
             for p in library.phrases}
    assert {k: v for k, v in wrong.items() if v} == {}


_LITERAL_REF_EN = re.compile(
    r"\b(?:Sections?|Fig(?:ure|\.)|Tables?|Appendix|Theorem|Lemma|Eqs?\.|Equation|Claim|"
    r"Proposition|Assumption|Corollary|Definition) \[")
_LITERAL_REF_ZH = re.compile(r"第\[[^\]]*\]节|(?:图|表|附录|定理|引理|命题|推论)\[")


def test_references_are_taught_as_cref(library: Library) -> None:
    literal = [p.id for p in library.phrases
               if _LITERAL_REF_EN.search(p.en) or _LITERAL_REF_ZH.search(p.zh)]
    assert literal == []
    assert sum("\\cref{" in p.en for p in library.phrases) >= 30


@pytest.mark.parametrize(("text", "found"), [
    ("The behaviour of the optimiser at initialisation.", ["behaviour", "optimiser",
                                                           "initialisation"]),
    ("We characterise it and analyse the modelled centre.", ["characterise", "analyse",
                                                             "modelled", "centre"]),
    ("Precise, otherwise a surprise; we revise and advise, likewise.", []),
    ("We characterize the behavior of the optimizer.", []),
    ("Unlabelled, levelled and fuelled; a colourful, favourite, honourable rumour.",
     ["Unlabelled", "levelled", "fuelled", "colourful", "favourite", "honourable", "rumour"]),
    ("A recognisable, generalisable, organisational parametrisation.",
     ["recognisable", "generalisable", "organisational", "parametrisation"]),
    ("The centre of the theatre, a grey catalogue, towards the fibre, whilst modelling.",
     ["centre", "theatre", "grey", "catalogue", "towards", "fibre", "whilst", "modelling"]),
    ("We praise the advertised treatise, cruise and appraise; controlled, compelled, installed.",
     []),
    ("Rigorous, humorous, our four hours; a tour of the contour; the analyses and hypotheses.",
     []),
])
def test_british_spelling_checker(text: str, found: list[str]) -> None:
    assert british_spellings(text) == found


_BRITISH_FORMS = (
    "behaviour behaviours behavioural colour coloured favour favourable neighbour neighbouring "
    "labour honour rigour vigour endeavour flavour humour rumour odour vapour tumour armour "
    "centre centred metre fibre litre theatre calibre meagre lustre sombre spectre manoeuvre "
    "modelling modelled modeller labelling labelled unlabelled travelling signalling cancelling "
    "cancelled tunnelling channelling levelled fuelled totalled counselling equalled "
    "analyse analysed analysing paralyse catalysed catalogue analogue dialogue monologue "
    "defence licence offence pretence practise practised judgement acknowledgement programme "
    "grey towards whilst amongst learnt spelt artefact sceptical ageing fulfil fulfilment enrol "
    "skilful wilful instalment focussed jewellery aeroplane aluminium sulphur encyclopaedia "
    "optimise optimised optimiser optimisation minimise maximise normalise normalisation "
    "initialise initialisation generalise generalisation regularise regularisation "
    "characterise characterisation recognise recognisable organise organisation realise "
    "summarise emphasise specialise stabilise visualise randomise tokenise tokeniser "
    "hypothesise parametrise parameterise linearise categorise prioritise utilise memorise "
    "analyser")
"""British forms the data files must not contain; every one must be caught by the checker."""


@pytest.mark.parametrize(("text", "found"), [
    ("A precize, otherwize pointwize surprize that revizes it.",
     ["precize", "otherwize", "pointwize", "surprize", "revizes"]),
    ("We characterize, organize and realize; the figsize, the citizen, the horizon, capsized.",
     []),
])
def test_overcorrected_spelling_checker(text: str, found: list[str]) -> None:
    assert overcorrected_spellings(text) == found


def test_every_listed_british_form_is_caught() -> None:
    words = _BRITISH_FORMS.split()
    assert british_spellings(" ".join(words)) == words


def _english_strings(value: object) -> list[str]:
    """Every English string of a data file (Chinese values and the ids are skipped, and so are
    a lens's bibliography entries: their titles are quoted as published, "Towards" included)."""
    if isinstance(value, str):
        return [] if has_cjk(value) else [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in ("zh", "references")
                for s in _english_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _english_strings(v)]
    return []


PROSE_FILES = sorted(
    [f"{folder}/{item.name}" for folder in ("phrases", "templates", "scaffolds")
     for item in DATA.joinpath(folder).iterdir() if item.name.endswith(".json")]
    + ["lenses.json", "roles.json"])
"""Every data file with user-facing prose: phrases, lenses, roles, templates and scaffolds."""


def test_prose_files_cover_templates_scaffolds_and_roles() -> None:
    assert {"templates/formula.json", "scaffolds/dynamics.json", "roles.json",
            "lenses.json", "phrases/connectives.json"} <= set(PROSE_FILES)
    assert len(PROSE_FILES) >= 45


@pytest.mark.parametrize("name", PROSE_FILES)
def test_american_spelling_in_data_files(name: str) -> None:
    data = json.loads(DATA.joinpath(name).read_text("utf-8"))
    british = sorted({w for s in _english_strings(data) for w in british_spellings(s)})
    assert british == []
    # and no word pushed past American (precise, otherwise, surprise keep their -ise)
    assert sorted({w for s in _english_strings(data) for w in overcorrected_spellings(s)}) == []


def test_no_blank_is_written_with_chinese_brackets(library: Library) -> None:
    for p in library.phrases:
        assert not re.search(r"[［【][A-Za-z]", p.zh), p.id


def test_every_required_function_is_covered(library: Library) -> None:
    required = _index()["required_functions"]
    assert required == list(library.required_functions)
    uncovered = [f for f in required if not any(in_subtree(p.function, f)
                                                for p in library.phrases)]
    assert uncovered == []


@pytest.mark.parametrize("function", [
    "title", "abstract", "introduction/raise-problem", "introduction/gap", "introduction/lens",
    "introduction/key-step", "introduction/contributions", "introduction/research-question",
    "impact", "limitations", "future"])
def test_engine_functions_have_several_phrases(library: Library, function: str) -> None:
    assert sum(1 for p in library.phrases if in_subtree(p.function, function)) >= 5


def test_lens_catalog_covers_the_lenses_of_design_section_1(library: Library) -> None:
    ids = {lens.id for lens in library.lenses}
    assert set(LENS_IDS) <= ids
    assert len(ids) >= 22


def test_lens_records_are_valid_and_searchable(library: Library) -> None:
    raw = json.loads(DATA.joinpath("lenses.json").read_text("utf-8"))
    problems = [p for n, rec in enumerate(raw["lenses"])
                for p in lens_problems(rec, f"lenses.json[{n}]")]
    assert problems == []
    for lens in library.lenses:
        phrase = library.get(f"lens-{lens.id}")
        assert phrase is not None and phrase.function == f"lens/{lens.id}"
        assert lens.closing_validation["en"] in phrase.note_en


@pytest.mark.parametrize("case", fixture_json("bad_records.json")["cases"],
                         ids=lambda c: c["name"])
def test_bad_records_are_reported(case: dict[str, Any]) -> None:
    problems = record_problems(case["record"], "fixture")
    assert any(case["problem"] in p for p in problems), problems


def test_a_good_record_has_no_problems() -> None:
    rec = {"id": "x-01", "function": "introduction/gap", "en": "For [model] and [factor A].",
           "zh": "对于[model]与[factor A]。", "slots": ["model", "factor A"],
           "note": {"en": "When.", "zh": "何时使用。"}}
    assert record_problems(rec, "ok") == []


def test_chinese_blanks_pair_with_english_blanks_by_position() -> None:
    rec = {"id": "x-02", "function": "introduction/gap",
           "en": "[Model] trained on [task], see \\cref{[ref]}.",
           "zh": "在[任务]上训练的[模型]，见\\cref{[ref]}。",
           "slots": ["Model", "task", "ref"], "slots_zh": ["模型", "任务", "ref"],
           "note": {"en": "When.", "zh": "何时使用。"}}
    assert record_problems(rec, "ok") == []
    phrase = library_from_records([rec]).phrases[0]
    assert dict(zip(phrase.slots, phrase.zh_slots, strict=True))["task"] == "任务"
    assert phrase.to_record()["slots_zh"] == ["模型", "任务", "ref"]


def test_lens_problems_are_reported() -> None:
    assert any("missing field 'phrase'" in p
               for p in lens_problems({"id": "x", "name": {"en": "X", "zh": "某"}}, "l"))
    bad = {"id": "x", "name": {"en": "X", "zh": "某"}, "description": {"en": "d", "zh": "描述"},
           "measures": {"en": "m", "zh": "度量"}, "closing_validation": {"en": "c", "zh": "验证"},
           "phrase": {"en": "For [model].", "zh": "对于模型。"}}
    assert any("blanks" in p for p in lens_problems(bad, "l"))
    ref = {"key": "wang2023ioi", "type": "inproceedings", "authors": ["Kevin Wang", "others"],
           "title": "T", "year": 2023, "venue": "ICLR", "arxiv": "2211.00593",
           "source": "https://example.org/2211.00593"}
    paired = dict(bad, phrase={"en": "For [model].", "zh": "对于[模型]。"},
                  validation_kind="intervention", references=[ref],
                  pitfalls={"en": "p", "zh": "陷阱"})
    assert lens_problems(paired, "l") == []
    assert any("validation_kind must be one of" in p
               for p in lens_problems(dict(paired, validation_kind="vibes"), "l"))


def test_data_licence_is_stated() -> None:
    licence = PHRASES.joinpath("LICENSE").read_text("utf-8")
    assert "CC BY 4.0" in licence and "mechnb developers" in licence


ZH_TERMS = {"断言": ("论断",), "非形式化": ("非正式",), "注": ("注记", "附注", "评注"),
            "证明概要": ("证明梗概", "证明提要", "证明草图", "证明思路"), "词元": ("令牌",),
            "闭式": ("闭合形式",), "缺口": ("空白",), "未来工作": ("后续工作",),
            "训练动力学": ("训练动态",), "已有工作": ("前人工作", "先前工作", "既有工作"),
            "干预": ("介入",), "真实模型": ("实际模型",), "注意力头": ("注意头",),
            "研究问题": ("研究疑问",)}
"""One Chinese term per concept: the term the role registry uses, and the variants it replaces.

``claim`` is 断言, ``informal`` 非形式化, ``remark`` 注 (a ``note`` cell, the authors' private
note, is 备注), ``gap`` 缺口, ``future work`` 未来工作."""


@pytest.mark.parametrize("name", PROSE_FILES)
def test_one_chinese_term_per_concept(name: str) -> None:
    text = DATA.joinpath(name).read_text("utf-8")
    assert [v for variants in ZH_TERMS.values() for v in variants if v in text] == []


def test_the_chosen_terms_are_the_role_registry_names() -> None:
    roles = json.loads(DATA.joinpath("roles.json").read_text("utf-8"))["roles"]
    displays = {r["name"]: r["latex"].get("display", r["latex"].get("heading", {})).get("zh")
                for r in roles}
    sketch = next(r["latex"]["sketch"]["zh"] for r in roles if r["name"] == "proof")
    assert sketch == "证明概要"
    assert {displays[r] for r in ("claim", "remark", "future", "question")} <= set(ZH_TERMS)
    assert displays["claim"] == "断言" and displays["remark"] == "注"


def test_the_informal_theorem_title_is_the_chosen_term() -> None:
    theorem = DATA.joinpath("templates/theorem.json").read_text("utf-8")
    assert "非形式化" in theorem


@pytest.mark.parametrize("text", ["需要实验支撑的非正式论断。", "见注记 1。", "留待后续工作。"])
def test_a_variant_term_is_caught(text: str) -> None:
    assert [v for variants in ZH_TERMS.values() for v in variants if v in text] != []
