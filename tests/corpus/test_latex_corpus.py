"""The 26 real LaTeX papers and theses of ``../shared/corpus/latex`` (read from there, never
copied): ML theory, LLM analysis, interpretability, four in Chinese, nested inputs, hundreds of
macros, restated theorems, TikZ, algorithms, subfigures, verbatim prompts, text after
``\\end{document}``, a ``.bbl`` without a ``.bib``, thesis classes that bring their own theorem
environments — and no style files or figures.

Asserted for every paper: ``mechnb check`` runs without a traceback and puts every finding at a
file of the paper and a line; ``mechnb import`` writes a notebook whose export keeps every label
(that TeX sees), every citation key and every theorem-like statement of the source. What the
reader must find (labels, citations, statements per role) is the project's own data,
``tests/fixtures/corpus/latex_expected.json`` (``python tests/corpus/test_latex_corpus.py``
rewrites it from the current reader; review the diff).
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
LATEX = REPO.parent / "shared" / "corpus" / "latex"
EXPECTED = REPO / "tests" / "fixtures" / "corpus" / "latex_expected.json"
LABEL = re.compile(r"\\label\s*\{([^{}]*)\}")
CITE = re.compile(r"\\(?:[A-Za-z]*cite[a-zA-Z]*|Cite[a-z]*)\*?(?:\s*\[[^\]]*\]){0,2}"
                  r"\s*\{([^{}]*)\}")
STATEMENTS = ("theorem", "lemma", "proposition", "corollary", "claim", "definition",
              "assumption", "remark")

pytestmark = pytest.mark.corpus


def papers() -> list[str]:
    if not (LATEX / "corpus.tsv").exists():
        return []
    rows = (LATEX / "corpus.tsv").read_text().splitlines()[1:]
    return [row.split("\t")[0] for row in rows if row.strip()]


def _keys(text: str) -> set[str]:
    return {k.strip() for m in CITE.finditer(text) for k in m.group(1).split(",") if k.strip()}


def _statements(text: str, theorems: dict[str, str], exported: bool) -> dict[str, int]:
    from mechnb.latexin.preamble import NOT_THEOREMS, role_for

    counts: collections.Counter[str] = collections.Counter()
    names = dict(theorems)
    for env in set(re.findall(r"\\begin\s*\{([A-Za-z]+)\}", text)) - set(names) - NOT_THEOREMS:
        names[env] = role_for(env) or "other"  # environments a thesis class provides
    if exported:  # the export writes each role's own environment
        names.update({role: role for role in STATEMENTS})
    for env, role in names.items():
        if role in STATEMENTS and "@" not in env:  # (internal: used by definitions only)
            counts[role] += len(re.findall(r"\\begin\s*\{" + re.escape(env) + r"\}", text))
    return {k: v for k, v in sorted(counts.items()) if v}


def measure(key: str, out_dir: Path) -> dict[str, Any]:
    """What the reader finds in paper ``key`` and what its imported notebook exports."""
    from mechnb.exporter.api import render
    from mechnb.latexin.importer import import_latex
    from mechnb.latexin.reader import read_latex
    from mechnb.notebook import read_paper
    from mechnb.tex.comments import mask_comments

    paper = read_latex(LATEX / key)
    body = paper.source.text[paper.body_start:]
    end = re.search(r"\\end\s*\{document\}", body)
    source = mask_comments(body[:end.start()] if end else body)
    result = import_latex(LATEX / key, out_dir / "paper.ipynb", record_trust=False)
    latex = render(read_paper(result.notebook_path)).latex
    # the body, as on the source side (the preamble is the paper's own, as written), and the
    # definitions the paper makes in its body, which the template holds
    start = latex.find("\\begin{document}")
    moved = latex.find("% Definitions ", 0, max(start, 0))
    exported = mask_comments(latex[moved if moved >= 0 else max(start, 0):])
    theorems = {env: role for env, role in paper.declarations.theorems.items()}
    for env in paper.declarations.environments:  # the paper's own non-theorem environments
        theorems.setdefault(env, "other")
    return {
        "labels": sorted(set(LABEL.findall(source))),
        "exported_labels": sorted(set(LABEL.findall(exported))),
        "citations": sorted(_keys(source)),
        "exported_citations": sorted(_keys(exported)),
        "statements": _statements(source, theorems, False),
        "exported_statements": _statements(exported, theorems, True),
    }


@pytest.mark.parametrize("key", papers() or [pytest.param("none", marks=pytest.mark.skip(
    reason=f"the shared LaTeX corpus is not at {LATEX}"))])
def test_check_reports_every_finding_at_a_file_and_line(key: str) -> None:
    from mechnb.latexin.check import check_latex

    findings = check_latex(LATEX / key)
    assert findings, "a real paper always gets some finding"
    for f in findings:
        assert f.file and Path(f.file).is_file(), f
        assert f.line and f.line >= 1 and f.column and f.column >= 1, f
        assert f.cell is None and "%mech" not in f.message


@pytest.mark.parametrize("key", papers() or [pytest.param("none", marks=pytest.mark.skip(
    reason=f"the shared LaTeX corpus is not at {LATEX}"))])
def test_import_then_export_keeps_labels_citations_and_statements(key: str,
                                                                  tmp_path: Path) -> None:
    got = measure(key, tmp_path)
    expected = json.loads(EXPECTED.read_text())[key]
    assert {k: len(got[k]) for k in ("labels", "citations")} == \
        {k: expected[k] for k in ("labels", "citations")}
    assert got["statements"] == expected["statements"]
    assert not set(got["labels"]) - set(got["exported_labels"])
    assert set(got["citations"]) == set(got["exported_citations"])
    assert got["exported_statements"] == got["statements"]


if __name__ == "__main__":  # rewrite the expected data from the current reader
    import tempfile

    data = {}
    for key in papers():
        with tempfile.TemporaryDirectory() as tmp:
            got = measure(key, Path(tmp))
        data[key] = {"labels": len(got["labels"]), "citations": len(got["citations"]),
                     "statements": got["statements"]}
        print(key, data[key], file=sys.stderr)
    EXPECTED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
