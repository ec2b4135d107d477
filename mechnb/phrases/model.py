"""The data model of the phrase library: a ``Phrase`` record and an analytical ``Lens``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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


NOT_VERIFIED = "not verified"
"""The ``source`` of a reference nobody could check against its abstract page."""

_TEX_ACCENTS = {"á": "{\\'a}", "à": "{\\`a}", "ä": "{\\\"a}", "â": "{\\^a}", "ã": "{\\~a}",
                "é": "{\\'e}", "è": "{\\`e}", "ë": "{\\\"e}", "ê": "{\\^e}", "í": "{\\'i}",
                "ï": "{\\\"i}", "ó": "{\\'o}", "ö": "{\\\"o}", "ô": "{\\^o}", "ú": "{\\'u}",
                "ü": "{\\\"u}", "ñ": "{\\~n}", "ç": "{\\c{c}}", "ß": "{\\ss}", "ø": "{\\o}",
                "Ö": "{\\\"O}", "Ü": "{\\\"U}", "Ä": "{\\\"A}", "É": "{\\'E}", "ł": "{\\l}",
                "ń": "{\\'n}", "š": "{\\v{s}}", "č": "{\\v{c}}", "ř": "{\\v{r}}", "ž": "{\\v{z}}"}
_TEX_SPECIAL = {"&": "\\&", "%": "\\%", "#": "\\#", "_": "\\_", "$": "\\$"}


def tex_text(text: str) -> str:
    """``text`` for a BibTeX field: accents as TeX accents, ``& % # _ $`` escaped."""
    return "".join(_TEX_ACCENTS.get(ch) or _TEX_SPECIAL.get(ch) or ch for ch in text)


@dataclass(frozen=True, slots=True)
class Reference:
    """A canonical paper of a lens, as a bibliography entry, with where it was checked."""

    key: str
    """The BibTeX key (``wang2023ioi``); one key means one paper across the whole catalog."""
    type: str
    """The BibTeX entry type: ``article``, ``inproceedings``, ``misc`` or ``book``."""
    authors: tuple[str, ...]
    """Authors as "First Last"; a last ``others`` stands for the rest (et al.)."""
    title: str
    year: int
    venue: str
    """Journal, proceedings, publisher or ``arXiv preprint``."""
    source: str
    """Where the entry was checked: the URL of its abstract page, or ``not verified``."""
    arxiv: str = ""
    """The arXiv identifier (``2211.00593``), when there is one."""
    doi: str = ""
    """The DOI (``10.23915/distill.00024.001``), when there is one."""

    @property
    def verified(self) -> bool:
        """True when ``source`` names the page the entry was checked against."""
        return self.source != NOT_VERIFIED

    @property
    def url(self) -> str:
        """The paper's address: its arXiv abstract page, else its DOI resolver link."""
        if self.arxiv:
            return f"https://arxiv.org/abs/{self.arxiv}"
        return f"https://doi.org/{self.doi}" if self.doi else ""

    def short(self) -> str:
        """``Wang et al. 2023, Interpretability in the Wild… (arXiv:2211.00593)``."""
        surname = self.authors[0].split()[-1] if self.authors else "?"
        who = surname if len(self.authors) == 1 else (
            f"{surname} and {self.authors[1].split()[-1]}"
            if len(self.authors) == 2 and self.authors[1] != "others" else f"{surname} et al.")
        ident = f"arXiv:{self.arxiv}" if self.arxiv else (f"doi:{self.doi}" if self.doi else "")
        return f"{who} {self.year}, {self.title}" + (f" ({ident})" if ident else "")

    def bibtex(self) -> str:
        """The BibTeX entry (the title's capitals kept with double braces)."""
        venue_field = {"article": "journal", "inproceedings": "booktitle",
                       "book": "publisher"}.get(self.type, "howpublished")
        fields = [("author", " and ".join(tex_text(a) for a in self.authors)),
                  ("title", "{" + tex_text(self.title) + "}"),
                  ("year", str(self.year)), (venue_field, tex_text(self.venue))]
        if self.arxiv:
            fields += [("eprint", self.arxiv), ("archivePrefix", "arXiv")]
        if self.doi:
            fields.append(("doi", self.doi))
        if self.url:
            fields.append(("url", self.url))
        body = "".join(f"  {name} = {{{value}}},\n" for name, value in fields)
        return f"@{self.type}{{{self.key},\n{body}}}\n"

    def to_record(self) -> dict[str, Any]:
        """The record as written in ``lenses.json``."""
        rec: dict[str, Any] = {"key": self.key, "type": self.type, "authors": list(self.authors),
                               "title": self.title, "year": self.year, "venue": self.venue}
        if self.arxiv:
            rec["arxiv"] = self.arxiv
        if self.doi:
            rec["doi"] = self.doi
        rec["source"] = self.source
        return rec


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
    references: tuple[Reference, ...] = ()
    """The lens's canonical papers, first the one that introduced it."""
    pitfalls: dict[str, str] = field(default_factory=dict)
    """The known ways a paper written through this lens goes wrong, by language."""

    def cite_keys(self) -> list[str]:
        """The keys of the insertable references: those with an arXiv id or a DOI that were
        checked against their abstract page (``source`` is a URL)."""
        return [r.key for r in self.references if (r.arxiv or r.doi) and r.verified]

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
