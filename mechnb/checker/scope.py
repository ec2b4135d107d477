"""MECH082: a claim about real models that only toy experiments back; MECH083: strong wording
about a result that rests on one seed.

A sentence in which the paper speaks for its own results (not a proof, not prior work, not its
limitations) and claims something of a named real model family (GPT-2, Llama, Pythia, …), of
"large language models" or of what models do "in practice", needs an experiment of kind
``real-model``: a toy model that behaves as predicted says nothing yet about GPT-2. Hedged,
negated or forward-looking sentences ("may hold in GPT-2", "this suggests", "we did not test
Llama", "future work") are not claims. Notebooks only, and only those with typed experiments
(a LaTeX paper's experiment kinds are not known; a notebook without experiment cells is judged
by MECH002); code that loads a pretrained model (``from_pretrained``, ``HookedTransformer``…)
backs the claim whatever the cells' kinds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..findings import Finding, Severity
from ..lazyre import lazy
from .claims import sentences
from .document import Document, finding

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
_LOADS_REAL_MODEL = lazy(
    r"\.from_pretrained\(|\bHookedTransformer\b|\bAutoModel\w*|\bpipeline\(|"
    r"\bfrom transformers import\b|\bimport transformers\b|\bLanguageModel\(")
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


_ANALYTIC_ROLES = frozenset({"setup", "theorem", "lemma", "proposition", "corollary",
                             "definition", "proof", "formula"})


def _analytic(doc: Document, refs: tuple[str, ...]) -> bool:
    """True when the sentence rests on the paper's analysis (it references a setup, a proved
    statement or a derivation): "\\Cref{sec:setup} extends the argument to Llama" is not an
    experimental claim."""
    return any((c := doc.cell_labels.get(name)) is not None and c.role in _ANALYTIC_ROLES
               for name in refs)


def check_real_model_claims(doc: Document, rule: Rule) -> Iterator[Finding]:
    """A claim about a named real model, LLMs or "in practice", with no real-model
    experiment."""
    if any(c.role == "experiment" and c.kind == "real-model" for c in doc.cells):
        return
    kinds = sorted({c.kind or "experiment" for c in doc.cells
                    if c.role == "experiment" and c.validates})
    if not kinds:
        return  # no typed experiment to weigh the claim against (MECH002 asks for one)
    code = "\n".join(c.source for c in doc.cells if c.cell_type == "code")
    if _LOADS_REAL_MODEL.search(code):
        return  # the code runs a pretrained model, whatever the cells' kinds say
    backing = ", ".join(kinds)
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
            if m is None or _HEDGED.search(sentence.text) or _analytic(doc, sentence.refs):
                continue
            yield rule.at(
                doc, f"this sentence claims something of “{m.group().strip()}”, but the "
                     f"paper's experiments are {backing} — none of kind real-model; test it "
                     "on that model (`%mech validate <label> --kind real-model`), or say "
                     "that the result is shown for the toy model and may not transfer",
                cell.index, sentence.start + m.start())
            break  # one finding per cell


# ---- MECH083 -------------------------------------------------------------------------------
_SEED_CALL = lazy(
    r"(?:manual_seed|default_rng|\.seed|RandomState|PRNGKey|set_seed|random\.Random|"
    r"Generator\(\s*\w+\()\(\s*(?:seed\s*=\s*)?(\d+)\s*\)|\b(?:SEED|seed|RNG_SEED)\s*=\s*(\d+)\b")
_TUPLE_ASSIGN = lazy(r"(?m)^[ \t]*(\w+(?:[ \t]*,[ \t]*\w+)+)[ \t]*=[ \t]*"
                     r"([\w.+-]+(?:[ \t]*,[ \t]*[\w.+-]+)+)")
_SEED_USE = lazy(r"(?:manual_seed|default_rng|\.seed|RandomState|PRNGKey|set_seed)\(")
_THEORY_BEFORE = lazy(r"(?i)\b(?:deriv\w*|prov\w*|solv\w*|comput\w*|express\w*|analytic\w*|"
                      r"closed[- ]form|formula|推导|证明|解析)\b[^.;,]{0,40}$")
_SEED_LOOP = lazy(r"\bfor\s+\w*seed\w*\s+in\b|\bseeds\s*=\s*[\[(]|\bn_?seeds\b|\bnum_seeds\b")
_STRONG = lazy(r"(?i)\b(?:exactly|always|consistently|in every run|in all runs|without exception|"
               r"invariably)\b(?!\s+(?:when|if|iff|whenever|one|two|three|\d))|恰好|总是|始终|每次都")
_MEASURED = lazy(r"(?i)\b(?:observ\w*|measur\w*|train\w*|experiment\w*|runs?|simulat\w*|"
                 r"predicted|empirical\w*)\b|实验|观测|测量|训练")
_DISCLOSED = lazy(r"(?i)\b(?:one|a single|single|only one) (?:random )?(?:seed|run)\b|"
                  r"单(?:一|个)种子|一个(?:随机)?种子|一次运行")
_SEED_CLAIMS = _NOT_CLAIMS | frozenset({"theorem", "lemma", "proposition", "corollary", "claim",
                                        "mechanism", "lens"})
"""Roles whose "exactly" is not about a measured result (a statement says when it holds)."""


_SPREAD_TEXT = lazy(
    r"(?i)±|\+/-|\\pm\b|\bstd\b|standard (?:deviation|error)|\bs\.d\.|\bsem\b|"
    r"confidence interval|\bCI\b|error ?bars?|interquartile|"
    r"\b(?:spread|range|variance|variation|min(?:imum)?|max(?:imum)?|between [\d.]+ and [\d.]+|"
    r"from [\d.]+ to [\d.]+)\b[^.]{0,40}\b(?:across|over|among|between|of) (?:the |all |our )?"
    r"(?:\d+ |two |three |four |five |ten |several )?(?:random )?(?:seeds|runs)\b|"
    r"\b(?:every|each|all) (?:\d+ |of the \d+ )?(?:random )?seeds|"
    r"标准差|误差棒|置信区间|(?:种子|运行)[^。]{0,10}(?:范围|方差|波动)")
"""Words that report how much a result moves across seeds."""
_SPREAD_CODE = lazy(r"errorbar\(|fill_between\(|\.std\(|np\.std\b|\bsem\(|quantile\(|"
                    r"percentile\(|\.var\(")
"""Code that computes or draws the spread (a figure with error bars reports it)."""
_NUMBER = lazy(r"\d")


def seed_values(code: str) -> set[str]:
    """The literal seed values the code fixes."""
    values = {m.group(1) or m.group(2) for m in _SEED_CALL.finditer(code)}
    for m in _TUPLE_ASSIGN.finditer(code):  # seed, vocab, width = 0, 64, 256
        names = [n.strip() for n in m.group(1).split(",")]
        given = [v.strip() for v in m.group(2).split(",")]
        for name, value in zip(names, given, strict=False):
            if name.lower() in ("seed", "rng_seed") and value.isdigit():
                values.add(value)
    return values


def single_seed(doc: Document, disclosed: bool) -> bool:
    """True when the code never loops over seeds and fixes one seed value (or seeds its
    generators from a variable while the text says one seed was used)."""
    code = "\n".join(c.source for c in doc.cells if c.cell_type == "code")
    if _SEED_LOOP.search(code):
        return False
    values = seed_values(code)
    return len(values) == 1 or (disclosed and not values and _SEED_USE.search(code) is not None)


def _several_seeds(doc: Document) -> int | None:
    """The first code cell that runs one computation over several seeds (a loop over seeds, a
    list of seeds, ``n_seeds``), or None. Two cells that each fix their own seed are two
    computations, not one result over seeds (tutorials seed each example anew)."""
    return next((c.index for c in doc.cells
                 if c.cell_type == "code" and _SEED_LOOP.search(c.source)), None)


def _spread_unreported(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Several seeds were run, the text reports measured numbers, and neither the text (prose,
    captions) nor the code (error bars, a standard deviation) reports the spread across them:
    info, a warning when the text words a measured result strongly ("consistently")."""
    at = _several_seeds(doc)
    if at is None:
        return
    code = "\n".join(c.source for c in doc.cells if c.cell_type == "code")
    if _SPREAD_CODE.search(code):
        return
    measured = strong = False
    for cell in doc.cells:
        if cell.cell_type == "code" or not doc.exported(cell):
            continue
        if _SPREAD_TEXT.search(cell.source) or _SPREAD_TEXT.search(cell.caption or ""):
            return
        if cell.role in _SEED_CLAIMS or not cell.is_markdown or cell.index not in doc.scans:
            continue
        for sentence in sentences(doc, cell):
            if _MEASURED.search(sentence.text) and _NUMBER.search(sentence.text):
                measured = True
                strong = strong or bool(_STRONG.search(sentence.text))
    if not measured:
        return
    yield finding(doc, rule.code, rule.name, Severity.WARNING if strong else Severity.INFO,
                  "this code runs several seeds, but neither the text nor a figure reports the "
                  "spread across them (±, a standard deviation, a range, error bars): a reader "
                  "cannot tell how much the seed moves the numbers the text reports; report it",
                  at, 0)


def check_single_seed_claims(doc: Document, rule: Rule) -> Iterator[Finding]:
    """Strong wording ("exactly", "always", "consistently") about a measured result that rests
    on one seed: a warning, or info when the paper says it used one seed. When several seeds
    were run, the text (or a figure) reports the spread across them (``_spread_unreported``)."""
    disclosed = any(_DISCLOSED.search(c.source) or _DISCLOSED.search(c.caption or "")
                    for c in doc.cells if c.cell_type != "code")
    if not single_seed(doc, disclosed):
        yield from _spread_unreported(doc, rule)
        return
    severity = Severity.INFO if disclosed else Severity.WARNING
    for cell in doc.cells:
        if cell.role in _SEED_CLAIMS or not cell.is_markdown or not doc.exported(cell) or \
                cell.index not in doc.scans:
            continue
        for sentence in sentences(doc, cell):
            m = _STRONG.search(sentence.text)
            if m is None or not _MEASURED.search(sentence.text) or \
                    _HEDGED.search(sentence.text, 0, m.start()) or \
                    _THEORY_BEFORE.search(sentence.text, max(0, m.start() - 60), m.start()):
                continue  # "we derive the drift exactly" is about the mathematics
            said = ("the paper says so, but a reader still sees one run behind “"
                    f"{m.group()}”" if disclosed else "and the paper never says so")
            yield finding(doc, rule.code, rule.name, severity,
                          f"“{m.group()}” about a measured result that rests on one seed (the "
                          f"code fixes a single seed and never loops over seeds) — {said}; run "
                          "several seeds and report the spread, or say “in this run”",
                          cell.index, sentence.start + m.start())
            break  # one finding per cell
