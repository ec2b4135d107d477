"""Rules about the argument's shape: gap → lens → statements → interpretation → validation."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..findings import Finding
from ..lazyre import lazy
from ..roles import get_role
from .document import REF_PATTERN, STATEMENT_BOUNDARY, WORD, Document, KeyEquation, obligation_roles

if TYPE_CHECKING:
    from ..notebook import Cell
    from .rule import Rule

MECHANISM_PAPER_TYPES = ("dynamics", "failure")
TRAILING_ROLES = frozenset({"future", "conclusion", "note", "limitations", "appendix"})
"""Roles allowed after the limitations at the end of the main text."""
_HEADING = lazy(r"(?m)^[ \t]{0,3}#{1,6}[^\n]*$")
_SYMBOL_EXPLANATION = lazy(
    r"(?i)\b(?:here|where|denotes?|denoting|stands? for|represents?|is the|are the|we write|"
    r"is a|with)\b|其中|表示|这里|此处|记为|代表")


def _one(doc: Document, rule: Rule, message: str, cell: int | None = None,
         labels: tuple[str, ...] = ()) -> Finding:
    return rule.at(doc, message, cell, None, labels)


def check_required_roles(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``paper-requires``: the paper has a cell of each required role."""
    present = doc.roles_present()
    for name in obligation_roles("paper-requires"):
        if name not in present:
            role = get_role(name)
            purpose = role.purpose_en.rstrip(".") if role else name
            yield _one(doc, rule, f"the paper has no `{name}` cell ({purpose.lower()}); add one "
                                  f"with `%mech {name}`")


def check_validation(doc: Document, rule: Rule) -> Iterator[Finding]:
    """The paper closes its loop somewhere: a proof or an experiment."""
    if not doc.roles_present() & {"proof", "experiment"}:
        yield _one(doc, rule, "the paper has no validation: add a `proof` or an `experiment` "
                              "(`%mech validate <label>`) that closes the loop")


def check_interpretation(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-interpretation``: an interpretation follows before the next formal block."""
    roles = set(obligation_roles("needs-interpretation"))
    for c in doc.cells:
        if c.role in roles and doc.in_main_text(c) and doc.interpretation_of(c) is None:
            name = f"{c.role} {c.label}" if c.label else c.role
            yield _one(doc, rule, f"{name} has no `interpretation` cell after it (before the "
                                  f"next formal block); say in plain words what it means "
                                  f"(`%mech interpretation`)", c.index,
                       (c.label,) if c.label else ())


def check_closure(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-closure``: a proof, a proof pointer, or an experiment that validates it."""
    roles = set(obligation_roles("needs-closure"))
    for c in doc.cells:
        if c.role in roles and not doc.closure_of(c) and not doc.cited_result(c):
            name = f"{c.role} {c.label}" if c.label else f"this {c.role}"
            how = (f"`%mech validate {c.label}`" if c.label
                   else "give it a label and `%mech validate <label>`")
            yield _one(doc, rule, f"{name} is never closed: add a `proof` after it (or point to "
                                  f"one in the appendix), or an experiment that validates it "
                                  f"({how})", c.index, (c.label,) if c.label else ())


def check_ends_with(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``paper-ends-with``: nothing but future work / conclusion after the limitations."""
    for name in obligation_roles("paper-ends-with"):
        cells = doc.paper.cells_with_role(name)
        if not cells:
            continue  # a missing role is reported by missing-required-role
        last = cells[-1]
        if not doc.in_main_text(last):
            continue
        for c in doc.cells[last.index + 1:doc.appendix_start]:
            if c.role and c.role not in TRAILING_ROLES:
                yield _one(doc, rule, f"the `{c.role}` cell comes after the `{name}` (cell "
                                      f"{last.index}); the main text should end with its "
                                      f"{name} — move one of them", c.index)
                break


def is_mechanism_paper(doc: Document) -> bool:
    """Dynamics / failure papers, or untyped papers with a ``mechanism`` cell."""
    ptype = doc.paper.meta.paper_type
    if ptype is not None:
        return ptype in MECHANISM_PAPER_TYPES
    return bool(doc.paper.cells_with_role("mechanism"))


def check_intervention(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A mechanism paper should change only the mechanism and watch the phenomenon move."""
    if not is_mechanism_paper(doc):
        return
    if any(c.kind == "intervention" for c in doc.paper.cells_with_role("experiment")):
        return
    yield _one(doc, rule, "this mechanism paper has no intervention experiment: change only the "
                          "claimed mechanism, keep the rest fixed, and show the phenomenon vanish "
                          "or return (`%mech validate <label> --kind intervention`)")


def check_run(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-run``: experiment code cells that validate something have outputs and did not
    stop with an exception (a traceback is not evidence)."""
    roles = set(obligation_roles("needs-run"))
    for c in doc.cells:
        if not (c.role in roles and c.cell_type == "code" and c.validates):
            continue
        error = next((o for o in c.outputs if o.get("output_type") == "error"), None)
        if c.outputs and error is None:
            continue
        if error is not None:
            name = str(error.get("ename") or "an exception")[:80]
            value = " ".join(str(error.get("evalue") or "").split())[:120]
            ran = f"stopped with {name}: {value}" if value else f"stopped with {name}"
        else:
            ran = "ran but shows no output" if c.execution_count else "has not been run"
        yield _one(doc, rule, f"this experiment validates {', '.join(c.validates)} but {ran}; "
                              f"run it to the end so the evidence is in the notebook", c.index,
                   c.validates)


def check_caption(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-caption``: cells that become figures have a caption."""
    roles = set(obligation_roles("needs-caption"))
    for c in doc.cells:
        if c.role in roles and doc.has_figure(c) and not (c.caption or "").strip():
            yield _one(doc, rule, "this figure has no caption; set `metadata.mechnb.caption` to "
                                  "a sentence that says what it shows and what it validates",
                       c.index, (c.label,) if c.label else ())


def check_caption_names(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-caption``: the caption names what the figure validates."""
    roles = set(obligation_roles("needs-caption"))
    for c in doc.cells:
        caption = (c.caption or "").strip()
        if c.role not in roles or not caption or not doc.has_figure(c):
            continue
        if c.validates:
            names = list(c.validates)
            for label in c.validates:
                target = doc.cell_labels.get(label)
                if target is not None and target.title:
                    names.append(target.title)
            low = caption.lower()
            if any(n.lower() in low for n in names):
                continue
            yield _one(doc, rule, f"the caption does not name what the figure validates "
                                  f"({', '.join(c.validates)}); add e.g. "
                                  f"\"validates \\cref{{{c.validates[0]}}}\"", c.index,
                       c.validates)
        elif c.role == "figure" and not REF_PATTERN.search(caption):
            yield _one(doc, rule, "the caption does not say what this figure validates; add "
                                  "`validates` to its metadata and name it in the caption "
                                  "(\"… as predicted by \\cref{thm:main}\")", c.index)


def _word_counts(text: str) -> tuple[int, int]:
    """(Latin words, CJK characters) of prose ``text``, headings left out."""
    words = WORD.findall(_HEADING.sub("", text))
    latin = sum(1 for w in words if len(w) > 1)
    return latin, len(words) - latin


def _sentences(text: str) -> bool:
    """True if ``text`` (prose) holds at least a short sentence (3 words or 6 CJK characters)."""
    return _is_sentence(*_word_counts(text))


def _is_sentence(latin: int, cjk: int) -> bool:
    return latin >= 3 or cjk >= 6


def prose_pieces(doc: Document, cell: int, bounds: list[int]) -> list[str]:
    """Prose of ``cell`` between each pair of consecutive offsets in the increasing ``bounds``
    (``len(bounds) - 1`` pieces), in one pass over the cell's spans: the rules that look
    before or after every key equation stay linear in the cell's size."""
    scan = doc.scans.get(cell)
    pieces: list[list[str]] = [[] for _ in range(max(len(bounds) - 1, 0))]
    if scan is None or not pieces:
        return ["" for _ in pieces]
    k = 0
    for span in scan.spans:
        if span.kind != "prose":
            continue
        while k < len(pieces) and bounds[k + 1] <= span.start:
            k += 1
        j = k
        while j < len(pieces) and bounds[j] < span.end:
            lo, hi = max(span.start, bounds[j]), min(span.end, bounds[j + 1])
            if lo < hi:
                pieces[j].append(scan.source[lo:hi])
            if bounds[j + 1] >= span.end:
                break
            j += 1
    return [" ".join(p) for p in pieces]


def matched_after(pieces: list[str], pattern: re.Pattern[str]) -> list[bool]:
    """For piece k: does ``pattern`` match in piece k or any later one (the text after)."""
    out = [False] * len(pieces)
    seen = False
    for k in range(len(pieces) - 1, -1, -1):
        seen = seen or bool(pattern.search(pieces[k]))
        out[k] = seen
    return out


def unmet(equations: list[KeyEquation], met: list[bool],
          met_nearby: Callable[[int], bool]) -> Iterator[KeyEquation]:
    """The equations (of one cell) whose own cell does not meet a rule (``met``) and whose
    neighbouring cell does not either (``met_nearby(cell)``, asked at most once, if needed)."""
    nearby: bool | None = None
    for equation, ok in zip(equations, met, strict=True):
        if ok:
            continue
        if nearby is None:
            nearby = met_nearby(equation[0])
        if not nearby:
            yield equation


def equation_name(label: str | None) -> str:
    """How a finding names a key equation."""
    return f"equation {label}" if label else "this key equation"


def _prose(doc: Document, cell: int, start: int, end: int) -> str:
    return prose_pieces(doc, cell, [start, end])[0]


def _neighbour_prose(doc: Document, cell: int, step: int) -> str:
    """Prose of the nearest exported cell before/after ``cell`` that is not a formal block."""
    j = cell + step
    while 0 <= j < len(doc.cells):
        c = doc.cells[j]
        if c.role == "note" or (not c.source.strip()):
            j += step
            continue
        if not c.is_markdown or c.role in STATEMENT_BOUNDARY or c.role == "proof":
            return ""
        return _prose(doc, j, 0, len(c.source))
    return ""


def check_motivation(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-motivation``: a sentence before a key equation says why it is needed."""
    for cell, equations in doc.key_equations.items():
        pieces = prose_pieces(doc, cell, [0, *(start for _, start, _, _ in equations)])
        motivated: list[bool] = []
        latin = cjk = 0
        for piece in pieces:  # the prose before each equation only grows: count it once
            if not _is_sentence(latin, cjk):
                more = _word_counts(piece)
                latin, cjk = latin + more[0], cjk + more[1]
            motivated.append(_is_sentence(latin, cjk))
        for _, start, _end, label in unmet(equations, motivated, lambda c: _sentences(
                _neighbour_prose(doc, c, -1))):
            yield rule.at(doc, f"{equation_name(label)} has no motivation before it; add a "
                               f"sentence that says what the equation is for before showing it",
                          cell, start, (label,) if label else ())


def check_symbol_explanation(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``needs-symbol-explanation``: "Here, X denotes …" after a key equation."""
    for cell, equations in doc.key_equations.items():
        bounds = [end for _, _, end, _ in equations] + [len(doc.cells[cell].source)]
        explained = matched_after(prose_pieces(doc, cell, bounds), _SYMBOL_EXPLANATION)
        for _, start, _end, label in unmet(equations, explained, lambda c: bool(
                _SYMBOL_EXPLANATION.search(_neighbour_prose(doc, c, 1)))):
            yield rule.at(doc, f"{equation_name(label)} has no symbol explanation after it; "
                               f"add \"Here, $X$ denotes …\" for each new symbol", cell, start,
                          (label,) if label else ())


def check_before_main_theorem(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``before-main-theorem``: question/setup (and definitions it uses) come before it."""
    main = doc.main_theorem
    if main is None:
        return
    uses = {s.name for s in doc.references if s.cell == main.index}
    roles = set(obligation_roles("before-main-theorem"))
    for c in doc.cells[main.index + 1:doc.appendix_start]:
        if c.role not in roles:
            continue
        used = c.label is not None and c.label in uses
        if c.role in ("question", "setup") or used:
            why = f"the main theorem uses {c.label}" if used else "the main theorem relies on it"
            yield _one(doc, rule, f"this `{c.role}` comes after the main theorem (cell "
                                  f"{main.index}) but {why}; move it before the theorem",
                       c.index, tuple(x for x in (c.label, main.label) if x))


def check_validates_known(doc: Document, rule: Rule) -> Iterator[Finding]:
    """``validates`` names labels that exist."""
    for c in doc.cells:
        for label in c.validates:
            if label not in doc.labels:
                yield _one(doc, rule, f"`validates` names {label!r}, which no cell or "
                                      f"\\label defines; fix the label or add it to the "
                                      f"statement it supports", c.index, (label,))


def check_validates_something(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Experiments say what they validate."""
    for c in doc.paper.cells_with_role("experiment"):
        if not c.validates:
            yield _one(doc, rule, "this experiment validates nothing; set "
                                  "`metadata.mechnb.validates` to the label(s) of the theorem "
                                  "or claim it supports", c.index)


_INTRODUCES_WHAT_FOLLOWS = lazy(
    r"(?i):\s*$|\bbelow (?:is|are|follows?|we (?:show|list|give|report))\b|"
    r"\b(?:is|are|shown|given|listed|reported|summari[sz]ed|illustrated) below\b|"
    r"\bas follows\b|\bthe following (?:table|figure|plot|results?|numbers|list)\b")
"""The last sentence of a paragraph that introduces what comes right after it ("…, given
below.", "Below follows …", "Below is the list of …", "…, as follows", "…:"); "below" as a
comparison ("stays below 5 %") is not one."""


def _introduced_by_the_text_before(doc: Document, c: Cell) -> bool:
    """A LaTeX float (a raw figure or table) right after a paragraph that introduces it: the
    text points to it by its place, which is a reference a reader follows."""
    if c.cell_type != "raw" or c.index == 0:
        return False
    before = doc.cells[c.index - 1]
    text = before.source.strip()
    if not before.is_markdown or not text or _HEADING.fullmatch(text.split("\n")[-1]):
        return False
    last = re.split(r"(?<=[.!?])\s+", text)[-1]
    return bool(_INTRODUCES_WHAT_FOLLOWS.search(last))


def check_figure_referenced(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Every figure is referenced from the text (an unlabelled LaTeX float also by the paragraph
    right before it saying that it follows)."""
    for c in doc.cells:
        if c.role not in ("figure", "experiment") or not doc.has_figure(c):
            continue
        if c.label is None and _introduced_by_the_text_before(doc, c):
            continue
        kind = _float_kind(c)
        if c.label is None:
            yield _one(doc, rule, f"this {kind} has no label, so the text cannot refer to it; "
                                  f"give it one ({kind[:3]}:…) and cite it with \\cref", c.index)
        elif not any(doc.referenced.get(label, set()) - {c.index} for label in _labels_of(c)):
            yield _one(doc, rule, f"{kind} {c.label} is never referenced; point to it from the "
                                  f"text with \\cref{{{c.label}}}", c.index, (c.label,))


_SUB_LABEL = lazy(r"\\label\s*\{([^{}]+)\}")


def _labels_of(c: Cell) -> list[str]:
    """The float's label and, in a raw LaTeX float, the labels of its panels (a subfigure or
    subtable the text cites by its own label: \\cref{fig:a-left} points the reader to the
    figure)."""
    labels = [c.label] if c.label else []
    if c.cell_type == "raw":
        labels += [m.group(1).strip() for m in _SUB_LABEL.finditer(c.source)]
    return labels


_TABLE_FLOAT = lazy(r"\\begin\s*\{(?:sub)?table\*?\}")
_FIGURE_FLOAT = lazy(r"\\begin\s*\{(?:sub)?figure\*?\}")


def _float_kind(c: Cell) -> str:
    """``table`` for a raw LaTeX table float (or a label that says tab:), else ``figure``:
    what the message calls the cell, as the reader of the paper does."""
    if c.label is not None and c.label.lower().startswith(("tab:", "table:")):
        return "table"
    if c.cell_type == "raw" and _TABLE_FLOAT.search(c.source) \
            and not _FIGURE_FLOAT.search(c.source):
        return "table"
    return "figure"


def check_question(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A boxed research question at the end of the introduction."""
    if "question" not in doc.roles_present():
        yield _one(doc, rule, "no boxed research question; state it at the end of the "
                              "introduction with `%mech question`")


def check_contributions(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A short list of contributions."""
    if "contributions" not in doc.roles_present():
        yield _one(doc, rule, "no contributions list; add one with `%mech contributions`")
