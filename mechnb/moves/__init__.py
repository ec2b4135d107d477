"""Move analysis: which rhetorical moves does an abstract (or introduction) make?

``analyse(text)`` splits English or Chinese prose into sentences and labels each with zero or
more of the moves ``context``, ``gap``, ``contribution``, ``mechanism``, ``validation`` and
``implication``, from cue rules, cues derived from the phrase library, negation and position.
Pure Python, standard library only; importing this package is cheap (the work loads lazily).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analyser import Analysis, Cue, LabelledSentence, analyse
    from .paper import PaperMoves, analyse_paper
    from .sentences import Sentence, split_sentences

__all__ = ["MOVES", "Analysis", "Cue", "LabelledSentence", "PaperMoves", "Sentence", "analyse",
           "analyse_paper", "split_sentences"]

MOVES = ("context", "gap", "contribution", "mechanism", "validation", "implication")
"""The moves of a mechanism paper's abstract, in their usual order."""

_LAZY = {"Analysis": "analyser", "Cue": "analyser", "LabelledSentence": "analyser",
         "analyse": "analyser", "PaperMoves": "paper", "analyse_paper": "paper",
         "Sentence": "sentences", "split_sentences": "sentences"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
