"""The word count (``mechnb.wordcount``, ``mechnb count``) and the completion data
(``mechnb.completions``), on fixture notebooks counted by hand and on the example paper's PDF."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mechnb.completions import bib_entries, completions
from mechnb.notebook import read_paper
from mechnb.wordcount import count_notebook, count_text

REPO = Path(__file__).resolve().parents[2]
DESK = REPO / "tests" / "fixtures" / "desk"
EXAMPLE = REPO / "notebooks" / "example_paper.ipynb"


def test_each_part_is_counted_as_it_prints() -> None:
    count = count_notebook(DESK / "counted.ipynb")
    parts = {p.title: p for p in count.parts}
    assert [(p.title, p.kind) for p in count.parts] == [
        ("Title", "title"), ("Abstract", "abstract"), ("Introduction", "section"),
        ("Theory", "section"), ("结论", "section"), ("Proofs", "appendix")]
    assert parts["Title"].words == 4  # Copying Heads Form Early
    # 7 words + "(Olsson et al., 2022)": 3 words, the year is a number
    assert parts["Abstract"].words == 10
    # heading 1 + "Attention goes back to" 4 + "Vaswani and Kaiser (2017)" 3 + "see" 1
    # + "Theorem 1" 1 + "and" 1 + "(Solo, 2024)" 1
    assert parts["Introduction"].words == 12
    # heading 1 + "Theorem 1 (Copy boundary)" 3 + 4 words + math βπ, log, n | p, eβ, Z
    # + "Interpretation. In words, the margin decides." 6
    theory = parts["Theory"]
    assert (theory.words, theory.math_words, theory.formulas, theory.displays) == (20, 6, 1, 1)
    assert (parts["结论"].words, parts["结论"].cjk) == (0, 13)  # 结论 + 注意力头在训练早期形成
    assert parts["Proofs"].words == 5
    # the `note` cell is never printed
    assert count.total_words == 4 + 10 + 12 + 20 + 5 and count.main_words == 32
    assert count.total_cjk == 13


@pytest.mark.parametrize(("text", "words", "cjk"), [
    ("closed-form, don't, L2 and 3.5 or 2022", 5, 0),
    ("注意力头在训练早期形成，见 Olsson et al.", 3, 12),
    ("", 0, 0),
])
def test_words_and_characters(text: str, words: int, cjk: int) -> None:
    assert count_text(text) == (words, cjk)


def test_count_cli_prints_parts_and_json() -> None:
    done = subprocess.run([sys.executable, "-m", "mechnb", "count", str(DESK / "counted.ipynb")],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.startswith("counted.ipynb: 32 words + 13 CJK characters in the main text")
    assert "Theory" in done.stdout and "cell 4" in done.stdout
    as_json = json.loads(subprocess.run(
        [sys.executable, "-m", "mechnb", "count", str(DESK / "counted.ipynb"), "--format",
         "json"], capture_output=True, text=True, timeout=60, check=True).stdout)
    assert as_json["total"] == {"words": 51, "cjk": 13}
    assert as_json["parts"][3]["title"] == "Theory" and as_json["parts"][3]["cell_id"] == "h"


def _pdf_words(pdf: Path, appendix: str | None) -> tuple[int, int]:
    """Words and CJK characters of the PDF's text: the reference list cut (up to the
    appendix that follows it), nothing else removed."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True,
                          text=True, timeout=60, check=True).stdout.splitlines()
    start = max(k for k, line in enumerate(text) if line.strip() in ("References", "参考文献"))
    end = next((k - 2 for k in range(start, len(text)) if appendix and
                text[k].strip() == appendix), len(text))  # "A" then the appendix heading
    return count_text("\n".join(text[:start] + text[end:]))


@pytest.mark.tex
def test_the_example_papers_count_matches_its_pdf(tmp_path: Path) -> None:
    """Within 2 % of a word count of the exported PDF's text. The figures are placed as the
    notebook's PNGs: the words inside a vector figure (axis labels, legends) are not text,
    and with the PDF figures pdftotext reads them too (about 2 % more here)."""
    if not (shutil.which("pdftotext") and shutil.which("latexmk")):
        pytest.skip("pdftotext and TeX Live are needed")
    nb = json.loads(EXAMPLE.read_text("utf-8"))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            out.get("data", {}).pop("application/pdf", None)
    path = tmp_path / "example_paper.ipynb"
    path.write_text(json.dumps(nb), "utf-8")
    for bib in EXAMPLE.parent.glob("*.bib"):
        shutil.copy(bib, tmp_path)
    from mechnb.exporter import export

    result = export(path, tmp_path / "out", pdf=True)
    assert result.pdf_path is not None
    count = count_notebook(path)
    appendix = next((p.title for p in count.parts if p.kind == "appendix"), None)
    words, _ = _pdf_words(result.pdf_path, appendix)
    assert abs(count.total_words - words) <= 0.02 * words, (count.total_words, words)
    assert count.main_words > 1000  # a real paper, not an empty count


def test_completions_list_labels_with_roles_and_keys_with_titles() -> None:
    found = completions(read_paper(DESK / "counted.ipynb"))
    assert [(x["label"], x["role"], x["name"], x["title"]) for x in found["labels"]] == [
        ("sec:intro", "context", None, "Introduction"),
        ("thm:main", "theorem", "Theorem", "Copy boundary"),
        ("app:proofs", "appendix", None, "Proofs")]
    assert found["labels"][1]["cell_id"] == "m" and found["labels"][1]["cell"] == 4
    assert [(c["key"], c["title"], c["year"]) for c in found["citations"]] == [
        ("olsson2022context", "In-context Learning and Induction Heads", "2022"),
        ("vaswani2017attention", "Attention is All you Need", "2017"),
        ("solo2024", "A Single Author's Note", "2024")]
    assert found["citations"][1]["author"] == "Vaswani, Ashish and Kaiser, Łukasz"
    assert found["problems"] == []


def test_completions_say_why_a_bibliography_is_missing(tmp_path: Path) -> None:
    nb = json.loads((DESK / "counted.ipynb").read_text("utf-8"))
    nb["metadata"]["mechnb"]["bibliography"] = "../outside.bib"
    path = tmp_path / "paper" / "p.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(nb), "utf-8")
    (tmp_path / "outside.bib").write_text("@misc{x, title={Secret}}", "utf-8")
    found = completions(read_paper(path))
    assert found["citations"] == [] and "outside the notebook's folder" in found["problems"][0]
    assert bib_entries("@misc{broken, title = {unclosed") == [
        {"key": "broken", "type": "misc", "title": "unclosed", "author": "", "year": ""}]
