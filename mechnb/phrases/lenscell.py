"""``%mech lens --kind <lens>``: a lens cell filled from the catalog (``data/lenses.json``).

The lens cell proposes the perspective in the paper's language and says what it reveals; a
``note`` cell after it (never exported) suggests the follow-up experiment that closes the lens's
loop, with the ``%mech validate`` line that inserts it.
"""

from __future__ import annotations

from ..cellspec import CellSpec
from ..errors import UsageError
from ..notebook import role_metadata
from .library import load_library
from .model import Lens

_NOTE = {
    "en": ("**Follow-up experiment (closes the {name} lens).** {validation}\n\n"
           "Quantities to measure: {measures}.\n\n"
           "Insert it with `%mech validate {target} --kind {kind}` once the statement it "
           "validates has a label."),
    "zh": ("**后续实验（为{name}视角闭环）。**{validation}\n\n"
           "需要测量的量：{measures}。\n\n"
           "待所验证的命题有了标签后，用 `%mech validate {target} --kind {kind}` 插入该实验。"),
}


def lens_ids() -> list[str]:
    """The ids of the lens catalog, in catalog order."""
    return [lens.id for lens in load_library().lenses]


def get_lens(lens_id: str) -> Lens | None:
    """The catalog lens ``lens_id``, or ``None``."""
    return next((lens for lens in load_library().lenses if lens.id == lens_id), None)


def lens_cells(lens_id: str, *, lang: str = "en", label: str | None = None,
               title: str | None = None) -> list[CellSpec]:
    """The lens cell for catalog lens ``lens_id`` and the note suggesting its closing experiment."""
    lens = get_lens(lens_id)
    if lens is None:
        raise UsageError(f"unknown lens '{lens_id}'; the catalog has {', '.join(lens_ids())}")
    lang = "zh" if lang == "zh" else "en"
    source = f"{lens.phrase[lang]}\n\n{lens.description[lang]}"
    lens_cell = CellSpec("markdown", source, role_metadata(
        "lens", label=label, title=title or lens.name[lang], kind=lens.id))
    note = _NOTE[lang].format(name=lens.name[lang], validation=lens.closing_validation[lang],
                              measures=lens.measures[lang],
                              target="thm:[main]", kind=lens.validation_kind)
    return [lens_cell, CellSpec("markdown", note, role_metadata("note"))]
