"""The role registry: the vocabulary of DESIGN.md §2, loaded from ``data/roles.json``."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

Group = Literal["narrative", "formal", "evidence", "other"]
LatexKind = Literal[
    "title", "abstract", "text", "box", "runin", "environment", "proof", "evidence", "appendix",
    "omit",
]

TAG_PREFIX = "mech:"
"""A cell tag ``mech:<role>`` gives the cell that role (DESIGN.md §2)."""

IGNORE_TAG_PREFIX = "mech-ignore:"
"""A cell tag ``mech-ignore:MECH003`` suppresses that rule for the cell."""


@dataclass(frozen=True)
class Role:
    """One rhetorical role a cell can play in the paper."""

    name: str
    """The role name as written in metadata (``theorem``)."""
    group: Group
    """``narrative``, ``formal``, ``evidence`` or ``other``."""
    purpose_en: str
    """What the role is for, one English sentence."""
    purpose_zh: str
    """What the role is for, one Chinese sentence."""
    latex: dict[str, Any]
    """How the role renders to LaTeX: ``kind`` plus kind-specific fields (``env``, ``heading``…)."""
    label_prefix: str | None
    """Conventional label prefix (``thm`` for ``thm:main``), or ``None``."""
    obligations: tuple[str, ...]
    """Closing-loop obligations the checker enforces for cells of this role."""

    @property
    def latex_kind(self) -> LatexKind:
        """The LaTeX rendering kind (``environment``, ``runin``…)."""
        kind: LatexKind = self.latex["kind"]
        return kind

    def purpose(self, lang: str = "en") -> str:
        """The purpose sentence in ``lang`` (``en`` or ``zh``)."""
        return self.purpose_zh if lang == "zh" else self.purpose_en

    def display(self, lang: str = "en") -> str:
        """The display name of the role's LaTeX environment/heading in ``lang``."""
        for key in ("display", "heading"):
            if key in self.latex:
                text: str = self.latex[key]["zh" if lang == "zh" else "en"]
                return text
        return self.name.capitalize()


@cache
def registry() -> dict[str, Role]:
    """All roles, in the documented order, keyed by name."""
    raw = json.loads(resources.files("mechnb").joinpath("data/roles.json").read_text("utf-8"))
    roles: dict[str, Role] = {}
    for rec in raw["roles"]:
        roles[rec["name"]] = Role(
            name=rec["name"],
            group=rec["group"],
            purpose_en=rec["purpose"]["en"],
            purpose_zh=rec["purpose"]["zh"],
            latex=rec["latex"],
            label_prefix=rec["label_prefix"],
            obligations=tuple(rec["obligations"]),
        )
    return roles


def get_role(name: str) -> Role | None:
    """The role called ``name``, or ``None`` if the vocabulary has no such role."""
    return registry().get(name)


def role_names() -> list[str]:
    """Every role name in registry order."""
    return list(registry())


def with_obligation(obligation: str) -> list[Role]:
    """The roles that carry ``obligation`` (e.g. ``needs-interpretation``)."""
    return [r for r in registry().values() if obligation in r.obligations]


def suggest_role(name: str) -> str | None:
    """The closest valid role name to a misspelt ``name``, if one is close enough."""
    lowered = name.lower()
    prefixed = [r for r in role_names() if r.startswith(lowered)] if len(lowered) >= 3 else []
    if len(prefixed) == 1:
        return prefixed[0]
    matches = difflib.get_close_matches(lowered, role_names(), n=1, cutoff=0.6)
    return matches[0] if matches else None
