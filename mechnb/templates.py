r"""Role templates and paper scaffolds: bilingual fill-in-the-blank cells, loaded from data files.

Everything the user sees is data in the package; this module only reads and expands it.

**Templates** live in ``data/templates/<role>.json``, one file per role of the registry::

    {
      "role": "theorem",
      "aliases": {"formal": "default"},                 # optional: other names for variants,
                                                        # e.g. experiment: default -> controlled
      "slots": {"appendix": "app:[name]"},              # optional: defaults of extra tokens
      "variants": {
        "default": [                                    # the cells, in notebook order
          {"cell_type": "markdown", "role": "theorem",
           "source": {"en": [..lines..], "zh": [..lines..]}},
          {"cell_type": "markdown", "role": "interpretation", "source": {...}}
        ],
        "informal": [...]
      }
    }

A template cell has ``cell_type`` (``markdown`` | ``code``), ``role`` (a registry role),
``source`` (``{"en": ..., "zh": ...}``, each a string or a list of lines joined with newlines),
and optionally ``kind``, ``title``, ``caption`` (metadata written as given, after token
substitution), ``validates`` (``true``: this cell receives the labels passed as ``validates``)
and ``primary`` (``true``: this cell receives ``label``/``title``; by default the first cell whose
role is the template's role). Every role has a ``default`` variant (directly or as an alias).

Sources are CommonMark with TeX math, or Python for code cells. Tokens are substituted in one
pass of a ``{{name}}`` pattern (TeX uses braces, so never ``str.format``): ``{{label}}`` (the
label, or the visible blank ``<prefix>:[name]``), ``{{title}}``, ``{{target}}`` (the first
validated label, or ``[target]``), plus any token named in ``slots`` or passed by a scaffold.
Square-bracket slots such as ``[phenomenon]`` are left for the author. References are written
``\cref{{{target}}}``: the exported preamble loads cleveref with names in the paper's language
("Theorem 1", "定理 1"), and prose avoids TeX-only spacing such as ``~`` (printed literally).

**Scaffolds** live in ``data/scaffolds/<paper_type>.json``::

    {"paper_type": "dynamics", "description": {"en": ..., "zh": ...},
     "cells": [
       {"use": "context", "heading": {"en": "# Introduction", "zh": "# 引言"}},
       {"use": "theorem", "label": "thm:main", "title": {"en": "Informal", "zh": "非形式化"},
        "vars": {"main": "thm:main"}},
       {"use": "experiment", "variant": "intervention", "label": "exp:intervention",
        "validates": ["thm:main"]},
       {"cell_type": "markdown", "role": "setup", "source": {"en": ..., "zh": ...}}
     ]}

A ``use`` entry expands the role's template (with ``label``, ``title``, ``validates``, ``vars``;
``heading`` is prepended to the first cell's source); an entry with only ``heading`` is a
role-less heading cell (a section opener before a theorem-like cell, whose own leading heading
would become the environment's title on export); any other entry is a literal template cell.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from .cellspec import CellSpec
from .errors import UsageError
from .notebook import LANGS, PAPER_TYPES, role_metadata
from .roles import get_role, role_names, suggest_role

__all__ = [
    "paper_types",
    "role_cells",
    "scaffold_cells",
    "scaffold_notebook",
    "template_roles",
    "validation_cells",
    "variants",
]

DEFAULT_VARIANT = "default"
TARGET_BLANK = "[target]"
TITLE_BLANK = {"en": "[title]", "zh": "[标题]"}
NBFORMAT_MINOR = 5
_TOKEN = re.compile(r"\{\{(\w+)\}\}")


def _read_json(relpath: str) -> Any:
    return json.loads(resources.files("mechnb").joinpath(relpath).read_text("utf-8"))


@cache
def template_roles() -> tuple[str, ...]:
    """The roles that have a template file, in registry order."""
    folder = resources.files("mechnb").joinpath("data/templates")
    present = {entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".json")}
    return tuple(name for name in role_names() if name in present)


@cache
def _template(role: str) -> dict[str, Any]:
    """The parsed template file of a registry role (read once, never mutated)."""
    if get_role(role) is None:
        hint = suggest_role(role)
        raise UsageError(
            f"unknown role '{role}'" + (f"; did you mean '{hint}'?" if hint else "")
            + f"\nRoles: {', '.join(role_names())}")
    if role not in template_roles():
        raise UsageError(f"role '{role}' has no template yet; write its cell by hand and set "
                         f"the tag mech:{role}")
    data: dict[str, Any] = _read_json(f"data/templates/{role}.json")
    return data


def variants(role: str) -> list[str]:
    """The variant names of ``role``'s template (``default`` first, then aliases)."""
    data = _template(role)
    names = list(data["variants"]) + [a for a in data.get("aliases", {}) if a not in
                                      data["variants"]]
    return sorted(names, key=lambda n: n != DEFAULT_VARIANT)


def paper_types() -> list[str]:
    """The paper types that have a scaffold."""
    return list(PAPER_TYPES)


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        raise UsageError(f"unknown language '{lang}'; choose one of {', '.join(LANGS)}")


def _variant_cells(role: str, variant: str | None) -> list[dict[str, Any]]:
    data = _template(role)
    name = variant or DEFAULT_VARIANT
    name = data.get("aliases", {}).get(name, name)
    cells: list[dict[str, Any]] | None = data["variants"].get(name)
    if cells is None:
        raise UsageError(f"role '{role}' has no variant (--kind) '{variant}'; "
                         f"choose one of {', '.join(variants(role))}")
    return cells


def _text(value: Any, lang: str) -> str:
    """A bilingual field (``{"en", "zh"}`` of strings or line lists) in ``lang``."""
    if isinstance(value, Mapping):
        value = value[lang]
    if isinstance(value, list):
        return "\n".join(value)
    return str(value)


def _substitute(text: str, tokens: Mapping[str, str]) -> str:
    """Replace ``{{name}}`` tokens in one pass (a value, e.g. a user's title, is never expanded)."""
    if "{{" not in text:
        return text
    return _TOKEN.sub(lambda m: tokens.get(m.group(1), m.group(0)), text)


def _label_blank(role: str) -> str:
    found = get_role(role)
    prefix = found.label_prefix if found is not None else None
    return f"{prefix}:[name]" if prefix else "[label]"


def _expand(role: str, *, variant: str | None, lang: str, label: str | None,
            title: str | None, validates: Sequence[str] | None,
            extra: Mapping[str, str] | None = None) -> list[CellSpec]:
    """The cells of one template variant with tokens substituted and metadata set."""
    _check_lang(lang)
    cells = _variant_cells(role, variant)
    data = _template(role)
    tokens: dict[str, str] = {"title": TITLE_BLANK[lang], "target": TARGET_BLANK}
    tokens.update({name: _text(v, lang) for name, v in data.get("slots", {}).items()})
    tokens["label"] = label or _label_blank(role)
    if title:
        tokens["title"] = title
    if validates:
        tokens["target"] = validates[0]
    tokens.update(extra or {})
    primary = next((i for i, c in enumerate(cells) if c.get("primary")), None)
    if primary is None:
        primary = next((i for i, c in enumerate(cells) if c["role"] == role), 0)
    out: list[CellSpec] = []
    for index, cell in enumerate(cells):
        is_primary = index == primary
        fixed_title = _substitute(_text(cell["title"], lang), tokens) if "title" in cell else None
        caption = _substitute(_text(cell["caption"], lang), tokens) if "caption" in cell else None
        metadata = role_metadata(
            cell["role"],
            label=label if is_primary else None,
            title=(title or fixed_title) if is_primary else fixed_title,
            validates=list(validates) if validates and cell.get("validates") else None,
            caption=caption,
            kind=cell.get("kind"),
        )
        out.append(CellSpec(cell["cell_type"], _substitute(_text(cell["source"], lang), tokens),
                            metadata))
    return out


def role_cells(role: str, *, lang: str = "en", label: str | None = None,
               title: str | None = None, kind: str | None = None,
               validates: list[str] | None = None) -> list[CellSpec]:
    """The cells ``%mech <role>`` inserts; ``kind`` picks the variant (``--kind intervention``)."""
    return _expand(role, variant=kind, lang=lang, label=label, title=title, validates=validates)


def validation_cells(target: str, *, kind: str = "controlled", lang: str = "en"
                     ) -> list[CellSpec]:
    """The experiment cells ``%mech validate <target> --kind K`` inserts, validating ``target``.

    The experiment's figure is labelled ``validation_label(target, kind)`` so that the text cell
    can refer to it; both cells carry ``validates: [target]`` and ``kind``.
    """
    if not target.strip():
        raise UsageError("%mech validate needs the label of the statement to validate, "
                         "e.g. %mech validate thm:main --kind intervention")
    experiment_kinds = [v for v in variants("experiment") if v != DEFAULT_VARIANT]
    if kind not in experiment_kinds:
        raise UsageError(f"unknown experiment kind '{kind}'; choose one of "
                         f"{', '.join(experiment_kinds)}")
    return _expand("experiment", variant=kind, lang=lang, label=validation_label(target, kind),
                   title=None, validates=[target])


def validation_label(target: str, kind: str) -> str:
    """The label of the figure of a validation experiment: ``thm:main`` -> ``exp:main-<kind>``."""
    stem = re.sub(r"[^\w-]+", "-", target.split(":", 1)[-1]).strip("-") or "target"
    return f"exp:{stem}-{kind}"


def scaffold_variants(paper_type: str) -> list[str]:
    """The variants of ``paper_type``'s scaffold besides its default one (``failure``:
    ``mechanistic``, a circuit that breaks rather than a numerical failure)."""
    return sorted(p.name[len(paper_type) + 1:-5] for p in
                  resources.files("mechnb").joinpath("data/scaffolds").iterdir()
                  if p.name.startswith(paper_type + "-") and p.name.endswith(".json"))


@cache
def _scaffold(paper_type: str, variant: str | None = None) -> dict[str, Any]:
    if paper_type not in PAPER_TYPES:
        raise UsageError(f"unknown paper type '{paper_type}'; choose one of "
                         f"{', '.join(PAPER_TYPES)}")
    if variant is None:
        data: dict[str, Any] = _read_json(f"data/scaffolds/{paper_type}.json")
        return data
    known = scaffold_variants(paper_type)
    if variant not in known:
        offer = f"; choose one of {', '.join(known)}" if known else " (it has none)"
        raise UsageError(f"unknown variant '{variant}' of the {paper_type} scaffold{offer}")
    data = _read_json(f"data/scaffolds/{paper_type}-{variant}.json")
    return data


def _literal_cell(entry: Mapping[str, Any], lang: str) -> CellSpec:
    if "role" not in entry:  # a section heading before an environment cell
        return CellSpec("markdown", _text(entry["heading"], lang), {})
    title = _text(entry["title"], lang) if "title" in entry else None
    caption = _text(entry["caption"], lang) if "caption" in entry else None
    metadata = role_metadata(entry["role"], label=entry.get("label"), title=title,
                             validates=entry.get("validates"), caption=caption,
                             kind=entry.get("kind"))
    return CellSpec(entry["cell_type"], _text(entry["source"], lang), metadata)


def scaffold_cells(paper_type: str, *, lang: str = "en", title: str | None = None,
                   variant: str | None = None) -> list[CellSpec]:
    """Every cell of a paper of ``paper_type`` (its ``variant`` scaffold when given, see
    :func:`scaffold_variants`), from title to appendix, in paper order."""
    _check_lang(lang)
    out: list[CellSpec] = []
    for entry in _scaffold(paper_type, variant)["cells"]:
        if "use" not in entry:
            out.append(_literal_cell(entry, lang))
            continue
        role = entry["use"]
        entry_title = _text(entry["title"], lang) if "title" in entry else None
        variant = entry.get("variant")
        if role == "title" and title:
            entry_title = title
            variant = None  # the given title, not the type's title pattern
        cells = _expand(role, variant=variant, lang=lang, label=entry.get("label"),
                        title=entry_title, validates=entry.get("validates"),
                        extra={k: _text(v, lang) for k, v in entry.get("vars", {}).items()})
        if "heading" in entry and cells:
            first = cells[0]
            cells[0] = CellSpec(first.cell_type,
                                _text(entry["heading"], lang) + "\n\n" + first.source,
                                first.metadata)
        out.extend(cells)
    return out


def scaffold_description(paper_type: str, lang: str = "en", variant: str | None = None) -> str:
    """One sentence saying what kind of paper the scaffold is for."""
    _check_lang(lang)
    return _text(_scaffold(paper_type, variant)["description"], lang)


def load_ext_cell(lang: str = "en") -> CellSpec:
    """The ``%load_ext mechnb`` cell that opens a new paper notebook (no role: a working cell,
    never exported; ``data/scaffolds/load-ext.json``)."""
    _check_lang(lang)
    entry = _read_json("data/scaffolds/load-ext.json")["cell"]
    return CellSpec(entry["cell_type"], _text(entry["source"], lang), {})


def scaffold_notebook(paper_type: str, *, lang: str = "en", title: str | None = None,
                      variant: str | None = None) -> dict[str, Any]:
    """A complete nbformat 4.5 notebook holding the scaffold of ``paper_type``, after a first
    code cell that loads the magics (:func:`load_ext_cell`: a new notebook's kernel has not
    loaded them, nor has any kernel after a restart).

    ``metadata.mechnb`` records ``lang`` and ``paper_type``, and ``title`` when one is given
    (otherwise the paper's title comes from its ``title`` cell, which holds a blank to fill in).
    """
    cells = [load_ext_cell(lang), *scaffold_cells(paper_type, lang=lang, title=title,
                                                  variant=variant)]
    mech: dict[str, Any] = {"lang": lang, "paper_type": paper_type}
    if title:
        mech = {"title": title, **mech}
    return {
        "cells": [cell.to_nbformat() for cell in cells],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "mechnb": mech,
        },
        "nbformat": 4,
        "nbformat_minor": NBFORMAT_MINOR,
    }
