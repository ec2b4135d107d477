"""MECH082: a claim about real models that only toy experiments back.

A sentence in which the paper speaks for its own results (not a proof, not prior work, not its
limitations) and claims something of a named real model family (GPT-2, Llama, Pythia, …), of
"large language models" or of what models do "in practice", needs an experiment of kind
``real-model``: a toy model that behaves as predicted says nothing yet about GPT-2. Hedged,
negated or forward-looking sentences ("may hold in GPT-2", "this suggests", "we did not test
Llama", "future work") are not claims. Notebooks only: a LaTeX paper's experiment kinds are not
known.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from ..lazyre import lazy
from .claims import sentences
from .document import Document

if TYPE_CHECKING:
    from .rule import Rule

_REAL = lazy(
    r"\b(?:GPT-?(?:2|3|3\.5|4|J|NeoX|Neo)|LLaMA|Llama|Pythia|OPT-\d|BERT|RoBERTa|Mistral|Mixtral|"
    r"Qwen|Gemma|OLMo|Chinchilla|Claude|Falcon|Phi-\d|T5)\b"
    r"|(?i:\bin (?:large |real(?:-world)? )?language models\b|\bin (?:real )?LLMs\b|"
    r"\bin (?:real|production|deployed|frontier) (?:models|transformers|LLMs|systems)\b)"
    r"|在大语言模型中|大语言模型中|真实模型中")
_IN_PRACTICE = lazy(r"(?i)\bin practice\b|实际中|实际应用中")
_MODEL_WORD = lazy(r"(?i)\b(?:transformers?|LLMs?|language models?|networks?|models?)\b|模型")
_HEDGED = lazy(
    r"(?i)\b(?:may|might|could|would|whether|if|perhaps|possibly|likely|hypothes|conjectur|"
    r"suggests?|indicates?|hints?|"
    r"speculat|future|remains? to be|not (?:yet )?(?:test|check|verif|study|examin)|untested|"
    r"did not|do not|does not|cannot|we leave|open question|unclear|unknown|expect|hope)"
    r"|可能|或许|是否|未来|尚未|有待|未经|没有验证")
_NOT_CLAIMS = frozenset({"proof", "note", "context", "prior", "limitations", "future",
                         "formula", "definition", "setup", "assumption", "question", "title",
                         "gap", "appendix"})
"""Roles whose mention of a real model is not the paper's claim about its own findings."""


def check_real_model_claims(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A claim about a named real model, LLMs or "in practice", with no real-model
    experiment."""
    if any(c.role == "experiment" and c.kind == "real-model" for c in doc.cells):
        return
    kinds = sorted({c.kind or "experiment" for c in doc.cells
                    if c.role == "experiment" and c.validates})
    backing = ", ".join(kinds) if kinds else "no experiment at all"
    for cell in doc.cells:
        if cell.role in _NOT_CLAIMS or not cell.is_markdown or not doc.exported(cell) or \
                cell.index not in doc.scans:
            continue
        for sentence in sentences(doc, cell):
            m = _REAL.search(sentence.text)
            if m is None:  # "in practice" about models ("in practice, transformers …")
                m = _IN_PRACTICE.search(sentence.text)
                if m is not None and not _MODEL_WORD.search(sentence.text):
                    m = None
            if m is None or _HEDGED.search(sentence.text):
                continue
            yield rule.at(
                doc, f"this sentence claims something of “{m.group().strip()}”, but the "
                     f"paper's experiments are {backing} — none of kind real-model; test it "
                     "on that model (`%mech validate <label> --kind real-model`), or say "
                     "that the result is shown for the toy model and may not transfer",
                cell.index, sentence.start + m.start())
            break  # one finding per cell
