"""Role templates: coverage of the registry, valid cells in both languages, the conventions."""

from __future__ import annotations

import json
import re
import warnings
from importlib import resources
from typing import Any

import nbformat
import pytest

from mechnb.cellspec import CellSpec
from mechnb.checker.evidence import PENDING_SENTINEL, pending_reasons
from mechnb.checker.paper import INTUITION as INTUITION_SENTENCE
from mechnb.errors import UsageError
from mechnb.notebook import EXPERIMENT_KINDS, paper_from_dict
from mechnb.phrases.model import LABEL_SLOT_RE, slots_in
from mechnb.roles import TAG_PREFIX, get_role, registry, role_names, with_obligation
from mechnb.templates import (
    DEFAULT_VARIANT,
    role_cells,
    template_roles,
    validation_cells,
    variants,
)

from .conftest import ids, notebook_of, role_variant_lang
from .texbalance import tex_problems

ALL = role_variant_lang()
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
TOKEN = re.compile(r"\{\{\s*\w+\s*\}\}")
TEMPLATE_KEYS = {"role", "aliases", "slots", "variants"}
CELL_KEYS = {"cell_type", "role", "source", "kind", "title", "caption", "validates", "primary"}


def _raw(role: str) -> dict[str, Any]:
    text = resources.files("mechnb").joinpath(f"data/templates/{role}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _cells(role: str, variant: str, lang: str, **kw: Any) -> list[CellSpec]:
    return role_cells(role, lang=lang, kind=None if variant == DEFAULT_VARIANT else variant, **kw)


# ---- coverage of the registry ---------------------------------------------------------------

def test_every_registry_role_has_a_template() -> None:
    missing = [r for r in role_names() if r not in template_roles()]
    assert missing == [], f"roles without a template file: {missing}"


@pytest.mark.parametrize("role", role_names())
def test_template_file_is_well_formed(role: str) -> None:
    data = _raw(role)
    assert data["role"] == role
    assert set(data) <= TEMPLATE_KEYS
    assert DEFAULT_VARIANT in data["variants"] or DEFAULT_VARIANT in data.get("aliases", {})
    for target in data.get("aliases", {}).values():
        assert target in data["variants"]
    for name, cells in data["variants"].items():
        assert cells, f"{role}/{name} has no cells"
        assert any(c["role"] == role for c in cells), f"{role}/{name} has no {role} cell"
        for cell in cells:
            assert set(cell) <= CELL_KEYS, set(cell) - CELL_KEYS
            assert cell["cell_type"] in ("markdown", "code")
            assert get_role(cell["role"]) is not None
            assert set(cell["source"]) == {"en", "zh"}
            if "kind" in cell and cell["role"] == "experiment":
                assert cell["kind"] in EXPERIMENT_KINDS


def test_default_variant_comes_first() -> None:
    assert variants("experiment")[0] == DEFAULT_VARIANT
    # the kinds, plus the construction check (expressivity), localizing a failure, repeating
    # over seeds and comparing with baselines
    assert set(variants("experiment")) == {DEFAULT_VARIANT, *EXPERIMENT_KINDS, "construction",
                                           "localize", "seeds", "baseline"}


# ---- every variant in both languages --------------------------------------------------------

@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_cells_validate_with_nbformat(role: str, variant: str, lang: str) -> None:
    cells = _cells(role, variant, lang)
    nb = notebook_of(cells, lang)
    nbformat.validate(nbformat.from_dict(nb), version=4)
    assert nb["nbformat_minor"] == 5
    assert all(c["id"] for c in nb["cells"])


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_metadata_roles_are_registry_roles_mirrored_by_tags(role: str, variant: str,
                                                            lang: str) -> None:
    cells = _cells(role, variant, lang)
    assert role in [c.role for c in cells]
    for cell in cells:
        mech = cell.metadata["mechnb"]
        assert get_role(mech["role"]) is not None
        assert cell.metadata["tags"] == [TAG_PREFIX + mech["role"]]
    # the reader of the notebook format agrees: no malformed-metadata findings
    paper = paper_from_dict(notebook_of(cells, lang))
    assert list(paper.findings) == []
    assert [c.role for c in paper.cells] == [c.role for c in cells]


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_no_token_is_left_and_tex_balances(role: str, variant: str, lang: str) -> None:
    for cell in _cells(role, variant, lang):
        texts = [cell.source, str(cell.metadata["mechnb"].get("caption", ""))]
        for text in texts:
            assert not TOKEN.search(text), f"unsubstituted token in {text!r}"
        if cell.cell_type == "markdown":
            assert tex_problems(cell.source) == []
        assert tex_problems(texts[1]) == []


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_language_of_the_source(role: str, variant: str, lang: str) -> None:
    for cell in _cells(role, variant, lang):
        if lang == "zh":
            assert CJK.search(cell.source), f"zh source without Chinese: {cell.source!r}"
        else:
            assert not CJK.search(cell.source), f"en source with CJK: {cell.source!r}"
            caption = cell.metadata["mechnb"].get("caption", "")
            assert not CJK.search(caption)


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_templates_have_slots_to_fill(role: str, variant: str, lang: str) -> None:
    """Fill-in-the-blank: every template offers at least one [slot] (or a label blank)."""
    text = "\n".join(c.source for c in _cells(role, variant, lang))
    assert re.search(r"\[[^\]\n]+\]", text)


CODE = [(r, v, lang) for r, v, lang in ALL
        if any(c.cell_type == "code" for c in _cells(r, v, lang))]


@pytest.mark.parametrize(("role", "variant", "lang"), CODE, ids=ids(CODE))
def test_code_cells_compile_and_run(role: str, variant: str, lang: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for cell in _cells(role, variant, lang, validates=["thm:main"]):
        if cell.cell_type != "code":
            continue
        code = compile(cell.source, f"<{role}-{variant}-{lang}>", "exec")
        namespace: dict[str, Any] = {"__name__": "__template__"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # plt.show() on the Agg backend
            exec(code, namespace)
        assert plt.get_fignums(), "the skeleton draws no figure"
        plt.close("all")


# ---- labels, titles and tokens --------------------------------------------------------------

@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_label_goes_to_one_cell_of_the_role(role: str, variant: str, lang: str) -> None:
    found = registry()[role]
    label = f"{found.label_prefix or 'x'}:probe"
    cells = _cells(role, variant, lang, label=label, title="Probe title")
    labelled = [c for c in cells if c.metadata["mechnb"].get("label")]
    assert len(labelled) == 1
    assert labelled[0].role == role
    assert labelled[0].metadata["mechnb"]["label"] == label
    assert labelled[0].metadata["mechnb"]["title"] == "Probe title"
    raw_sources = [json.dumps(c["source"]) for c in _raw_variant(role, variant)]
    for cell, raw in zip(cells, raw_sources, strict=True):
        if "{{label}}" in raw:
            assert label in cell.source


def _raw_variant(role: str, variant: str) -> list[dict[str, Any]]:
    data = _raw(role)
    name = data.get("aliases", {}).get(variant, variant)
    cells: list[dict[str, Any]] = data["variants"][name]
    return cells


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_without_a_label_tokens_become_visible_blanks(role: str, variant: str,
                                                      lang: str) -> None:
    cells = _cells(role, variant, lang)
    assert all("label" not in c.metadata["mechnb"] for c in cells)
    prefix = registry()[role].label_prefix
    for cell, raw in zip(cells, _raw_variant(role, variant), strict=True):
        if "{{label}}" in json.dumps(raw["source"]):
            assert f"{prefix}:[name]" in cell.source


def test_label_is_substituted_into_tex() -> None:
    [cell] = role_cells("formula", label="eq:attn")
    assert "\\label{eq:attn}" in cell.source
    assert cell.metadata == {"mechnb": {"role": "formula", "label": "eq:attn"},
                             "tags": ["mech:formula"]}


def test_title_role_uses_the_given_title() -> None:
    [cell] = role_cells("title", title="Induction Heads through the Lens of Dynamics")
    assert cell.source == "# Induction Heads through the Lens of Dynamics"
    [blank] = role_cells("title", lang="zh")
    assert blank.source.startswith("# [") and CJK.search(blank.source)


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_prose_has_no_tex_only_spacing(role: str, variant: str, lang: str) -> None:
    """Markdown prints ``~`` and ``\\ `` literally; references use ``\\cref`` instead."""
    for cell in _cells(role, variant, lang):
        if cell.cell_type == "markdown":
            prose = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", "",
                           cell.source, flags=re.S)
            assert "~" not in prose and "\\ " not in prose, prose


# ---- the conventions the templates teach ----------------------------------------------------

FORMULA = [(v, lang) for v in variants("formula") for lang in ("en", "zh")]
EXPLAIN = {"en": "Here, ", "zh": "其中，"}
INTUITION = {"en": "Intuitively, ", "zh": "直观上，"}


@pytest.mark.parametrize(("variant", "lang"), FORMULA, ids=ids(FORMULA))
def test_formula_brings_motivation_equation_explanation_intuition_transition(
        variant: str, lang: str) -> None:
    [cell] = _cells("formula", variant, lang, label="eq:key")
    assert cell.role == "formula"
    paragraphs = [p.strip() for p in cell.source.split("\n\n") if p.strip()]
    motivation, equation, explanation, intuition, transition = paragraphs
    assert not motivation.startswith("\\") and motivation.endswith((".", "。"))
    assert re.match(r"\\begin\{(equation|align)\}", equation)
    assert "\\label{eq:key}" in equation
    assert explanation.startswith(EXPLAIN[lang]) and ("denotes" in explanation
                                                       or "表示" in explanation)
    assert intuition.startswith(INTUITION[lang]) or INTUITION_SENTENCE.search(intuition)
    assert "\\cref{" in transition


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_formula_variants_do_not_repeat_their_intuition_or_transition(lang: str) -> None:
    closing = [[p.strip() for p in _cells("formula", v, lang, label="eq:key")[0].source
                .split("\n\n") if p.strip()][3:] for v in variants("formula")]
    assert len({c[0] for c in closing}) == len(closing)
    assert len({c[1] for c in closing}) == len(closing)


STATEMENTS = [(r.name, v, lang) for r in with_obligation("needs-interpretation")
              for v in variants(r.name) for lang in ("en", "zh")]


@pytest.mark.parametrize(("role", "variant", "lang"), STATEMENTS, ids=ids(STATEMENTS))
def test_statement_is_followed_by_its_interpretation(role: str, variant: str,
                                                     lang: str) -> None:
    label = f"{registry()[role].label_prefix}:main"
    cells = _cells(role, variant, lang, label=label)
    assert [c.role for c in cells] == [role, "interpretation"]
    assert f"\\cref{{{label}}}" in cells[1].source


def test_theorem_informal_has_a_title_and_points_to_the_appendix() -> None:
    cells = role_cells("theorem", kind="informal", label="thm:main")
    assert cells[0].metadata["mechnb"]["title"] == "Informal"
    assert "\\cref{app:[name]}" in cells[0].source


@pytest.mark.parametrize("kind", EXPERIMENT_KINDS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_experiment_kinds_bring_markdown_and_a_declaring_code_cell(kind: str, lang: str) -> None:
    cells = role_cells("experiment", kind=kind, lang=lang, validates=["thm:main"],
                       label="exp:probe")
    assert [c.cell_type for c in cells] == ["markdown", "code"]
    for cell in cells:
        mech = cell.metadata["mechnb"]
        assert mech["role"] == "experiment" and mech["kind"] == kind
        assert mech["validates"] == ["thm:main"]
    code = cells[1]
    assert code.source.splitlines()[0] == f"# validates: thm:main ({kind})"
    assert code.metadata["mechnb"]["label"] == "exp:probe"
    assert "thm:main" in code.metadata["mechnb"]["caption"]
    # the text refers to the figure with \\cref (until the cell runs, the PDF prints the label
    # as a visible placeholder, [exp:probe]: tests/exporter/test_desk_small_things.py)
    assert "\\cref{exp:probe}" in cells[0].source
    assert "exp:probe]" not in cells[0].source
    # pending until it measures something: the sentinel, no made-up data, caught by MECH046
    assert PENDING_SENTINEL.match(code.source.splitlines()[1])
    assert "rng" not in code.source and "random" not in code.source
    assert pending_reasons(code.source)
    compile(code.source, f"<{kind}>", "exec")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_intervention_states_change_fixed_and_prediction(lang: str) -> None:
    text = role_cells("experiment", kind="intervention", lang=lang)[0].source
    words = {"en": ("**Changed:**", "**Kept fixed:**", "**Prediction:**"),
             "zh": ("**改变的：**", "**保持不变的：**", "**预测：**")}[lang]
    positions = [text.index(w) for w in words]
    assert positions == sorted(positions)


def test_experiment_default_is_controlled() -> None:
    assert role_cells("experiment")[0].metadata["mechnb"]["kind"] == "controlled"


@pytest.mark.parametrize("kind", EXPERIMENT_KINDS)
def test_validation_cells_declare_what_they_validate(kind: str) -> None:
    cells = validation_cells("clm:root", kind=kind)
    assert all(c.metadata["mechnb"]["validates"] == ["clm:root"] for c in cells)
    assert all(c.metadata["mechnb"]["kind"] == kind for c in cells)
    code = [c for c in cells if c.cell_type == "code"]
    assert len(code) == 1
    assert code[0].source.startswith(f"# validates: clm:root ({kind})")
    assert code[0].metadata["mechnb"]["label"] == f"exp:root-{kind}"
    assert "\\cref{clm:root}" in cells[0].source


def test_proof_sketch_points_to_the_appendix() -> None:
    [proof] = role_cells("proof", validates=["thm:main"])
    assert proof.metadata["mechnb"]["kind"] == "sketch"
    assert "We prove \\cref{thm:main}" in proof.source
    assert "\\cref{app:[name]}" in proof.source


def test_question_is_one_question() -> None:
    for variant in variants("question"):
        for lang, mark in (("en", "?"), ("zh", "？")):
            [cell] = _cells("question", variant, lang)
            assert cell.source.strip().endswith(mark) and "\n" not in cell.source.strip()


def test_limitations_state_scope() -> None:
    [cell] = role_cells("limitations")
    assert "covers" in cell.source and "does not explain" in cell.source


# ---- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("call", "message"), [
    (lambda: role_cells("theorm"), "did you mean 'theorem'"),
    (lambda: role_cells("zzz"), "Roles: title, abstract"),
    (lambda: role_cells("theorem", kind="formal-ish"), "choose one of default, informal"),
    (lambda: role_cells("theorem", lang="fr"), "unknown language 'fr'"),
    (lambda: variants("experimnt"), "did you mean 'experiment'"),
    (lambda: validation_cells("thm:main", kind="observational"), "unknown experiment kind"),
    (lambda: validation_cells("  "), "needs the label"),
], ids=["misspelt-role", "unknown-role", "unknown-variant", "unknown-lang", "variants-misspelt",
        "unknown-experiment-kind", "empty-target"])
def test_errors_say_what_to_do(call: Any, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        call()


def test_cells_are_fresh_each_call() -> None:
    first = role_cells("experiment", validates=["thm:a"])
    first[1].metadata["mechnb"]["validates"].append("thm:b")
    again = role_cells("experiment", validates=["thm:a"])
    assert again[1].metadata["mechnb"]["validates"] == ["thm:a"]


@pytest.mark.parametrize(("role", "variant", "lang"), ALL, ids=ids(ALL))
def test_validates_reaches_exactly_the_flagged_cells(role: str, variant: str, lang: str) -> None:
    cells = _cells(role, variant, lang, validates=["thm:main"])
    for cell, raw in zip(cells, _raw_variant(role, variant), strict=True):
        expected = ["thm:main"] if raw.get("validates") else None
        assert cell.metadata["mechnb"].get("validates") == expected
    assert all("validates" not in c.metadata["mechnb"] for c in _cells(role, variant, lang))


def test_user_text_is_not_expanded_again() -> None:
    [cell] = role_cells("title", title="Why {{label}} and \\ref{{{target}}} stay as typed")
    assert cell.source == "# Why {{label}} and \\ref{{{target}}} stay as typed"
    # TeX braces next to a token are kept: \label{{{label}}} -> \label{eq:a}
    assert "\\label{eq:a}\n" in role_cells("formula", label="eq:a")[0].source


_LABEL_BLANK = re.compile(r"[a-z]+:\[[^\]]*\]")
"""A blank inside a label (``thm:[main]``, ``exp:[figure]``): ASCII in both languages, as is a
label blank ``\\cref{[target]}``."""


@pytest.mark.parametrize(("role", "variant"), sorted({(r, v) for r, v, _ in role_variant_lang()}),
                         ids=ids(sorted({(r, v) for r, v, _ in role_variant_lang()})))
def test_chinese_prose_has_chinese_blanks(role: str, variant: str) -> None:
    """``[现象]``, not ``[phenomenon]``, in the markdown of a Chinese template (issue 13)."""
    for cell in _cells(role, variant, "zh"):
        if cell.cell_type != "markdown":
            continue  # plot text stays ASCII: matplotlib's default font has no CJK glyphs
        text = LABEL_SLOT_RE.sub("", _LABEL_BLANK.sub("", cell.source))
        ascii_blanks = [s for s in slots_in(text) if not CJK.search(s)]
        assert ascii_blanks == [], cell.source
