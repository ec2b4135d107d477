"""``mechnb lenses``: the lens catalog on the command line, and the lenses issue 24 asked for."""

from __future__ import annotations

import json
from io import StringIO

from mechnb.cli import main
from mechnb.phrases.lenscell import lens_cells
from mechnb.phrases.library import load_library

ASKED_FOR = ("superposition", "progress-measures", "qk-ov-circuits", "path-patching",
             "causal-scrubbing", "causal-abstraction", "steering-vectors", "sparse-dictionaries",
             "residual-ode", "particle-splitting", "wasserstein-flow", "attention-noise",
             "prompting-as-computation", "sparse-probing", "value-norm-attribution")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_catalog_has_the_lenses_of_mainstream_practice_and_of_the_architecture() -> None:
    ids = {lens.id for lens in load_library().lenses}
    assert set(ASKED_FOR) <= ids
    for lens in load_library().lenses:  # what it reveals, what it measures, how it closes
        assert all(lens.measures[lang] and lens.description[lang] and
                   lens.closing_validation[lang] for lang in ("en", "zh")), lens.id
    circuit = next(lens for lens in load_library().lenses if lens.id == "circuit-analysis")
    for word in ("faithfulness", "completeness", "minimality"):
        assert word in circuit.closing_validation["en"]
    for word in ("忠实性", "完备性", "极小性"):
        assert word in circuit.closing_validation["zh"]


def test_every_new_lens_inserts_a_template_cell() -> None:
    for lens_id in ASKED_FOR:
        cells = lens_cells(lens_id, lang="en")
        assert cells and "[" in cells[0].source, lens_id


def test_query_text_and_json() -> None:
    code, out, _ = run("lenses", "patching")
    assert code == 0
    assert "attribution-patching — Attribution patching\n" in out
    assert "path-patching — Path patching" in out and "%mech lens --kind path-patching" in out
    assert "  measures: logit difference recovered by patching each path" in out
    code, out, _ = run("lenses", "叠加", "--lang", "zh", "--format", "json")
    found = json.loads(out)
    assert {lens["id"] for lens in found} == {"superposition", "sparse-probing"}
    assert set(found[0]) == {"id", "name", "reveals", "measures", "closing_validation",
                             "phrase", "validation_kind", "pitfalls", "references", "cite",
                             "cell"}
    assert found[0]["cite"] == ["elhage2022superposition"]
    assert found[0]["references"][0]["url"] == "https://arxiv.org/abs/2209.10652"
    code, _, err = run("lenses", "no-such-lens-anywhere")
    assert code == 1 and "mechnb lenses" in err
