"""Rules about claims and the evidence behind them: a number in the abstract or conclusion that
the paper never shows (MECH072), causal wording that no intervention, ablation or proof backs
(MECH073), proof wording about what only experiments back (MECH074).

All three read sentences of markdown cells with citations, URLs, code and headings set aside
(math is kept: ``$0.98$`` is a number). The wording they look for is data
(``data/checks/claim_wording.json``, English and Chinese); a sentence that hedges or negates
before the claim word ("does not cause", "may drive", 可能导致) makes no claim.

What backs a sentence is read from the argument model, never guessed from prose:

- a reference to an experiment (``\\cref{fig:x}``) is backed by that experiment, of its
  ``kind`` (``controlled``, ``real-model``, ``intervention``, ``ablation``);
- a reference to a statement (``\\cref{clm:x}``) is backed by what closes it
  (``Document.closure_of``: proofs, pointers to a proof, validating experiments);
- a sentence of a statement cell with no reference is backed by that statement's closure;
- a sentence of the abstract or the conclusion with no reference is backed by the paper's
  evidence as a whole (every validating experiment and proof).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ..findings import Finding, Severity
from ..memo import SourceMemo
from .document import REF_PATTERN, Document, finding, scan_cell
from .prose import CITE, HEADING, LABEL, PANDOC_CITE, URL, blank_all, wording_pattern

if TYPE_CHECKING:
    from ..notebook import Cell
    from .rule import Rule

SUMMARY_ROLES = ("abstract", "conclusion")
"""Cells whose numbers must be shown elsewhere (MECH072), and whose unreferenced sentences are
backed by the paper as a whole."""
STATEMENT_ROLES = frozenset({"theorem", "lemma", "proposition", "corollary", "claim"})
"""Cells whose own sentences are backed by their closure."""
DISCUSSION_ROLES = ("result", "interpretation", "implication")
_NOT_OWN_CLAIMS = frozenset({"proof", "note", "context", "prior", "formula", "definition", "setup",
                             "assumption", "question", "title", "appendix"})
"""Roles whose "proves" is not the paper's claim about its own evidence (a proof proves; prior
work is others'); every other prose cell, untyped ones too, is read by MECH074."""
"""Cells MECH074 also reads (only sentences with a reference: they say what backs them)."""
STRONG_KINDS = frozenset({"proof", "intervention", "ablation"})
"""Evidence that can carry a causal claim (MECH073)."""
CELL_LIMIT = 20_000
"""Cells longer than this are not read (generated text, pasted logs)."""

_SENTENCE_END = re.compile(r"[.!?](?=[\s)\]]|$)|[。！？；]|\n[ \t]*\n|\n[ \t]*[-*+][ \t]")
_NUMBER = re.compile(
    r"(?<![\w.\\^-])(?P<num>\d+(?:\.\d+)?|\.\d+)(?![\d]|\.\d)"
    r"(?:[ \t~]?(?P<unit>\\%|%|％|percent\b|per cent\b|×|\\times\b|x\b|-fold\b|fold\b|倍))?")
"""A number and its unit: ``98%``, ``98\\%``, ``0.98``, ``3.2×``, ``4-fold``, ``3 倍``."""
_NUMBER_ANY = re.compile(r"(?<![\w.])(?P<num>\d+(?:[.,]\d+)*|\.\d+)(?P<unit>\s?(?:\\?%|％))?")
_NOT_A_RESULT = re.compile(
    r"(?i)(?:section|sec\.|§|table|tab\.|figure|fig\.|eq\.|equation|appendix|theorem|lemma|"
    r"corollary|proposition|definition|step|version|v|python|llama|gpt|qwen|gemma|mistral|"
    r"pythia|olmo|第|节|图|表|式|定理|引理|附录)[\s~]*$")
"""Words before a decimal that make it a name, not a measurement (Section 3.2, Llama 3.1)."""
_TAG = re.compile(r"<[^<>]{0,2000}>")
WORD_RE = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff]")


@dataclass(frozen=True)
class Wording:
    """The claim vocabularies of ``data/checks/claim_wording.json``."""

    causal: dict[str, re.Pattern[str]]
    proof: dict[str, re.Pattern[str]]
    hedges: dict[str, re.Pattern[str]]


def _compile(patterns: list[str], lang: str) -> re.Pattern[str]:
    return wording_pattern("|".join(f"(?:{p})" for p in patterns), lang)


@cache
def wording() -> Wording:
    """The claim wording, read once from the package data."""
    data: dict[str, Any] = json.loads(resources.files("mechnb").joinpath(
        "data/checks/claim_wording.json").read_text("utf-8"))

    def by_lang(kind: str) -> dict[str, re.Pattern[str]]:
        langs = sorted({p["lang"] for p in data[kind]})
        return {lang: _compile([p["pattern"] for p in data[kind] if p["lang"] == lang], lang)
                for lang in langs}

    hedges = {lang: _compile([pattern], lang) for lang, pattern in data["hedges"].items()}
    return Wording(by_lang("causal"), by_lang("proof"), hedges)


# ---- reading sentences ---------------------------------------------------------------------
@dataclass(frozen=True)
class Sentence:
    """One sentence of a cell: its text (markup set aside, offsets kept) and its references."""

    start: int
    text: str
    refs: tuple[str, ...]


def sentences(doc: Document, cell: Cell) -> tuple[Sentence, ...]:
    """The sentences of an exported markdown cell, with citations, labels, URLs, headings and
    code blanked (same length: offsets hold) and the labels each sentence references."""
    scan = doc.scans.get(cell.index)
    if scan is None or len(scan.source) > CELL_LIMIT:
        return ()
    return _SENTENCES(scan.source)


def _split(source: str) -> tuple[Sentence, ...]:
    scan = scan_cell(source)
    chars = list(scan.source)
    for span in scan.spans:
        if span.kind not in ("prose", "math"):
            chars[span.start:span.end] = re.sub(r"[^\n]", " ", scan.source[span.start:span.end])
    text = "".join(chars)
    text = blank_all(HEADING, text)
    refs: list[tuple[int, tuple[str, ...]]] = []
    if "\\" in text:
        text = blank_all(CITE, text)
        refs = [(m.start(), tuple(n.strip() for n in m.group(2).split(",") if n.strip()))
                for m in REF_PATTERN.finditer(text)]
        text = blank_all(REF_PATTERN, text)
        text = blank_all(LABEL, text)
    if "@" in text:
        text = blank_all(PANDOC_CITE, text)
    text = blank_all(URL, text)
    out: list[Sentence] = []
    start = 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = len(text) if m is None else m.end()
        piece = text[start:end]
        if piece.strip():
            names = tuple(n for at, group in refs if start <= at < end for n in group)
            out.append(Sentence(start, piece, names))
        start = end
    return tuple(out)


_SENTENCES = SourceMemo(_split)
"""A cell's sentences by its text: several rules read them, and a long-lived process keeps
them for the cells that did not change."""


def _claim_at(pattern: re.Pattern[str] | None, hedge: re.Pattern[str] | None,
              sentence: Sentence) -> re.Match[str] | None:
    """The first claim word of ``sentence`` that no hedge or negation before it weakens."""
    if pattern is None:
        return None
    m = pattern.search(sentence.text)
    if m is None:
        return None
    if hedge is not None and hedge.search(sentence.text, 0, m.start()):
        return None
    return m


# ---- what backs a sentence -----------------------------------------------------------------
@dataclass(frozen=True)
class Evidence:
    """One piece of evidence: its kind (``proof``, an experiment kind, or ``experiment`` when
    the cell names none) and how a message names it."""

    kind: str
    name: str


def _evidence(cell: Cell) -> Evidence:
    if cell.role == "experiment":
        return Evidence(cell.kind or "experiment", cell.label or f"cell {cell.index + 1}")
    return Evidence("proof", f"the proof in cell {cell.index + 1}")


def closure(doc: Document, statement: Cell, reading: Cell | None = None) -> list[Evidence]:
    """The evidence that closes ``statement`` (its proofs and validating experiments); the cell
    being read never counts (its "实验证明了 \\cref{clm:x}" is not a pointer to a proof)."""
    return [_evidence(c) for c in doc.closure_of(statement)
            if reading is None or c.index != reading.index]


def _direct(doc: Document, names: tuple[str, ...], reading: Cell) -> list[Evidence] | None:
    """The evidence the referenced labels stand for (``None`` when none is a statement or an
    experiment)."""
    found: list[Evidence] = []
    known = False
    for name in names:
        target = doc.cell_labels.get(name)
        if target is None:
            continue
        if target.role == "experiment":
            known = True
            found.append(_evidence(target))
        elif target.role in STATEMENT_ROLES:
            known = True
            found += closure(doc, target, reading)
    return found if known else None


def _subjects(doc: Document, names: tuple[str, ...]) -> list[Cell]:
    """The statements a sentence is about: those it references, and those the experiments it
    references validate."""
    out: list[Cell] = []
    for name in names:
        target = doc.cell_labels.get(name)
        if target is None:
            continue
        if target.role in STATEMENT_ROLES:
            out.append(target)
        elif target.role == "experiment":
            out += [doc.cell_labels[v] for v in target.validates
                    if v in doc.cell_labels and doc.cell_labels[v].role in STATEMENT_ROLES]
    unique: dict[int, Cell] = {}
    for c in out:
        unique.setdefault(c.index, c)
    return list(unique.values())


def paper_evidence(doc: Document) -> list[Evidence]:
    """Every validating experiment and every proof of the paper."""
    found = [_evidence(c) for c in doc.cells if c.role == "experiment" and c.validates]
    for c in doc.cells:
        if c.role in STATEMENT_ROLES:
            found += [e for e in closure(doc, c) if e.kind == "proof"]
    return found


def _kinds(evidence: list[Evidence]) -> str:
    """``controlled (fig:bound), real-model (fig:llm)``."""
    by_kind: dict[str, list[str]] = {}
    for e in evidence:
        names = by_kind.setdefault(e.kind, [])
        if e.name not in names:
            names.append(e.name)
    return "; ".join(f"{kind} ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})"
                     for kind, names in by_kind.items())


def _where(cell: Cell) -> str:
    if cell.role in STATEMENT_ROLES and cell.label:
        return f"{cell.role} {cell.label}"
    return f"the {cell.role}"


def _read_cells(doc: Document, roles: tuple[str, ...] | frozenset[str]) -> Iterator[Cell]:
    for cell in doc.cells:
        if cell.role in roles and cell.is_markdown and doc.exported(cell) and \
                cell.index in doc.scans:
            yield cell


# ---- MECH073 -------------------------------------------------------------------------------
def check_causal_wording(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Causal wording in a statement, the abstract or the conclusion whose evidence is only
    experiments, none of them an intervention or an ablation (a proof may say "causes" within
    its model)."""
    words = wording()
    lang = doc.paper.lang
    causal, hedge = words.causal.get(lang), words.hedges.get(lang)
    if causal is None:
        return
    whole: list[Evidence] | None = None
    for cell in _read_cells(doc, STATEMENT_ROLES | frozenset(SUMMARY_ROLES)):
        for sentence in sentences(doc, cell):
            m = _claim_at(causal, hedge, sentence)
            if m is None:
                continue
            backing = _direct(doc, sentence.refs, cell)
            if backing is None:
                if cell.role in STATEMENT_ROLES:
                    backing = closure(doc, cell)
                else:
                    whole = paper_evidence(doc) if whole is None else whole
                    backing = whole
            kinds = {e.kind for e in backing}
            if not backing or kinds & STRONG_KINDS:
                continue
            yield rule.at(
                doc, f"{_where(cell)} says “{m.group().strip()}”, a causal claim, but what backs "
                     f"it is only {_kinds(backing)} — no intervention, ablation or proof; "
                     "change only the suspected cause and measure the effect "
                     f"(`%mech validate {_label_hint(cell, sentence, doc)} --kind intervention`),"
                     " or say what the evidence shows (“is associated with”, “is consistent "
                     "with”; more: `mechnb phrases --function mechanism/causal-claim-hedging`)",
                cell.index, sentence.start + m.start())
            break  # one finding per cell


def _label_hint(cell: Cell, sentence: Sentence, doc: Document) -> str:
    if cell.role in STATEMENT_ROLES and cell.label:
        return cell.label
    subjects = _subjects(doc, sentence.refs)
    return subjects[0].label if subjects and subjects[0].label else "<label>"


# ---- MECH074 -------------------------------------------------------------------------------
def check_proof_wording(doc: Document, rule: Rule) -> Iterator[Finding]:
    """"We prove" / "confirms" / 证明了 about a statement that only experiments back."""
    words = wording()
    lang = doc.paper.lang
    proof, hedge = words.proof.get(lang), words.hedges.get(lang)
    if proof is None:
        return
    whole: list[Evidence] | None = None
    for cell in doc.cells:
        if cell.role in _NOT_OWN_CLAIMS or not cell.is_markdown or not doc.exported(cell) or \
                cell.index not in doc.scans:
            continue  # proof wording is read wherever the paper speaks for its own results
        for sentence in sentences(doc, cell):
            m = _claim_at(proof, hedge, sentence)
            if m is None:
                continue
            subjects = _subjects(doc, sentence.refs)
            if subjects:
                unproven = [s for s in subjects
                            if not any(e.kind == "proof" for e in closure(doc, s, cell))]
                backing = [e for s in unproven for e in closure(doc, s, cell)]
                what = ", ".join(s.label or f"cell {s.index + 1}" for s in unproven) + (
                    " are" if len(unproven) > 1 else " is")
            elif cell.role in STATEMENT_ROLES:
                backing, what = closure(doc, cell), _where(cell) + " is"
            else:  # the abstract, the conclusion, a discussion: against the whole paper
                whole = paper_evidence(doc) if whole is None else whole
                backing, what = whole, "the paper's claims are"
            if not backing or any(e.kind == "proof" for e in backing):
                named = _experiment_subject(doc, sentence, m.start()) if _PROVE.search(
                    m.group()) else []
                if named:  # "Figure 2 proves …": an experiment is said to prove, even when a
                    # proof backs the statement too ("confirms" a proven result is fine)
                    yield rule.at(
                        doc, f"“{m.group().strip()}” is proof wording, but its subject is an "
                             f"experiment ({_kinds([_evidence(c) for c in named])}), and an "
                             "experiment supports a claim without proving it; say "
                             f"{_suggestion(lang)} (more: `mechnb phrases --function "
                             "results/agreement`)", cell.index, sentence.start + m.start())
                    break
                continue
            suggestion = _suggestion(lang)
            yield rule.at(
                doc, f"“{m.group().strip()}” is proof wording, but {what} backed only by "
                     f"experiments ({_kinds(backing)}), and an experiment supports a claim "
                     f"without proving it; say {suggestion} (more: `mechnb phrases --function "
                     "results/agreement`)", cell.index, sentence.start + m.start())
            break


_PROVE = re.compile(r"(?i)prov|证明")
_PERCENT_TEXT = re.compile(r"%|％|percent|per cent")
_EXPERIMENT_WORDS = re.compile(
    r"(?i)\b(?:figures?|fig\.|tables?|experiments?|ablations?|interventions?|simulations?|"
    r"measurements?|runs?|plots?)\b[^.;:]{0,40}$|(?:实验|图|表|模拟|仿真)[^，。；]{0,6}$")


def _experiment_subject(doc: Document, sentence: Sentence, at: int) -> list[Cell]:
    """The experiments a sentence makes the subject of its proof word ("\\cref{fig:x} proves",
    "the ablation confirms"): those it references, when the words before the proof word name
    an experiment or are only the reference itself."""
    experiments = [c for name in sentence.refs
                   if (c := doc.cell_labels.get(name)) is not None and c.role == "experiment"]
    if not experiments:
        return []
    before = sentence.text[:at]
    if _EXPERIMENT_WORDS.search(before) or not WORD_RE.search(before):
        return experiments
    return []


def _suggestion(lang: str) -> str:
    return "“支持” or “与……一致”" if lang == "zh" else "“supports” or “is consistent with”"


# ---- MECH072 -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Number:
    """A number as the abstract or conclusion writes it."""

    text: str
    offset: int
    value: float
    """In its own unit, a percentage as a fraction (98% → 0.98)."""
    precision: int
    """Decimal places of ``value`` (98% → 2, 98.5% → 3, 0.98 → 2)."""


def reported_numbers(sentence: Sentence) -> Iterator[Number]:
    """The measurements a sentence reports: percentages, decimals and speed-ups (a plain integer
    such as "64 keys" or "2 layers" is a setting, not a result)."""
    for m in _NUMBER.finditer(sentence.text):
        num, unit = m.group("num"), m.group("unit")
        if unit is None and "." not in num:
            continue
        if unit is None and _NOT_A_RESULT.search(sentence.text, 0, m.start()):
            continue
        decimals = len(num.split(".")[1]) if "." in num else 0
        value = float(num)
        if unit is not None and unit.strip("\\") in ("%", "％", "percent", "per cent"):
            value, decimals = value / 100, decimals + 2
        yield Number(m.group().strip(), sentence.start + m.start(), value, decimals)


def _shown_values(doc: Document, skip: set[int]) -> list[tuple[float, bool]]:
    """Every number the reader can see outside the ``skip`` cells: markdown and raw text,
    captions, and text outputs (stream, text/plain, HTML, LaTeX, markdown tables), each with
    whether it is the hundredth of a plain number: a shown 98 may be the 98 % a summary
    writes, never the 0.98 (``_shown``)."""
    texts: list[str] = []
    for cell in doc.cells:
        if not doc.exported(cell):
            continue
        if cell.caption:
            texts.append(cell.caption)
        if cell.index in skip:
            continue
        if cell.cell_type in ("markdown", "raw"):
            texts.append(cell.source)
        for output in cell.outputs:
            if output.get("output_type") == "stream":
                texts.append(_joined(output.get("text", "")))
            data = output.get("data")
            if isinstance(data, dict):
                for mime in ("text/plain", "text/markdown", "text/latex", "text/html"):
                    if mime in data:
                        texts.append(_TAG.sub(" ", _joined(data[mime])))
    values: list[tuple[float, bool]] = []
    for text in texts:
        for m in _NUMBER_ANY.finditer(text):
            raw = m.group("num")
            if "," in raw:
                raw = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw) else \
                    raw.split(",")[0]
            try:
                value = float(raw)
            except ValueError:
                continue
            if m.group("unit"):
                values.append((value / 100, False))  # a shown percentage
            else:
                values += [(value, False), (value / 100, True)]  # 37.5 may be 37.5 %
    return values


def _joined(text: Any) -> str:
    if isinstance(text, list):
        return "".join(str(t) for t in text)
    return str(text)


def _shown(number: Number, values: list[tuple[float, bool]]) -> bool:
    """True if some shown value rounds to ``number`` at its precision. A plain shown number
    counts as a percentage (÷100) only when the written number is one: "37.5%" is shown by a
    table's 37.5, but "0.002" is not shown by 0.2."""
    tolerance = 0.5 * 10 ** -number.precision + 1e-12
    percent = _PERCENT_TEXT.search(number.text) is not None
    return any(math.isclose(v, number.value, abs_tol=tolerance) for v, hundredth in values
               if percent or not hundredth)


def _figure_pointer(doc: Document, sentence: Sentence) -> str | None:
    """The label of a figure or experiment the sentence points at (it may show the number)."""
    for name in sentence.refs:
        target = doc.cell_labels.get(name)
        if name.startswith(("fig:", "fig.", "tab:", "table:")) or (
                target is not None and (target.role in ("experiment", "figure")
                                        or doc.has_figure(target))):
            return name
    return None


def check_numbers_shown(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A percentage, decimal or speed-up in the abstract or conclusion appears in some other
    cell, caption, table or text output (98% and 0.98 are the same number)."""
    summaries = list(_read_cells(doc, SUMMARY_ROLES))
    if not summaries:
        return
    values: list[tuple[float, bool]] | None = None
    skip = {c.index for c in summaries}
    for cell in summaries:
        for sentence in sentences(doc, cell):
            for number in reported_numbers(sentence):
                values = _shown_values(doc, skip) if values is None else values
                if _shown(number, values):
                    continue
                figure = _figure_pointer(doc, sentence)
                if figure is not None:
                    yield finding(
                        doc, rule.code, rule.name, Severity.INFO,
                        f"the {cell.role} reports {number.text}, which no cell, caption, table "
                        f"or text output shows; the sentence points at {figure}, which may "
                        "show it (images are not read): make sure it does, or print the value "
                        "in the experiment that measures it", cell.index, number.offset,
                        (number.text,))
                    continue
                yield rule.at(
                    doc, f"the {cell.role} reports {number.text}, but no other cell, caption, "
                         "table or text output shows it: print it in the experiment that "
                         "measures it, state it in a result (`%mech result`), or drop it",
                    cell.index, number.offset, (number.text,))
