"""Which language (and so which template and engine) an undeclared notebook gets (issue 23):
the share of CJK in its markdown decides, not a single CJK character."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechnb.notebook import paper_from_dict

from .conftest import export_pdf_text, markdown_notebook, needs_tex

ENGLISH = ("# Circuit tracing\n\nWe trace the circuit a model uses to answer an antonym "
           "question, following attribution through each layer of the transformer and pruning "
           "the edges that carry little of the effect. The prompt asks for the opposite of a "
           "word, and the graph shows which features carry the answer.")


def _nb(*sources: str, lang: str | None = None) -> dict[str, object]:
    return markdown_notebook(*sources, **({"lang": lang} if lang else {}))


def test_one_chinese_phrase_keeps_an_english_notebook_english() -> None:
    paper = paper_from_dict(_nb(ENGLISH, "The prompt: 小的反义词是大 (the opposite of small)."))
    assert paper.lang == "en" and paper.engine == "pdflatex"


def test_a_chinese_course_with_code_names_and_formulas_is_chinese() -> None:
    text = ("## 第三讲 注意力机制\n\n本讲介绍 `nn.MultiheadAttention` 的实现，"
            "包括 $\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V$ 的计算、掩码的用法，以及 "
            "`torch.bmm` 与 `einsum` 两种写法的比较。")
    assert paper_from_dict(_nb(text)).lang == "zh"


def test_the_declared_language_wins() -> None:
    assert paper_from_dict(_nb(ENGLISH, lang="zh")).lang == "zh"
    assert paper_from_dict(_nb("全部是中文的段落，讲注意力。", lang="en")).lang == "en"


@pytest.mark.tex
@needs_tex()
def test_the_chinese_phrase_of_an_english_notebook_is_in_its_pdf(tmp_path: Path) -> None:
    stderr, text = export_pdf_text(tmp_path, "tutorial", markdown_notebook(
        ENGLISH, "The prompt: 小的反义词是大 (the opposite of small)."))
    assert "latexmk -pdf " in stderr  # pdfLaTeX: the English default, no fallback
    assert "小的反义词是大" in text.replace(" ", "").replace("\n", "")
    assert "antonym" in text
