"""The Chinese typesetting layer: a Chinese fixture built by XeLaTeX and pdfLaTeX, read back.

``tests/fixtures/zh_typesetting/zh_typesetting.ipynb`` references sections, a theorem and an
equation with ``\\cref`` directly before Chinese text, and quotes with straight ``"`` / ``'``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mechnb.exporter import export
from mechnb.tex.cjkquotes import pair_quotes
from mechnb.tex.markdown import parse

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "zh_typesetting" / \
    "zh_typesetting.ipynb"


@pytest.mark.parametrize(("text", "paired"), [
    ('他说"你好"。', "他说“你好”。"),
    ('称为"注意力汇聚"现象，以及"第二个"。', "称为“注意力汇聚”现象，以及“第二个”。"),
    ('这是"sink"现象', "这是“sink”现象"),
    ("“正确”的引号", "“正确”的引号"),
    ("它的'核心'在于", "它的‘核心’在于"),
    ('the "sink" token', "the “sink” token"),  # English: smartquotes' own work, unchanged
    ("it's 中文", "it’s 中文"),  # an apostrophe between Latin letters stays one
])
def test_straight_quotes_next_to_chinese_are_paired(text: str, paired: str) -> None:
    tokens = parse(text)
    assert "".join(c.content for c in tokens[1].children or []) == paired


def test_pairing_carries_over_inline_pieces() -> None:
    state: dict[str, bool] = {}
    assert pair_quotes('称为"注意', state) == "称为“注意"
    assert pair_quotes('力汇聚"现象', state) == "力汇聚”现象"


def _pdf_text(out: Path, engine: str, notebook: Path = FIXTURE) -> str:
    if shutil.which("pdftotext") is None or shutil.which(engine) is None:
        pytest.skip(f"{engine} or pdftotext is not installed")
    result = export(notebook, out, pdf=True, engine=engine)
    assert result.pdf_path is not None and result.pdf_path.exists()
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(result.pdf_path), "-"],
                          capture_output=True, text=True, check=True).stdout
    # one line of text: a line break between two Chinese characters is no space
    text = re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef])\n(?=[\u3000-\u9fff\uff00-\uffef])", "",
                  text)
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def pdf_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The XeLaTeX PDF's text (the default engine of a Chinese paper)."""
    return _pdf_text(tmp_path_factory.mktemp("zh"), "xelatex")


@pytest.fixture(scope="module", params=["xelatex", "pdflatex"])
def any_engine_text(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> str:
    """The PDF's text from each engine: pdfLaTeX (CJKutf8, arXiv) must read the same."""
    engine: str = request.param
    return _pdf_text(tmp_path_factory.mktemp(f"zh-{engine}"), engine)


def test_section_references_read_di_n_jie(any_engine_text: str) -> None:
    assert "在第 1.1 节中给出设定" in any_engine_text
    assert "见第 1.1.1 节。" in any_engine_text and "见第 1 节。" in any_engine_text
    assert "在第 1.1 节的设定下" in any_engine_text
    assert not re.search(r"节 \d", any_engine_text)  # never cleveref's default "节 1.1"


def test_a_reference_number_keeps_its_space_before_chinese_text(any_engine_text: str) -> None:
    assert re.search(r"定理 1 给出主要结论", any_engine_text)
    assert re.search(r"式 \(1\) 是其核心公式", any_engine_text)
    assert re.search(r"由式 \(1\) 直接计算", any_engine_text)
    assert re.search(r"图 1 给出了数值验证", any_engine_text)
    assert not re.search(r"(?:定理|式|图) \(?\d\)?[\u4e00-\u9fff]", any_engine_text)


def test_no_space_between_a_reference_number_and_chinese_punctuation(
        any_engine_text: str) -> None:
    assert "验证定理 1：匹配位置" in any_engine_text
    assert "见第 1.1.1 节。" in any_engine_text
    assert not re.search(r"\d\)? [，。：；、]", any_engine_text)


def test_quotes_open_and_close(any_engine_text: str) -> None:
    assert "“注意力汇聚”" in any_engine_text and "‘核心’" in any_engine_text
    assert any_engine_text.count("“") == any_engine_text.count("”")
    assert "”注意力" not in any_engine_text


def test_theorem_and_proof_heads_are_chinese_style(pdf_text: str) -> None:
    assert "定理 1（非形式化）" in pdf_text
    assert "证明概要 完整的论证" in pdf_text and "证明 由式" in pdf_text
    assert not re.search(r"定理 1 ?\(|证明概要\.|证明\.|Proof", pdf_text)


def test_caption_label_is_followed_by_a_space_not_a_colon(pdf_text: str) -> None:
    assert re.search(r"图 ?1 验证定理 1：", pdf_text)
    assert not re.search(r"图 ?1 ?[:：]", pdf_text)
    assert re.search(r"图 1 给出了数值验证", pdf_text)


NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
_REF_NAME = r"(?:定理|引理|命题|推论|断言|假设|定义|注|图|表|式|附录)"


@pytest.mark.parametrize("engine", ["xelatex", "pdflatex"])
@pytest.mark.parametrize("name", ["example_paper_zh", "expressivity_paper_zh"])
def test_the_chinese_examples_read_as_chinese_typesetting(tmp_path: Path, name: str,
                                                          engine: str) -> None:
    """Issue 13's acceptance on the bundled Chinese papers, under either engine."""
    text = _pdf_text(tmp_path, engine, NOTEBOOKS / f"{name}.ipynb")
    spaced = re.findall(rf"{_REF_NAME} \(?[\dA-Z][\d.]*\)? [\u4e00-\u9fff]", text)
    tight = re.findall(rf"{_REF_NAME} ?\(?[\dA-Z][\d.]*\)?[\u4e00-\u9fff]", text)
    assert len(spaced) >= 5 and tight == []
    # a ’ between two letters is an apostrophe (d’Angelo in a reference), not a closing quote
    singles = re.sub(r"(?<=[A-Za-z])’(?=[A-Za-z])", "", text)
    assert text.count("“") == text.count("”") > 0 and singles.count("‘") == singles.count("’")
    assert not re.search(r"[\u4e00-\u9fff][\"']|[\"'][\u4e00-\u9fff]", text)
    assert not re.search(r"节 \d", text)
    if name == "example_paper_zh":
        assert re.search(r"第 \d+(?:\.\d+)* 节", text)
