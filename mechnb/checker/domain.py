"""Is the paper about Transformers / LLMs? Read from its own text (title, abstract, keywords and
the opening of the introduction), so that rules about attention and LLM vocabulary apply only to
papers in that domain, and say why they apply."""

from __future__ import annotations

from ..lazyre import lazy
from ..notebook import Paper

_DOMAIN = lazy(
    r"(?i)\btransformers?\b|self-attention|\battention (?:heads?|layers?|patterns?|mechanisms?|"
    r"weights|scores|maps?)\b|\b(?:large )?language models?\b|\bLLMs?\b|\bGPT-?\w*|\bBERT\b|"
    r"\bLlama\b|\bPythia\b|in-context learning|induction heads?|next-token prediction|"
    r"注意力|语言模型|大模型|Transformer")
_MECHANISM = lazy(
    r"(?i)\bmechanis(?:m|ms|tic)\b|\bcircuits?\b|interpretab|\b(?:induction|attention) heads?\b|"
    r"\bhow (?:\w+ ){0,4}(?:forms?|emerges?|arises?|develops?)\b|\btraining dynamics\b|"
    r"\binternal (?:representations?|computations?)\b|机制|可解释|如何形成")
OPENING_CHARS = 3000
"""How much of the introduction is read besides the title and the abstract."""


def domain_term(paper: Paper) -> str | None:
    """The first Transformer / LLM term of the paper's own framing (title, keywords, abstract,
    opening of the introduction), or ``None`` when the paper is about something else."""
    for text in _framing(paper):
        m = _DOMAIN.search(text)
        if m is not None:
            return " ".join(m.group().split())
    return None


def mechanism_paper(paper: Paper) -> bool:
    """True for a paper about a mechanism in Transformers / LLMs (the genre mechnb writes, whose
    lens a reader expects): a Transformer / LLM term in its own framing and a mechanism word
    (mechanism, circuit, interpretability, attention head, how … forms, training dynamics, 机制…)
    where a paper says what it is about: its title, keywords or abstract. The opening of the
    introduction counts for the mechanism word only when the paper has no abstract: it sets the
    scene, and the scene of a paper that merely uses a Transformer names its parts (“the attention
    mechanism”, “$H$ attention heads”, “the model's internal representations”)."""
    if domain_term(paper) is None:
        return False
    pieces = _framing(paper, opening=False)
    if not pieces[-1].strip():  # no abstract: the introduction's opening frames the paper
        pieces = _framing(paper)
    return any(_MECHANISM.search(t) for t in pieces)


def _framing(paper: Paper, opening: bool = True) -> list[str]:
    """Title, keywords, abstract (empty when the paper has none) and, with ``opening``, the
    opening of the introduction."""
    from ..moves.paper import abstract_cell, introduction_cells

    meta = paper.meta
    abstract = abstract_cell(paper)
    pieces = [meta.title or "", " ".join(meta.keywords),
              abstract.source if abstract is not None else ""]
    if opening:
        intro = "\n".join(c.source for c in introduction_cells(paper))
        pieces.append(intro[:OPENING_CHARS])
    return pieces
