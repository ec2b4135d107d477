"""The Chinese typesetting layer: a Chinese fixture compiled with XeLaTeX, read back with pdftotext.

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
from mechnb.exporter.cjkquotes import pair_quotes
from mechnb.exporter.markdown import parse

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


@pytest.fixture(scope="module")
def pdf_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which("pdftotext") is None or shutil.which("xelatex") is None:
        pytest.skip("xelatex or pdftotext is not installed")
    out = tmp_path_factory.mktemp("zh")
    result = export(FIXTURE, out, pdf=True, engine="xelatex")
    assert result.pdf_path is not None and result.pdf_path.exists()
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(result.pdf_path), "-"],
                          capture_output=True, text=True, check=True).stdout
    # one line of text: a line break between two Chinese characters is no space
    text = re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef])\n(?=[\u3000-\u9fff\uff00-\uffef])", "",
                  text)
    return re.sub(r"\s+", " ", text)


def test_section_references_read_di_n_jie(pdf_text: str) -> None:
    assert "在第 1.1 节中给出设定" in pdf_text
    assert "见第 1.1.1 节。" in pdf_text and "见第 1 节。" in pdf_text
    assert "在第 1.1 节的设定下" in pdf_text
    assert not re.search(r"节 \d", pdf_text)  # never cleveref's default "节 1.1"


def test_a_reference_number_keeps_its_space_before_chinese_text(pdf_text: str) -> None:
    assert re.search(r"定理 1 给出主要结论", pdf_text)
    assert re.search(r"式 \(1\) 是其核心公式", pdf_text)
    assert re.search(r"由式 \(1\) 直接计算", pdf_text)
    assert not re.search(r"(?:定理|式) \(?\d\)?[\u4e00-\u9fff]", pdf_text)


def test_quotes_open_and_close(pdf_text: str) -> None:
    assert "“注意力汇聚”" in pdf_text and "‘核心’" in pdf_text
    assert pdf_text.count("“") == pdf_text.count("”")
    assert "”注意力" not in pdf_text


def test_theorem_and_proof_heads_are_chinese_style(pdf_text: str) -> None:
    assert "定理 1（非形式化）" in pdf_text
    assert "证明概要 完整的论证" in pdf_text and "证明 由式" in pdf_text
    assert not re.search(r"定理 1 ?\(|证明概要\.|证明\.|Proof", pdf_text)


def test_caption_label_is_followed_by_a_space_not_a_colon(pdf_text: str) -> None:
    assert re.search(r"图 ?1 验证定理 1：", pdf_text)
    assert not re.search(r"图 ?1 ?[:：]", pdf_text)
    assert re.search(r"图 1 给出了数值验证", pdf_text)
