"""MECH081: a number the prose reports differs from what the notebook's code printed.

Every measured value written in the prose — a decimal or a percentage in the results, a
caption, an interpretation, the discussion, the limitations (the abstract's and the
conclusion's are MECH072's, against everything the paper shows) — is compared with the
numbers of the notebook's saved outputs (stream text, ``text/plain`` reprs, HTML / LaTeX /
markdown tables); the check stays static, nothing runs. A value matches when some output rounds
to it at the precision it is written with (``0.0170`` shows ``0.017``; ``0.98`` shows ``98%``);
an output is a percentage (÷100) only when a ``%`` or the word "percent" stands next to it, so a
printed ``0.2`` never passes for a written ``0.002``. A number no output matches is reported
only when an output comes close to it (same sign, within 35 %) — a typo or a stale
value, named with the nearest candidate: "text says 0.013, cell 41 printed 0.0170". The outputs
compared are those of the experiments the sentence (or its cell) references, directly or through
the statement they validate. A number far from every output, in a range ("[0.5, 1.5]") or
computed in the text ("\\log 3 \\approx 1.10") is a setting or a prediction.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..findings import Finding
from ..lazyre import lazy
from .claims import SUMMARY_ROLES, Number, Sentence, reported_numbers, sentences
from .document import Document

if TYPE_CHECKING:
    from ..notebook import Cell
    from .rule import Rule

PROSE_ROLES = frozenset({"result", "interpretation", "implication", "discussion",
                         "conclusion", "limitations", "experiment", "figure"})
"""Roles whose prose reports measurements (an experiment's or figure's markdown: its caption)."""
_OUTPUT_NUMBER = lazy(r"(?<![\w.])(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\.\d+)"
                      r"(?P<unit>\s?(?:\\?%|％|percent\b))?")
_PERCENT_WORD = lazy(r"(?i)%|％|\bpercent\b|百分")
_TAG = lazy(r"<[^<>]{0,2000}>")
_OBJECT_REPR = lazy(r"<[\w.]+ object(?: at 0x[0-9a-fA-F]+)?>")
"""The ``text/plain`` of a rich display (``<IPython.core.display.Markdown object>``,
``display(Latex(...))``): no value; the richer representation is the one the reader sees."""
MIN_SIGNIFICANT = 2
"""A written value needs this many significant digits to be compared: "0.5" may be a setting
or a round figure, "0.013" is a measurement."""
_INTERVAL = lazy(r"[\[(]\s*-?[\d.]+\s*,\s*-?[\d.]+\s*[\])]")
NEAR = 0.35
"""An output within this relative distance of a written value (same sign) is its candidate: a
typo or a stale value, not another quantity."""
_DERIVED = lazy(r"(?:\\log|\\ln|\\exp|\\sqrt|\\frac|\\tfrac|\\dfrac|\\sum|\\prod|\)|\^)"
                r"[^$.;]{0,30}(?:\\approx|≈|=)\s*$")
"""A value computed from a formula in the text ("\\log(n-3)\\approx 3.37"), not a measurement."""


@dataclass(frozen=True)
class Shown:
    """A number in a code cell's saved output."""

    value: float
    text: str
    cell: int


def output_numbers(doc: Document, cells: list[int]) -> list[Shown]:
    """Every decimal number the saved outputs of the code ``cells`` show (integers are counts,
    steps and sizes); a number next to ``%`` or "percent" also stands for its hundredth."""
    out: list[Shown] = []
    for index in cells:
        cell = doc.cells[index]
        if cell.cell_type != "code":
            continue
        for text in _output_texts(cell.outputs):
            for line in text.splitlines():
                percent = _PERCENT_WORD.search(line) is not None
                for m in _OUTPUT_NUMBER.finditer(line):
                    num = m.group("num")
                    if not any(ch in num for ch in ".eE") and not (m.group("unit") or percent):
                        continue
                    try:
                        value = float(num)
                    except ValueError:
                        continue
                    out.append(Shown(value, m.group().strip(), cell.index))
                    if m.group("unit") or percent:
                        out.append(Shown(value / 100, m.group().strip(), cell.index))
    return out


def _sources(doc: Document, cell: Cell, sentence: Sentence) -> list[int]:
    """The code cells whose outputs a sentence reports: the experiments it references (or its
    cell references), directly or through the statement they validate, the cell itself (a
    caption)."""
    names = sentence.refs or tuple(n for n, cells in doc.referenced.items()
                                   if cell.index in cells)
    out = [cell.index] if cell.cell_type == "code" else []
    for name in names:
        target = doc.cell_labels.get(name)
        if target is None:
            continue
        # the experiment itself, or the experiments that validate the statement it names
        for c in [target] if target.cell_type == "code" else doc.validated_by.get(name, []):
            if c.cell_type == "code" and c.index not in out:
                out.append(c.index)
    return out


def _output_texts(outputs: Any) -> Iterator[str]:
    for output in outputs:
        if output.get("output_type") == "stream":
            yield _joined(output.get("text", ""))
        data = output.get("data")
        if isinstance(data, dict):
            for mime in ("text/plain", "text/markdown", "text/latex", "text/html"):
                if mime in data:
                    text = _joined(data[mime])
                    if mime == "text/plain" and _OBJECT_REPR.fullmatch(text.strip()):
                        continue  # display(Markdown/Latex(...)): the table is in the next one
                    yield _TAG.sub(" ", text)
                    break  # one representation of an output is enough


def _joined(text: Any) -> str:
    if isinstance(text, list):
        return "".join(str(t) for t in text)
    return str(text)


def _significant(number: Number) -> int:
    digits = re.sub(r"\D", "", number.text.split("%")[0].split("\\")[0])
    return len(digits.lstrip("0"))


def _matches(number: Number, shown: Shown) -> bool:
    tolerance = 0.5 * 10 ** -number.precision + 1e-12
    return math.isclose(shown.value, number.value, abs_tol=tolerance)


def _nearest(number: Number, shown: list[Shown]) -> Shown | None:
    """The closest output within ``NEAR`` (relative) of ``number``, same sign, if any."""
    best: Shown | None = None
    for s in shown:
        if number.value == 0 or (s.value > 0) != (number.value > 0):
            continue
        if abs(s.value - number.value) > NEAR * abs(number.value):
            continue
        if best is None or abs(s.value - number.value) < abs(best.value - number.value):
            best = s
    return best


def check_numbers_match_outputs(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A measured value in the prose that no output of the experiment it reports shows, while
    one of them comes close."""
    cache: dict[tuple[int, ...], list[Shown]] = {}
    for cell in doc.cells:
        if not doc.exported(cell) or cell.role in SUMMARY_ROLES:
            continue  # the abstract's and the conclusion's numbers: MECH072
        pieces: list[tuple[Sentence, str]] = []
        if cell.caption and cell.cell_type == "code":  # a figure's caption: its own outputs
            pieces.append((Sentence(0, cell.caption, ()), "caption"))
        if cell.role in PROSE_ROLES and cell.is_markdown and cell.index in doc.scans:
            pieces += [(s, cell.role or "text") for s in sentences(doc, cell)]
        for sentence, where in pieces:
            numbers = [n for n in reported_numbers(sentence) if _compared(n, sentence)]
            if not numbers:
                continue
            key = tuple(_sources(doc, cell, sentence))
            shown = cache.get(key)
            if shown is None:
                shown = cache[key] = output_numbers(doc, list(key))
            if not shown:
                continue
            for number in numbers:
                if any(_matches(number, s) for s in shown):
                    continue
                near = _nearest(number, shown)
                if near is None:
                    continue
                yield rule.at(doc, f"text says {number.text}, cell {near.cell + 1} printed "
                                   f"{near.text}: the {where} and the output disagree; copy "
                                   "the printed value (rounded as printed) or rerun the cell",
                              cell.index, number.offset if where != "caption" else None,
                              (number.text,))


def _compared(number: Number, sentence: Sentence) -> bool:
    """A measured value: a decimal or percentage with two significant digits or more, not a
    speed-up and not a value the text computes from a formula."""
    text = number.text
    if "×" in text or "fold" in text or "倍" in text or text.rstrip().endswith("x"):
        return False
    if _significant(number) < MIN_SIGNIFICANT:
        return False
    at = number.offset - sentence.start
    for m in _INTERVAL.finditer(sentence.text, max(0, at - 30), at + 30):
        if m.start() <= at < m.end():
            return False  # a range swept or assumed, [0.5, 1.5]: a setting
    before = sentence.text[:at]
    return _DERIVED.search(before[-60:]) is None
