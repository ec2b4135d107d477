"""The data model of the phrase library: a ``Phrase`` record and an analytical ``Lens``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

_CJK_RANGE = "\u3400-\u9fff"
SLOT_RE = re.compile(rf"\[([A-Za-z{_CJK_RANGE}][A-Za-z0-9 _{_CJK_RANGE}-]*)\]")
"""A blank in a phrase: ``[model]``, ``[factor A]``, ``[现象]``, ``[模型A]``."""
LABEL_SLOT_RE = re.compile(r"\\(?:c?ref|Cref|eqref|cite[tp]?|autoref)\{\[([A-Za-z0-9 _-]+)\]\}")
"""A blank standing for a label or citation key (``\\cref{[ref]}``): ASCII in both languages."""


def slots_in(text: str) -> list[str]:
    """The slot names of ``text`` in order of first appearance, without repeats."""
    seen: list[str] = []
    for name in SLOT_RE.findall(text):
        if name not in seen:
            seen.append(name)
    return seen


@dataclass(frozen=True, slots=True)
class Phrase:
    """One bilingual phrase of the library, with the rhetorical function it serves."""

    id: str
    """Unique kebab-case identifier (``intro-gap-missing-training-account-01``)."""
    function: str
    """Rhetorical function as a ``/``-separated path (``introduction/gap/missing-closed-form``)."""
    en: str
    """The English phrase; blanks are written ``[slot]``."""
    zh: str
    """The Chinese phrase; its blanks have Chinese names (``[现象]``), see ``slots_zh``."""
    slots: tuple[str, ...]
    """The names of the blanks of the English phrase, in order."""
    note_en: str
    """When to use the phrase, in English."""
    note_zh: str
    """When to use the phrase, in Chinese."""
    source: str = ""
    """The data file the record came from (``introduction.json``), for error messages."""
    slots_zh: tuple[str, ...] = ()
    """The names of the blanks of the Chinese phrase, paired by position with ``slots``
    (``slots_zh[i]`` is the Chinese name of ``slots[i]``); empty when they are the same names."""

    @property
    def zh_slots(self) -> tuple[str, ...]:
        """The Chinese blank names (``slots_zh``, or ``slots`` when the names are shared)."""
        return self.slots_zh or self.slots

    def text(self, lang: Lang) -> str:
        """The phrase in ``lang``."""
        return self.zh if lang == "zh" else self.en

    def note(self, lang: Lang) -> str:
        """The usage note in ``lang``."""
        return self.note_zh if lang == "zh" else self.note_en

    @property
    def depth(self) -> int:
        """Number of segments of the function path (``a/b`` is 2)."""
        return self.function.count("/") + 1

    def to_record(self) -> dict[str, Any]:
        """The record as written in the data files (the JSON output of the CLI)."""
        return {
            "id": self.id,
            "function": self.function,
            "en": self.en,
            "zh": self.zh,
            "slots": list(self.slots),
            "slots_zh": list(self.zh_slots),
            "note": {"en": self.note_en, "zh": self.note_zh},
        }


@dataclass(frozen=True, slots=True)
class Lens:
    """An analytical lens (DESIGN.md §1, move 4) and the validation that usually closes its loop."""

    id: str
    """Kebab-case identifier (``training-dynamics``)."""
    name: dict[str, str]
    """Display name by language."""
    description: dict[str, str]
    """One-line description by language."""
    measures: dict[str, str]
    """The quantities a paper written through this lens measures, by language."""
    closing_validation: dict[str, str]
    """The validation that usually closes a paper written through this lens, by language."""
    phrase: dict[str, str]
    """A sentence that proposes the lens, by language (searchable as ``lens/<id>``)."""
    validation_kind: str = "controlled"
    """The experiment kind that usually closes the loop (``%mech validate … --kind``)."""

    def as_phrase(self) -> Phrase:
        """The lens as a searchable phrase record under the function ``lens/<id>``."""
        return Phrase(
            id=f"lens-{self.id}",
            function=f"lens/{self.id}",
            en=self.phrase["en"],
            zh=self.phrase["zh"],
            slots=tuple(slots_in(self.phrase["en"])),
            slots_zh=tuple(slots_in(self.phrase["zh"])),
            note_en=(f"{self.description['en']} Closing the loop: "
                     f"{self.closing_validation['en']} As a cell: %mech lens --kind {self.id}"),
            note_zh=(f"{self.description['zh']}闭环验证：{self.closing_validation['zh']}"
                     f"插入为单元格：%mech lens --kind {self.id}"),
            source="lenses.json",
        )
