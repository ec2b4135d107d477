"""Scaffolds: a whole paper of each type, in order, with consistent labels, that checks clean."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from mechnb.cellspec import CellSpec
from mechnb.errors import UsageError
from mechnb.findings import Severity
from mechnb.notebook import paper_from_dict
from mechnb.roles import TAG_PREFIX, get_role
from mechnb.templates import paper_types, scaffold_cells, scaffold_description, scaffold_notebook

from .conftest import ids, paper_type_lang
from .texbalance import tex_problems

ALL = paper_type_lang()
LABEL = re.compile(r"\\label\{([^}]*)\}")
REF = re.compile(r"\\(?:ref|eqref|cref|Cref)\{([^}]*)\}")
MAIN = {"expressivity": "thm:main", "dynamics": "thm:main", "failure": "clm:main"}
INTRO = {"en": "# Introduction", "zh": "# 引言"}


def _roles(cells: list[CellSpec]) -> list[str | None]:
    return [c.role for c in cells]


def _labels(cells: list[CellSpec]) -> dict[str, list[int]]:
    """Label → cells defining it (metadata label and the cell's own \\label count once)."""
    found: dict[str, list[int]] = {}
    for i, cell in enumerate(cells):
        names = set(LABEL.findall(cell.source)) if cell.cell_type == "markdown" else set()
        if cell.metadata.get("mechnb", {}).get("label"):
            names.add(cell.metadata["mechnb"]["label"])
        for name in names:
            found.setdefault(name, []).append(i)
    return found


def _index(cells: list[CellSpec], role: str, *, label: str | None = None,
           kind: str | None = None) -> int:
    for i, cell in enumerate(cells):
        mech = cell.metadata.get("mechnb", {})
        if cell.role == role and (label is None or mech.get("label") == label) and (
                kind is None or mech.get("kind") == kind):
            return i
    raise AssertionError(f"no {role} {label or ''} {kind or ''} cell")


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_scaffold_notebook_validates(paper_type: str, lang: str) -> None:
    nb = scaffold_notebook(paper_type, lang=lang, title="A Probe")
    nbformat.validate(nbformat.from_dict(nb), version=4)
    assert (nb["nbformat"], nb["nbformat_minor"]) == (4, 5)
    assert nb["metadata"]["mechnb"] == {"title": "A Probe", "lang": lang,
                                        "paper_type": paper_type}
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    # the first cell loads the magics (a new kernel, or one restarted, has not), the title next
    assert nb["cells"][0]["cell_type"] == "code"
    assert nb["cells"][0]["source"].splitlines()[-1] == "%load_ext mechnb"
    assert "mechnb" not in nb["cells"][0]["metadata"]  # a working cell: never exported
    assert nb["cells"][1]["source"] == "# A Probe"
    assert len({c["id"] for c in nb["cells"]}) == len(nb["cells"])
    paper = paper_from_dict(nb)
    assert list(paper.findings) == []
    assert paper.meta.paper_type == paper_type and paper.lang == lang


def test_without_a_title_the_metadata_has_none() -> None:
    nb = scaffold_notebook("dynamics")
    assert "title" not in nb["metadata"]["mechnb"]
    assert nb["cells"][1]["source"].startswith("# ") and "[" in nb["cells"][1]["source"]


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_every_cell_is_valid(paper_type: str, lang: str) -> None:
    cells = scaffold_cells(paper_type, lang=lang)
    cjk = re.compile(r"[\u3400-\u9fff]")
    for cell in cells:
        if cell.role is None:  # section openers before an environment cell: a heading only
            assert cell.cell_type == "markdown" and re.fullmatch(r"# [^\n]+", cell.source)
            assert cell.metadata == {}
            continue
        assert get_role(cell.role) is not None
        assert cell.metadata["tags"] == [TAG_PREFIX + cell.role]
        assert "{{" not in cell.source
        assert bool(cjk.search(cell.source)) == (lang == "zh")
        if cell.cell_type == "markdown":
            assert tex_problems(cell.source) == []
        else:
            compile(cell.source, f"<{paper_type}>", "exec")


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_labels_are_unique_and_every_reference_resolves(paper_type: str, lang: str) -> None:
    cells = scaffold_cells(paper_type, lang=lang)
    labels = _labels(cells)
    assert {k: v for k, v in labels.items() if len(v) > 1} == {}
    assert "[" not in "".join(labels), "a scaffold leaves no blank labels"
    for cell in cells:
        mech = cell.metadata.get("mechnb", {})
        for target in mech.get("validates", []):
            assert target in labels, f"validates {target} is not defined"
        texts = [cell.source, mech.get("caption", "")] if cell.cell_type == "markdown" \
            else [mech.get("caption", "")]
        for text in texts:
            for ref in REF.findall(text):
                assert ref in labels, f"\\ref{{{ref}}} is not defined"


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_the_argument_runs_in_order(paper_type: str, lang: str) -> None:
    cells = scaffold_cells(paper_type, lang=lang)
    roles = _roles(cells)
    main = MAIN[paper_type]
    assert roles[:2] == ["title", "abstract"]
    assert cells[2].role == "context" and cells[2].source.startswith(INTRO[lang] + "\n")
    order = [roles.index(r) for r in ("context", "prior", "gap", "lens", "contributions",
                                      "question", "setup")]
    assert order == sorted(order)
    assert roles.index("setup") == roles.index("question") + 1  # question closes the intro
    statement = _index(cells, main.split(":")[0].replace("thm", "theorem").replace(
        "clm", "claim"), label=main)
    assert roles[statement + 1] == "interpretation"
    assert roles.index("setup") < statement < roles.index("mechanism")
    experiments = [i for i, r in enumerate(roles) if r == "experiment"]
    assert roles.index("mechanism") < experiments[0]
    kinds = {cells[i].metadata["mechnb"]["kind"] for i in experiments}
    # an expressivity paper checks its construction; it trains nothing and claims no real model
    assert {"controlled", "intervention"} <= kinds if paper_type != "expressivity" \
        else kinds == {"controlled"}
    for i in experiments:
        assert cells[i].metadata["mechnb"]["validates"], "every experiment validates something"
    assert paper_type == "expressivity" or any(
        main in cells[i].metadata["mechnb"]["validates"] for i in experiments
        if cells[i].metadata["mechnb"]["kind"] == "intervention")
    tail = roles[experiments[-1] + 1:]
    # results, the alternatives they rule out, related work, then the discussion
    assert tail[:8] == ["result", "remark", "prior", "implication", "limitations", "future",
                        "conclusion", "appendix"]
    assert set(tail[8:]) <= {"proof"}


SKELETONS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "expressivity": [("definition", {"label": "def:language"}),
                     ("remark", {"label": "rem:example"}),
                     ("theorem", {"label": "thm:main"}), ("proof", {"kind": "sketch"})],
    "dynamics": [("definition", {"label": "def:model"}), ("formula", {"label": "eq:objective"}),
                 ("formula", {"label": "eq:update"}), ("theorem", {"label": "thm:main"}),
                 ("interpretation", {})],
    "failure": [("setup", {}), ("claim", {"label": "clm:main"}),
                ("formula", {"label": "eq:propagation"}), ("remark", {"label": "rem:scope"}),
                ("experiment", {"kind": "controlled"})],
}


@pytest.mark.parametrize("paper_type", paper_types())
def test_type_specific_skeleton(paper_type: str) -> None:
    """DESIGN.md §1: e.g. dynamics = model definition → objective → update → informal theorem."""
    cells = scaffold_cells(paper_type)
    positions = [_index(cells, role, **kw) for role, kw in SKELETONS[paper_type]]
    assert positions == sorted(positions)


def test_dynamics_theorem_is_informal_and_expressivity_proof_is_sketched() -> None:
    dyn = scaffold_cells("dynamics")
    assert dyn[_index(dyn, "theorem")].metadata["mechnb"]["title"] == "Informal"
    expr = scaffold_cells("expressivity", lang="zh")
    proof = expr[_index(expr, "proof", kind="sketch")]
    assert proof.metadata["mechnb"]["validates"] == ["thm:main"]
    assert "\\cref{app:proofs}" in proof.source


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_the_checker_finds_no_error_in_a_scaffold(paper_type: str, lang: str) -> None:
    """The closing-loop checks see a closed argument; only blanks and unrun cells remain."""
    from mechnb.checker import check

    paper = paper_from_dict(scaffold_notebook(paper_type, lang=lang))
    findings = check(paper)
    experiments = [c.index for c in paper.cells if c.role == "experiment" and not c.is_markdown]
    # the only errors: template experiments are pending until they plot real measurements,
    # and have not been run (an unrun experiment validates nothing)
    errors = sorted((f.code, f.cell) for f in findings if f.severity == Severity.ERROR)
    assert errors == sorted([("MECH046", i) for i in experiments]
                            + [("MECH007", i) for i in experiments])
    assert any(f.name == "unfilled-placeholder" for f in findings)


def test_description_and_unknown_type() -> None:
    assert "succinct" in scaffold_description("expressivity")
    assert "简洁" in scaffold_description("expressivity", "zh")
    with pytest.raises(UsageError, match="unknown paper type 'survey'; choose one of "
                                         "expressivity, dynamics, failure"):
        scaffold_cells("survey")


TITLE_PATTERNS = {"dynamics": ("How Do [Model Class] Learn", "如何学会"),
                  "failure": ("Why [Method] Fails", "为何失效"),
                  "expressivity": ("Exponentially More Succinctly", "指数级更简洁")}


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_each_type_has_its_own_title_pattern(paper_type: str, lang: str) -> None:
    title = scaffold_cells(paper_type, lang=lang)[0].source
    assert TITLE_PATTERNS[paper_type][lang == "zh"] in title
    given = scaffold_cells(paper_type, lang=lang, title="A Given Title")[0].source
    assert given == "# A Given Title"


TRAINING_WORDS = {"en": re.compile(r"\btrain(?:ed|ing|s)?\b|training step|optimizer"),
                  "zh": re.compile(r"训练|优化器")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_expressivity_scaffold_trains_nothing(lang: str) -> None:
    """Its experiments implement the proof's construction; nothing is trained, no real model
    is promised (the review found a copied training experiment)."""
    cells = scaffold_cells("expressivity", lang=lang)
    for cell in cells:
        if cell.role in ("experiment", "result", "limitations"):
            found = [m.group(0) for m in TRAINING_WORDS[lang].finditer(cell.source)]
            assert cell.role == "limitations" or not found, (cell.role, found)
        assert "real-model" not in json.dumps(cell.metadata)
    assert "real-model experiments" not in " ".join(c.source for c in cells)


INSTRUCTIONS = re.compile(r"\byour\b|\byou\b|once it shows|delete this|待它|你的|删除")


@pytest.mark.parametrize(("paper_type", "lang"), ALL, ids=ids(ALL))
def test_no_tool_instruction_reaches_the_paper(paper_type: str, lang: str) -> None:
    """Instructions live in note cells and code comments; the text that reaches the PDF (the
    markdown of every role but `note`) addresses the reader of the paper."""
    for cell in scaffold_cells(paper_type, lang=lang):
        if cell.cell_type == "markdown" and cell.role != "note":
            found = INSTRUCTIONS.search(cell.source)
            assert found is None, (cell.role, cell.source[max(0, found.start() - 40):][:120])


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("role", ["abstract", "context", "prior", "assumption"])
def test_each_paper_type_has_its_own_framing_cells(role: str, lang: str) -> None:
    """A dynamics, a failure and an expressivity paper are argued differently: their abstract,
    context, prior-work and assumption cells differ (issue 40), and no abstract leans on the
    one stock contrast ("not merely X but the interaction of A and B")."""
    texts = {}
    for paper_type in paper_types():
        cells = [c for c in scaffold_cells(paper_type, lang=lang) if c.role == role]
        assert cells, (paper_type, role)
        texts[paper_type] = "\n".join(c.source for c in cells)
    assert len(set(texts.values())) == len(texts), f"two paper types share their {role} cell"
    if role == "abstract":
        for paper_type, text in texts.items():
            assert "not merely" not in text and "并不只是" not in text, paper_type


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_failure_scaffold_has_a_mechanistic_variant(lang: str, tmp_path: Path) -> None:
    """A failure need not be numerical: ``--variant mechanistic`` scaffolds a circuit component
    that misfires (issue 40). Its framing differs from the numerical one, it localizes by
    patching and adds seeds and baselines, and the checker sees a closed argument."""
    from mechnb.checker import check
    from mechnb.cli import main
    from mechnb.templates import scaffold_variants

    assert scaffold_variants("failure") == ["mechanistic"]
    numeric = scaffold_cells("failure", lang=lang)
    mech = scaffold_cells("failure", lang=lang, variant="mechanistic")
    for role in ("title", "abstract", "context", "prior", "gap", "lens", "question",
                 "assumption", "implication", "limitations", "conclusion"):
        ours = [c.source for c in mech if c.role == role]
        assert ours and ours != [c.source for c in numeric if c.role == role], role
    assert not any("mantissa" in c.source or "rounding" in c.source.lower() for c in mech)
    kinds = [c.metadata["mechnb"].get("kind") for c in mech if c.role == "experiment"]
    assert {"intervention", "ablation", "real-model", "controlled"} <= set(kinds)
    labels = _labels(mech)
    assert {"exp:seeds", "exp:baseline", "rem:alternatives"} <= set(labels)
    assert all(len(where) == 1 for where in labels.values())
    refs = {r for c in mech if c.cell_type == "markdown" for r in REF.findall(c.source)}
    assert refs <= set(labels), refs - set(labels)

    path = tmp_path / "paper.ipynb"
    out, err = io.StringIO(), io.StringIO()
    assert main(["new", "failure", str(path), "--variant", "mechanistic", "--lang", lang],
                out, err) == 0, err.getvalue()
    assert "failure, mechanistic" in out.getvalue()
    nb = json.loads(path.read_text("utf-8"))
    assert nb["metadata"]["mechnb"]["paper_type"] == "failure"
    paper = paper_from_dict(nb)
    experiments = [c.index for c in paper.cells if c.role == "experiment" and not c.is_markdown]
    errors = sorted((f.code, f.cell) for f in check(paper) if f.severity == Severity.ERROR)
    assert errors == sorted([("MECH046", i) for i in experiments]
                            + [("MECH007", i) for i in experiments])


def test_an_unknown_scaffold_variant_names_the_known_ones() -> None:
    with pytest.raises(UsageError, match="unknown variant 'numeric' of the failure scaffold; "
                                         "choose one of mechanistic"):
        scaffold_cells("failure", variant="numeric")
    with pytest.raises(UsageError, match="of the dynamics scaffold \\(it has none\\)"):
        scaffold_cells("dynamics", variant="mechanistic")


@pytest.mark.parametrize("paper_type", ["dynamics", "failure", "expressivity"])
def test_every_scaffold_has_related_work_and_alternatives(paper_type: str) -> None:
    """Units a reviewer asks for (issue 40): a related-work section and the alternative
    explanations ruled out; trained runs also get seeds with their spread and baselines."""
    cells = scaffold_cells(paper_type)
    assert any(c.source.startswith("# Related work") for c in cells if c.role == "prior")
    labels = _labels(cells)
    assert "rem:alternatives" in labels
    assert ({"exp:seeds", "exp:baseline"} <= set(labels)) is (paper_type != "expressivity")
