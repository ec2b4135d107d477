"""``mechnb check paper.tex``: the closing-loop and substance rules on a LaTeX paper.

The paper is read into the notebook model (``reader`` → ``notebook``) and checked by the same
rules as a notebook, with the profile of ``LATEX_RULES``: rules about what only a notebook has
(run state, code evidence, template slots, metadata, MathJax, the TeX gate) do not apply, and a
few are milder (real papers interpret a theorem in running text). The configuration is the
same (``[tool.mechnb]`` in the nearest ``pyproject.toml``) and goes on top of the profile.
Findings are reported at ``file.tex:LINE:COL``; ``% mech-ignore: CODE`` on the line, or on the
line before an environment or paragraph, silences a rule there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Finding, Severity
from .notebook import Imported, build_notebook
from .reader import LatexPaper, read_latex

if TYPE_CHECKING:
    from ..checker.config import CheckConfig
    from ..checker.rule import Rule
    from ..notebook import Cell, Paper

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
NA = None


@dataclass(frozen=True)
class Applicability:
    """How a rule applies to LaTeX input."""

    severity: Severity | None
    """The severity for LaTeX input (``None``: the rule does not apply)."""
    why: str


LATEX_RULES: dict[str, Applicability] = {
    "MECH001": Applicability(W, "gap, lens and limitations are read from the introduction's "
                                "moves and the section titles; reported only when no sentence "
                                "of the text states them either (a lens: papers whose title, "
                                "keywords or abstract frame them as a study of a mechanism in "
                                "Transformers / LLMs only; \"through the lens of\", \"in terms "
                                "of\", \"we model … as\", or a named analytical tool such as "
                                "activation patching state one)"),
    "MECH002": Applicability(W, "a proof, a figure/table that references the statement, or an "
                                "experiments / results / evaluation section with figures or "
                                "tables"),
    "MECH003": Applicability(INFO, "papers often interpret a theorem in running text further on; "
                                   "the paragraph after it that talks about it, or under a "
                                   "run-in heading such as \"Interpretation: …\", interprets it"),
    "MECH004": Applicability(W, "a proof after it, a proof titled or referencing its label, or "
                                "an experiment figure that references it"),
    "MECH005": Applicability(INFO, "as for notebooks, but milder"),
    "MECH006": Applicability(INFO, "intervention is guessed from captions (ablation, patching…)"),
    "MECH007": Applicability(NA, "run state: notebook only"),
    "MECH008": Applicability(W, "figures and tables need a caption"),
    "MECH009": Applicability(NA, "about a validating cell's caption metadata"),
    "MECH010": Applicability(NA, "formula cells are a notebook template"),
    "MECH011": Applicability(NA, "formula cells are a notebook template"),
    "MECH012": Applicability(W, "same"),
    "MECH013": Applicability(INFO, "same"),
    "MECH014": Applicability(E, "same"),
    "MECH015": Applicability(E, "same (labels from every input file)"),
    "MECH016": Applicability(E, "the .bib files of \\bibliography, or the .bbl"),
    "MECH017": Applicability(E, "same"),
    "MECH018": Applicability(NA, "validates metadata: notebook only"),
    "MECH019": Applicability(NA, "validates metadata: notebook only"),
    "MECH020": Applicability(W, "same; an unlabelled float right after a paragraph that "
                                "introduces it (\"…, as follows:\", \"Below is …\") is pointed "
                                "to by its place; a command of the paper's own that "
                                "references its argument (\\Figref) is a reference"),
    "MECH021": Applicability(NA, "TeX itself reports unbalanced source"),
    "MECH022": Applicability(NA, "the TeX gate guards notebooks; `mechnb import` reports it"),
    "MECH023": Applicability(W, "same; \"Experiment 2\" only when the paper numbers its "
                                "experiments (an experiment environment or counter): otherwise "
                                "it is the experiment's name"),
    "MECH024": Applicability(W, "same"),
    "MECH025": Applicability(NA, "template slots: notebook only"),
    "MECH026": Applicability(NA, "the boxed question is a notebook template"),
    "MECH027": Applicability(INFO, "same"),
    "MECH028": Applicability(W, "same"),
    "MECH029": Applicability(NA, "notebook resources"),
    "MECH030": Applicability(NA, "metadata names"),
    "MECH036": Applicability(NA, "MathJax: notebook only"),
    "MECH037": Applicability(NA, "MathJax: notebook only"),
    "MECH038": Applicability(NA, "MathJax: notebook only"),
    "MECH039": Applicability(NA, "MathJax: notebook only"),
    "MECH040": Applicability(NA, "the paper chooses its own engine and input encoding"),
    "MECH045": Applicability(NA, "export of notebook cells"),
    "MECH046": Applicability(NA, "code outputs"),
    "MECH047": Applicability(INFO, "a LaTeX paper's sections are the author's layout and its "
                                   "parts are guessed from section titles (precision on the "
                                   "labelled papers 39 % as a warning)"),
    "MECH048": Applicability(W, "same"),
    "MECH049": Applicability(NA, "table outputs of code cells"),
    "MECH050": Applicability(W, "same"),
    "MECH051": Applicability(INFO, "key formulas are labelled displays in running text; an "
                                   "intuition stated just before the formula counts"),
    "MECH052": Applicability(INFO, "same, milder"),
    "MECH053": Applicability(INFO, "same"),
    "MECH054": Applicability(INFO, "a paper has no implication cell: a sentence of the abstract "
                                   "or of a discussion / conclusion section that draws a "
                                   "consequence for the model (\"suggests\", \"helps explain "
                                   "why\"; in a discussion section also \"the results show "
                                   "that … attention …\") is its implication"),
    "MECH055": Applicability(NA, "markdown math"),
    "MECH060": Applicability(INFO, "a published paper's abstract often states its gap inside "
                                   "a context sentence (\"…, yet far less understood\"), which the "
                                   "move model misses (precision on the labelled papers 42 % as a "
                                   "warning, issue 36)"),
    "MECH061": Applicability(NA, "the order of a published abstract's moves is the authors' "
                                 "choice, and the move model reads prior work's evaluations and "
                                 "a design described as validation (precision on the labelled "
                                 "papers 0 % of 3 as info, issue 36)"),
    "MECH062": Applicability(W, "same"),
    "MECH063": Applicability(INFO, "same"),
    "MECH070": Applicability(W, "same"),
    "MECH071": Applicability(NA, "code outputs"),
    "MECH072": Applicability(NA, "numbers against code outputs"),
    "MECH073": Applicability(W, "same"),
    "MECH074": Applicability(INFO, "same"),
    "MECH075": Applicability(W, "same"),
    "MECH076": Applicability(NA, "code"),
    "MECH077": Applicability(NA, "run state"),
    "MECH078": Applicability(NA, "run state"),
    "MECH079": Applicability(NA, "the TeX gate guards notebooks"),
    "MECH080": Applicability(NA, "MathJax: notebook only"),
    "MECH081": Applicability(NA, "numbers against code outputs"),
    "MECH082": Applicability(NA, "experiment kinds (real-model or toy) are not known from LaTeX"),
    "MECH083": Applicability(NA, "seeds are read from the notebook's code"),
    "MECH035": Applicability(NA, "notebook format"),
    "MECH901": Applicability(NA, "notebook metadata"),
    "MECH902": Applicability(NA, "notebook metadata"),
    "MECH903": Applicability(NA, "notebook metadata"),
    "MECH904": Applicability(NA, "notebook metadata (duplicate labels: MECH014)"),
    "MECH905": Applicability(NA, "notebook metadata"),
}
"""Every rule of the registry → its severity on LaTeX input (``None``: not applied), and why."""

INPUT_FINDINGS = {
    "input-not-found": ("MECH870", Severity.WARNING),
    "figure-input-not-found": ("MECH871", Severity.INFO),
    "parse-error": ("MECH872", Severity.WARNING),
    "definition-not-read": ("MECH873", Severity.WARNING),
    "file-refused": ("MECH874", Severity.WARNING),
}
"""Findings of reading the sources (codes of the LaTeX-input range)."""
_FIGURE_INPUT = re.compile(r"\.(?:pgf|pdf_tex|tikz|eps|pdf|png)\}")


def latex_config(base: CheckConfig) -> CheckConfig:
    """The LaTeX profile's severities with the user's configuration on top."""
    from ..checker.config import CheckConfig

    severity = {code: a.severity for code, a in LATEX_RULES.items() if a.severity is not None}
    return CheckConfig(frozenset(), severity).merged(base)


def latex_rules() -> list[Rule]:
    """The rules that apply to LaTeX input, in registry order."""
    from ..checker.rules import RULES

    return [r for r in RULES if (a := LATEX_RULES.get(r.code)) is not None and
            a.severity is not None]


def read_for_check(path: str | Path) -> Imported:
    """The paper at ``path`` as a notebook, its bibliography named for the citation rules."""
    paper = read_latex(path, keep_hidden=False, chapters_as_latex=False)
    names = [name for name, _path, _data in paper.bib_files]
    refused = any(p.slug == "file-refused" and p.message.startswith("the bibliography")
                  for p in paper.problems)
    absent = [] if refused else [name + ".bib" for name in paper.bibliography
                                 if name + ".bib" not in names]
    if (not names or absent) and paper.bbl is not None:
        names.append(paper.bbl.name)  # the compiled bibliography holds every cited key
    elif absent:
        # a named .bib that is not there is reported missing, as for notebooks (not each key
        # it would hold: `\bibliography{anthology,custom}` without the large anthology.bib)
        names.extend(absent if names else absent[:1])
    return build_notebook(paper, ",".join(names) or None, macros=False)


def check_latex(path: str | Path) -> list[Finding]:
    """Every finding for the LaTeX paper at ``path`` (a main ``.tex`` or its folder), in
    document order, each at a file, line and column."""
    from ..checker import check, load_config
    from ..notebook import paper_from_dict

    imported = read_for_check(path)
    latex = imported.paper
    nb_path = latex.source.main
    paper = paper_from_dict(imported.notebook, nb_path)
    config = latex_config(load_config(paper))
    numbered = numbers_experiments(latex)
    through_macros = macro_referenced(latex)
    findings = [remap(f, imported) for f in check(paper, config=config, rules=latex_rules())
                if (f.code not in ("MECH001", "MECH002") or role_missing_in_text(f.message, paper))
                and (f.code != "MECH023" or numbered or not _EXPERIMENT_NAME.match(f.message))
                and (f.code != "MECH020" or not through_macros.intersection(f.labels))
                and (f.code != "MECH054" or not implication_in_text(paper))]
    findings += input_findings(latex)
    lines: dict[str, list[str]] = {}
    findings = [f for f in findings if not _ignored_on_line(f, latex, lines)]
    findings.sort(key=lambda f: (str(f.file), f.line or 0, f.column or 0, f.code))
    return findings


def _titled(english: str, chinese: str) -> re.Pattern[str]:
    """A markdown heading whose title holds one of the ``english`` words (a ``|``-separated
    pattern, after an optional section number) or one of the ``chinese`` ones."""
    return re.compile(r"(?im)^[ \t]{0,3}#{1,6}[ \t]+(?:\d[\d.]*\s+)?[^\n]*\b(?:" + english
                      + r")\b|^[ \t]{0,3}#{1,6}[ \t]+[^\n]*(?:" + chinese + ")")


_CLOSING_HEADING = _titled(r"discussion|conclu\w*|implications?|broader impacts?|outlook|"
                           r"summary|takeaways?", "讨论|结论|总结|启示")
_IMPLICATION_CUE = re.compile(
    r"(?i)\b(?:suggests?|implies|implications?|means that|for practitioners|in practice|"
    r"sheds? light|helps? explain|explains? why|points? (?:to|toward)|informs?|should|"
    r"recommend\w*|inductive bias|complements?|consequences?|opens? (?:the way|a path)|"
    r"calls? for|motivates?|guid(?:e|es|ance)|complementary)\b|意味着|启示|建议")
_DISCUSSION_CUE = re.compile(
    r"(?i)\b(?:shows? that|demonstrates? that|highlights?|provides? evidence|indicates?|"
    r"reveals?|we expect)\b|表明")
"""A finding drawn out in a discussion section ("the results demonstrate that standard
post-training is not sufficient …"): an implication there, a result in the abstract."""
_DISCUSSION_HEADING = _titled(r"discussion|implications?|broader impacts?|outlook", "讨论|启示")
_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]?")


def implication_in_text(paper: Paper) -> bool:
    """Does the paper say what its result means for attention or LLMs where papers say it — a
    sentence of the abstract, or of a discussion / conclusion / implications section, that draws
    a consequence ("suggests", "helps explain why", "for practitioners") and names the model
    ("attention", "LLMs", "heads", "training")? A LaTeX paper has no `implication` cell; MECH054
    stands only when no such sentence exists."""
    from ..checker.paper import MODEL_TERMS
    from ..moves.paper import heading_level

    cells: list[tuple[Cell, bool]] = []  # (cell, in a discussion section)
    closing: int | None = None  # the level of the closing section's heading, inside one
    discussion = False
    for c in paper.cells:  # markdown or kept as raw LaTeX (an abstract often is)
        head = c.source.lstrip()
        level = heading_level(c.source) if c.is_markdown else None
        if level is not None:
            if closing is None or level <= closing:
                closing = level if _CLOSING_HEADING.match(head) else None
                discussion = closing is not None and bool(_DISCUSSION_HEADING.match(head))
            continue
        if closing is not None or c.role in ("abstract", "conclusion", "implication"):
            cells.append((c, discussion and closing is not None))
    return any((_IMPLICATION_CUE.search(s) or (discussed and _DISCUSSION_CUE.search(s)))
               and MODEL_TERMS.search(s)
               for c, discussed in cells for s in _SENTENCE.findall(c.source))


def macro_referenced(latex: LatexPaper) -> frozenset[str]:
    """The labels the paper refers to through a command of its own that references an argument
    (``\\def\\Figref#1{Figure~\\ref{#1}}``, as venue templates' ``math_commands.tex`` define;
    ``\\newcommand{\\fig}[1]{Fig.~\\ref{fig:#1}}``): a reference a reader follows, although
    the check's reading of a paragraph kept as raw LaTeX does not expand the command."""
    from ..checker.document import REF_COMMANDS
    from ..tex.comments import mask_comments

    ref = re.compile(r"\\(?:" + "|".join(REF_COMMANDS) + r")\*?\s*\{([^{}#]*)#(\d)([^{}#]*)\}")
    forms = {m.name: (m.args, [(r.group(1), int(r.group(2)), r.group(3))
                               for r in ref.finditer(m.body)])
             for m in latex.declarations.macros.values() if m.args >= 1 and m.name.isalpha()}
    forms = {name: form for name, form in forms.items() if form[1]}
    if not forms:
        return frozenset()
    use = re.compile(r"\\(" + "|".join(map(re.escape, forms)) + r")(?![A-Za-z])\*?")
    arg = re.compile(r"\s*\{([^{}]*)\}")
    text = mask_comments(latex.source.text)
    out: set[str] = set()
    for m in use.finditer(text):
        count, refs = forms[m.group(1)]
        args, at = [], m.end()
        for _ in range(count):
            a = arg.match(text, at)
            if a is None:
                break
            args.append(a.group(1))
            at = a.end()
        for prefix, k, suffix in refs:
            if k <= len(args):
                out.update(prefix + name.strip() + suffix for name in args[k - 1].split(","))
    return frozenset(out)


_GAP_CUE = re.compile(
    r"(?i)\bhowever\b|\bremains?\b[^.]{0,40}\b(?:unclear|unknown|open|elusive|poorly|limited|"
    r"unexplored|challenging)|\bunclear\b|little is known|"
    r"not (?:yet |well |fully )?(?:understood|known)|\black(?:s|ing)?\b|\bunknown\b|"
    r"open (?:question|problem)|\bunexplored\b|\blittle[- ]known\b|\boverlooked\b|"
    r"\bunder-?(?:explored|exploited|studied|appreciated|investigated)\b|"
    r"\b(?:less|poorly) understood\b|"
    r"\bfail(?:s|ed)? to\b|\bbottleneck\b|"
    r"\b(?:close|closes|closing|fill|fills|bridge|bridges|bridging) "
    r"(?:this|the|that|these) gaps?\b|"
    r"\bthe (?:central |key |main |open |real )?question (?:is|remains)\b|"
    r"\b(?:these|such) (?:are|remain) (?:the |open )?questions\b|"
    r"\b(?:answers?|asks?|addresses?|studies) a different question\b|"
    r"然而|但是|尚不清楚|仍不清楚|缺乏|尚未|不足|局限")
_EVALUATION_HEADING = re.compile(
    r"(?im)^#+[^\n]*\b(?:experiments?|experimental|evaluations?|results|benchmarks?|empirical|"
    r"case stud(?:y|ies))\b|^#+[^\n]*(?:实验|结果|评估)")
_LIMITATION_CUE = re.compile(
    r"(?im)\b(?:our|this|the main|main|key|important|one|remaining|current|known)\s+"
    r"(?:[\w-]+\s+){0,2}limitations?\b(?! of (?:existing|prior|previous|other|these|those|such))"
    r"|\blimitations? of (?:our (?:[\w-]+ )?|this |the (?:present|current) )"
    r"(?:study|work|paper|thesis|report|approach|method|analysis|experiments?|results?)\b"
    r"|^#+[^\n]*\blimitations?\b|\bwe do not (?:address|cover|study|consider)\b"
    r"|\b(?:in this (?:paper|work|study|thesis),? we|this (?:paper|work|study|thesis)) "
    r"(?:only|just) (?:consider|stud(?:y|ie)|investigat|analy[sz]|focus(?:es)? on\b|treat|address)"
    r"|\bour (?:[\w-]+ ){0,2}(?:methods?|approach(?:es)?|algorithms?|analys[ie]s|models?|"
    r"results?|theory|bounds?|solvers?|estimators?|procedures?|implementations?|systems?|"
    r"framework|metrics?|techniques?)\b[^.]{0,150}\b(?:is|are) not (?:viable|scalable|feasible|"
    r"practical|applicable)\b|局限|不足之处")
"""A sentence that names a limit of the paper itself ("the main limitation is", "one important
limitation", "the limitations of our study", a Limitations heading, "in this paper we only
consider ε-greedy exploration", "our algorithms … are not viable at scale"), not the limitations
of the methods it improves on."""


_LENS_TOOLS = (
    r"(?:activation patching|causal (?:tracing|mediation|interventions?|abstraction)|"
    r"circuit (?:analysis|discovery)|linear probes|probing|sparse autoencoders?|transcoders?|"
    r"logit lens|tuned lens|attribution (?:patching|graphs?)|dictionary learning|"
    r"training dynamics|gradient flow|mean[- ]field|random matrix theory|"
    r"statistical (?:physics|mechanics)|information theory|formal language theory|"
    r"circuit complexity|dynamical systems?|influence functions?|(?:loss )?curvature|"
    r"neural tangent kernel)\b")
_LENS_CUE = re.compile(
    r"(?i)\b(?:we|our|this (?:paper|work|study))\b[^.]{0,150}?\b(?:lens|perspective|viewpoint|"
    r"framework for (?:understanding|analy[sz]ing|explaining))\b"
    r"|\b(?:through|via|from|under) (?:the|a|an) (?:[\w-]+ ){0,2}"
    r"(?:lens|perspective|viewpoint) of\b"
    r"|\bwe (?:view|cast|frame|interpret|reinterpret|recast|model|formali[sz]e|formulate|treat) "
    r"[^.]{0,80}?\bas\b"
    r"|\b(?:is|are) (?:viewed|seen|cast|framed|recast|reinterpreted) as\b"
    r"|\b(?:characteri[sz]\w*|explain\w*|describ\w*|analy[sz]\w*|formali[sz]\w*|quantif\w*|"
    r"interpret\w*|understand\w*)\b[^.]{0,80}?\bin terms of\b"
    r"|\b(?:we|our|this (?:paper|work|study))\b[^.]{0,100}?\b(?:us(?:e|es|ing)|leverag\w*|"
    r"appl(?:y|ies|ying)|employ\w*|adopt\w*|through|via)\b[^.]{0,40}?\b" + _LENS_TOOLS +
    r"|(?:^|[.!?]\s+)(?:using|leveraging|applying|through|via|with)\b[^.]{0,40}?\b" + _LENS_TOOLS +
    r"|视角")
"""A sentence that names the paper's analytical perspective ("this paper explores …, revealing a
perspective that …", "through the lens of", "we view attention as …", "once RoPE is viewed
as …", "we model the cache as …"), what it explains something in terms of ("we characterise
memorisation in terms of the curvature …"), or the analytical tool it works through ("we use
activation patching to …", "via sparse autoencoders", "through training dynamics")."""

_EXPERIMENT_NAME = re.compile(r"'Experiments? ")
_EXPERIMENT_COUNTER = re.compile(r"\\newcounter\s*\{\s*experiments?\s*\}")
_EXPERIMENT_WORD = re.compile(r"(?i)experiments?")


def numbers_experiments(latex: LatexPaper) -> bool:
    """Does the paper number its experiments itself (a theorem-like environment printed
    "Experiment", or an ``experiment`` counter)? Only then is a hand-typed "Experiment 2" a
    number that reordering breaks (MECH023); otherwise it is the experiment's name, as its own
    heading ("Experiment 2: …") or a run's number in a table gives it."""
    decl = latex.declarations
    names = [*decl.theorems, *(printed.strip() for printed in decl.theorem_names.values())]
    return (any(_EXPERIMENT_WORD.fullmatch(name) for name in names)
            or bool(_EXPERIMENT_COUNTER.search(latex.source.text)))


def role_missing_in_text(message: str, paper: Paper) -> bool:
    """A MECH001 / MECH002 finding on a LaTeX paper stands only when the paper's own text agrees:
    its roles are read from the prose, so a gap is missing only when no sentence of the
    abstract or the introduction says what is lacking or unknown, limitations only when no
    sentence anywhere names one, a lens (the analytical perspective of a mechanism paper) is
    asked of papers about a mechanism in Transformers / LLMs only (``domain.mechanism_paper``)
    and is missing only when neither the abstract nor the introduction names a perspective,
    and validation is missing only when no section evaluates with figures or tables."""
    from ..checker.domain import mechanism_paper
    from ..moves.paper import abstract_cell, introduction_cells

    if "`gap`" in message:
        cells = [*introduction_cells(paper)]
        abstract = abstract_cell(paper)
        if abstract is not None:
            cells.append(abstract)
        return not any(_GAP_CUE.search(c.source) for c in cells)
    if "`limitations`" in message:
        return not any(_LIMITATION_CUE.search(c.source) for c in paper.cells
                       if c.is_markdown and c.role not in ("prior", "note"))
    if "`lens`" in message:
        if not mechanism_paper(paper):
            return False
        cells = [*introduction_cells(paper)]
        abstract = abstract_cell(paper)
        if abstract is not None:
            cells.append(abstract)
        return not any(_LENS_CUE.search(c.source) for c in cells)
    if "no validation" in message:  # MECH002: an evaluation section with figures or tables
        return not _evaluates(paper)
    return True


_LOOSE_EVIDENCE = re.compile(r"\\includegraphics\b|\\begin\{(?:tabular[x*]?|longtable)\}")
"""A picture or a table set in the text, outside a figure or table float."""


def _evaluates(paper: Paper) -> bool:
    """An experiments / results / evaluation section, and a figure or table in the paper or, set
    loose in the text (a ``tabular`` or ``\\includegraphics`` in a ``center``), in that
    section or after it."""
    headings = [c.index for c in paper.cells
                if c.is_markdown and _EVALUATION_HEADING.search(c.source)]
    if not headings:
        return False
    if any(c.role in ("figure", "experiment") for c in paper.cells):
        return True
    return any(not c.is_markdown and c.index > headings[0] and _LOOSE_EVIDENCE.search(c.source)
               for c in paper.cells)


def input_findings(latex: LatexPaper) -> list[Finding]:
    """The reader's problems (inputs not found, text kept as LaTeX) at their file and line."""
    out = []
    at_source = {q.message: q for q in latex.source.problems}
    index: dict[Path, int] = {}
    for n, path in enumerate(latex.source.files):
        index.setdefault(path, n)
    for p in latex.problems:
        slug = p.slug
        if slug == "input-not-found" and _FIGURE_INPUT.search(p.message):
            slug = "figure-input-not-found"
        code, severity = INPUT_FINDINGS[slug]
        file, line, col = _where(latex, p.at)
        q = at_source.get(p.message)
        if q is not None:
            file = q.file
            line, col = latex.source.line_col(index[q.file], q.offset) \
                if q.file in index else (1, 1)  # a file not read into the text
        out.append(Finding(code, slug, severity, p.message, line=line, column=col,
                           file=str(file)))
    return out


def _where(latex: LatexPaper, at: int | None) -> tuple[Path, int, int]:
    return latex.source.locate(latex.body_start if at is None else at)


def _cell_offset(source: str, line: int | None, column: int | None) -> int:
    if line is None:
        return 0
    lines = source.split("\n")
    offset = sum(len(x) + 1 for x in lines[:line - 1])
    return offset + max((column or 1) - 1, 0)


def remap(f: Finding, imported: Imported) -> Finding:
    """``f`` (about a cell of the imported notebook) at the file, line and column it is about."""
    latex = imported.paper
    origin = imported.origins[f.cell] if f.cell is not None and \
        0 <= f.cell < len(imported.origins) else None
    if origin is None:
        file, line, col = _where(latex, None)
    else:
        source = imported.notebook["cells"][f.cell]["source"]
        at = origin.source_offset(_cell_offset(source, f.line, f.column)) if f.line \
            else origin.start
        file, line, col = latex.source.locate(at)
    return replace(f, cell=None, cell_id=None, line=line, column=col, file=str(file),
                   message=latex_message(f.message, imported))


_CELL_AT = re.compile(r"\(?cells? (\d+)(?: line (\d+))?\)?")
_NOTEBOOK_WORDS = (
    (re.compile(r"\(metadata\.mechnb\.bibliography = '[^']*', looked for ([^)]*)\)"),
     r"(looked for \1)"),
    (re.compile(r"; fix the path, relative to the notebook"),
     "; put it next to the main file or fix \\bibliography"),
    (re.compile(r"set `?metadata\.mechnb\.bibliography`? to a \.bib file next to the notebook"),
     "add \\bibliography{…} with a .bib (or its .bbl) next to the main file"),
    (re.compile(r"set `metadata\.mechnb\.caption` to"), "give it a \\caption:"),
    (re.compile(r"next to the notebook"), "next to the main file"),
    (re.compile(r" \(metadata\)"), ""),
)
_MAGIC_HINTS = (
    (re.compile(r"; add one with `%mech [^`]*`"), ""),
    (re.compile(r" ?\([^()]*`%mech [^()]*\)"), ""),
    (re.compile(r" ?\((?:more: )?`mechnb phrases[^)]*\)"), ""),
    (re.compile(r"`%mech (\w+)[^`]*`"), r"a \1 paragraph"),
    (re.compile(r"`(\w+)` cells?"), r"\1 paragraph"),
    (re.compile(r"\bcells\b"), "paragraphs"),
    (re.compile(r"\bcell\b"), "paragraph"),
)


def latex_message(message: str, imported: Imported) -> str:
    """A rule's message in the words of a LaTeX paper: places as ``file:line``, no magics."""
    latex = imported.paper

    def place(m: re.Match[str]) -> str:
        n = int(m.group(1)) - 1
        origin = imported.origins[n] if 0 <= n < len(imported.origins) else None
        if origin is None:
            return m.group(0)
        at = origin.start
        if m.group(2):
            source = imported.notebook["cells"][n]["source"]
            at = origin.source_offset(_cell_offset(source, int(m.group(2)), 1))
        file, line, _col = latex.source.locate(at)
        text = m.group(0)  # "(cell 3)", "(cell 3, `role`)" (its parenthesis goes on) or "cell 3"
        return ("(" if text.startswith("(") else "") + f"{file.name}:{line}" + \
            (")" if text.endswith(")") else "")

    message = _CELL_AT.sub(place, message)
    for pattern, repl in (*_NOTEBOOK_WORDS, *_MAGIC_HINTS):
        if "\\1" in repl:
            message = pattern.sub(repl, message)
        else:  # a literal (it may hold a TeX backslash)
            message = pattern.sub(repl.replace("\\", "\\\\"), message)
    return message


_LINE_IGNORE = re.compile(r"%\s*mech-ignore\s*:\s*([A-Za-z0-9_, -]+)")


def _ignored_on_line(f: Finding, latex: LatexPaper, cache: dict[str, list[str]]) -> bool:
    """``% mech-ignore: CODE`` on the finding's line (or ``all``); ``cache``: each file's lines,
    split once for all the findings."""
    if f.line is None or f.file is None:
        return False
    if not cache:
        for path, text in zip(latex.source.files, latex.source.texts, strict=True):
            cache.setdefault(str(path), text.split("\n"))
    lines = cache.get(f.file)
    if lines is None:
        return False
    if not 0 < f.line <= len(lines):
        return False
    m = _LINE_IGNORE.search(lines[f.line - 1])
    if m is None:
        return False
    codes = {c.strip().upper() for c in re.split(r"[,\s]+", m.group(1)) if c.strip()}
    return f.code in codes or "ALL" in codes or f.name.upper() in codes


def rule_table_markdown() -> str:
    """The per-rule table for LaTeX input in ``docs/guide/latex-in.md``."""
    from ..checker.rules import RULES

    rows = ["| Code | Rule | Notebook | LaTeX input | Why |", "|---|---|---|---|---|"]
    for rule in RULES:
        a = LATEX_RULES.get(rule.code)
        if a is None:
            continue
        latex = a.severity.value if a.severity is not None else "—"
        rows.append(f"| {rule.code} | {rule.name} | {rule.severity.value} | {latex} | {a.why} |")
    for slug, (code, severity) in INPUT_FINDINGS.items():
        rows.append(f"| {code} | {slug} | — | {severity.value} | reading the LaTeX sources |")
    return "\n".join(rows)
