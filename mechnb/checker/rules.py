"""``RULES``: the ordered registry of closing-loop checks (codes are stable; never reuse one)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..findings import Finding, Severity
from ..notebook import FORMAT_FINDINGS
from . import (
    claims,
    engine,
    evidence,
    mathjax,
    moves,
    outputs,
    paper,
    references,
    reproduce,
    scope,
    structure,
    substance,
    symbols,
    text,
)
from .document import Document
from .rule import Rule

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CheckFn = Callable[[Document, Rule], Iterable[Finding]]


def _reading(code: str) -> CheckFn:
    """Findings of this code made while reading the notebook (``Paper.findings``)."""

    def check(doc: Document, rule: Rule) -> Iterator[Finding]:
        for f in doc.paper.findings:
            if f.code == code:
                yield f

    return check


def _config(doc: Document, rule: Rule) -> Iterator[Finding]:
    for where, message in doc.config_problems:
        yield rule.at(doc, f"{where}: {message}")


_READING_DOCS = {
    "unknown-role": ("Use a role from the vocabulary (`mechnb roles`).",
                     "A cell's `metadata.mechnb.role` or `mech:<role>` tag names no known role; "
                     "the cell is treated as plain text."),
    "malformed-cell-metadata": ("Fix the cell's `metadata.mechnb` fields' types.",
                                "A field of `metadata.mechnb` (or `tags`) has the wrong type "
                                "and is ignored."),
    "malformed-notebook-metadata": ("Fix the notebook's `metadata.mechnb` fields.",
                                    "A field of the notebook's `metadata.mechnb` has the wrong "
                                    "type or value and is ignored."),
    "duplicate-label": ("Give each cell its own label.",
                        "Two cells declare the same `metadata.mechnb.label`."),
    "conflicting-role": ("Make the role metadata and the `mech:` tag agree.",
                         "`metadata.mechnb.role` and the `mech:<role>` tag disagree; the "
                         "metadata wins."),
    "upgraded-nbformat": ("Save the notebook from Jupyter to store it as nbformat 4.",
                          "The notebook is nbformat 3 or older; it is read through nbformat's "
                          "upgrade in memory and the file is left unchanged."),
}


def _r(code: str, name: str, severity: Severity, summary: str, doc: str, check: CheckFn,
       obligation: str | None = None, group: str = "argument") -> Rule:
    return Rule(code, name, severity, summary, doc, check, obligation, group)


RULES: tuple[Rule, ...] = tuple(sorted((
    _r("MECH001", "missing-required-role", E,
       "Add the missing gap / lens / limitations cell.",
       "The paper must state a `gap`, a `lens` and its `limitations` (every role whose "
       "registry obligations include `paper-requires`).",
       structure.check_required_roles, "paper-requires"),
    _r("MECH002", "missing-validation", E,
       "Add a proof or an experiment that closes the loop.",
       "A mechanism paper validates its claims: at least one `proof` or `experiment` cell.",
       structure.check_validation),
    _r("MECH003", "theorem-without-interpretation", E,
       "Add an `interpretation` cell after the statement.",
       "Every theorem / lemma / proposition / claim (obligation `needs-interpretation`) in the "
       "main text is followed by an `interpretation` cell before the next formal block "
       "(theorem-like, definition, assumption, setup, question, formula or appendix cell).",
       structure.check_interpretation, "needs-interpretation"),
    _r("MECH004", "unclosed-statement", E,
       "Add a proof (or pointer to one) or an experiment that validates it.",
       "Every theorem / claim (obligation `needs-closure`) is closed by a `proof` cell in its "
       "block, a proof anywhere that references or names its label, a sentence in its block "
       "pointing to the proof (\"proof in Appendix \\ref{…}\"), or a cell whose `validates` "
       "names it.",
       structure.check_closure, "needs-closure"),
    _r("MECH005", "limitations-not-at-end", W,
       "Move the limitations to the end of the main text.",
       "The main text ends with its limitations (obligation `paper-ends-with`): after the last "
       "`limitations` cell and before the appendix only `conclusion`, `future`, `note` and "
       "cells without a role may follow.",
       structure.check_ends_with, "paper-ends-with"),
    _r("MECH006", "missing-intervention", W,
       "Add an experiment with `kind: intervention`.",
       "A mechanism paper (`paper_type` dynamics or failure, or an untyped paper with a "
       "`mechanism` cell) has at least one experiment of kind `intervention`: change only the "
       "claimed mechanism and watch the phenomenon vanish or return.",
       structure.check_intervention),
    _r("MECH007", "experiment-not-run", E,
       "Run the experiment to the end so its outputs are saved.",
       "An experiment code cell that validates something (obligation `needs-run`) has outputs "
       "and did not stop with an exception: an unrun or failed experiment validates nothing.",
       structure.check_run, "needs-run"),
    _r("MECH008", "missing-caption", W,
       "Set `metadata.mechnb.caption`.",
       "A `figure` cell, or an `experiment` with image outputs (obligation `needs-caption`), "
       "has a caption.",
       structure.check_caption, "needs-caption"),
    _r("MECH009", "caption-names-nothing", W,
       "Name the validated label in the caption.",
       "A figure's caption names what it validates: one of its `validates` labels (or that "
       "cell's title); a `figure` cell without `validates` at least references a label.",
       structure.check_caption_names, "needs-caption"),
    _r("MECH010", "formula-without-motivation", W,
       "Add a sentence before the equation saying why it is needed.",
       "A key equation (the first display in a `formula` cell, or a labeled display in "
       "narrative/setup/mechanism text) has a sentence of prose before it, in its cell or the "
       "previous one (obligation `needs-motivation`).",
       structure.check_motivation, "needs-motivation"),
    _r("MECH011", "formula-without-symbol-explanation", W,
       "Add \"Here, $X$ denotes …\" after the equation.",
       "A key equation is followed, in its cell or the next one, by a symbol explanation "
       "(\"here\", \"where\", \"denotes\", \"其中\", \"表示\"…; obligation "
       "`needs-symbol-explanation`).",
       structure.check_symbol_explanation, "needs-symbol-explanation"),
    _r("MECH012", "defined-after-main-theorem", W,
       "Move the question / setup / used definition before the main theorem.",
       "The main theorem is the theorem labeled `thm:main`, else the first theorem. `question` "
       "and `setup` cells, and definitions/assumptions it references, come before it "
       "(obligation `before-main-theorem`).",
       structure.check_before_main_theorem, "before-main-theorem"),
    _r("MECH013", "undefined-theorem-symbol", INFO,
       "Introduce the symbol in a setup or definition cell before the main theorem.",
       "Best effort: single-letter and Greek symbols in the main theorem's math that no earlier "
       "cell's math mentions (symbols the theorem binds itself — \"Let $k$\", \"for any "
       "$\\epsilon$\", `\\forall x` — and `e i d O o \\pi \\Theta \\Omega` are skipped).",
       symbols.check_theorem_symbols),
    _r("MECH014", "duplicate-tex-label", E,
       "Rename one of the two labels.",
       "A `\\label{}` in the text repeats another label (cell labels or `\\label`s); a `\\label` "
       "repeating its own cell's label is fine.",
       references.check_duplicate_labels, group="references"),
    _r("MECH015", "unresolved-reference", E,
       "Fix the label name or define the label.",
       "Every `\\ref`/`\\eqref`/`\\cref`/`\\Cref`/`\\autoref`/`\\pageref` (also in captions) names "
       "a label defined by a cell's metadata or a `\\label{}` in an exported cell.",
       references.check_references, group="references"),
    _r("MECH016", "missing-bibliography", E,
       "Point `metadata.mechnb.bibliography` at an existing .bib.",
       "The .bib named in the notebook metadata (relative to the notebook; comma-separated for "
       "several) exists, and a paper that cites anything names one.",
       references.check_bibliography, group="references"),
    _r("MECH017", "unresolved-citation", E,
       "Add the key to the .bib or fix it.",
       "Every `\\cite…{}` key and pandoc `[@key]` is in the notebook's .bib; while a .bib the "
       "paper names is missing, MECH016 reports that file and the keys are not judged.",
       references.check_citations, group="references"),
    _r("MECH018", "validates-unknown-label", E,
       "Make `validates` name an existing label.",
       "Every label in a cell's `validates` is defined somewhere in the notebook.",
       structure.check_validates_known, group="references"),
    _r("MECH019", "validates-nothing", W,
       "Set `validates` to the label the experiment supports.",
       "Every `experiment` cell declares in `metadata.mechnb.validates` what it validates.",
       structure.check_validates_something),
    _r("MECH020", "figure-never-referenced", W,
       "Label the figure and reference it with \\cref.",
       "Every figure (a `figure` cell or an experiment with image outputs) has a label that the "
       "text references.",
       structure.check_figure_referenced, group="references"),
    _r("MECH021", "unbalanced-tex", E,
       "Balance the braces, `$`/`$$` or environments at the reported places.",
       "mechnb's own scanner checks markdown math: `$`, `$$`, `\\[ \\]`, bare amsmath "
       "environments, and inside math braces, `\\begin`/`\\end`, `\\left`/`\\right`; prose "
       "environments must nest. The message gives the line of both ends.",
       text.check_balanced, group="tex"),
    _r("MECH022", "dangerous-tex", E,
       "Remove the command; keep the paper self-contained (or export with --trust).",
       "A gate, not a hint (`mechnb/tex/gate.py`): TeX that runs commands, reads or writes "
       "files, or builds command names. Markdown math, the TeX markdown-it finds outside it, "
       "captions, titles, `text/latex` and `text/markdown` outputs are judged token by token, "
       "the way TeX reads them, against an allow-list (see \"Security model\"); raw cells, "
       "other `text/latex` outputs, the template, venue style files and the .bib against the "
       "deny-list. Refused: `\\write`/`\\immediate`/`\\openout`, `\\openin`/`\\read`, "
       "`\\input`/`\\include`/`\\verbatiminput`/`\\lstinputlisting`, `\\includegraphics` "
       "of an absolute, `..`, `~`, piped or macro-built path, `\\special`, `\\XeTeX…file`, "
       "pdfTeX file primitives, `\\directlua`, `\\usepackage`, font loading, `file=` options; "
       "every command that builds, takes or renames a command name (`\\csname`, `\\catcode`, "
       "`\\scantokens`, etoolbox's `\\csuse`/`\\letcs`…, expl3 switches, "
       "`\\NewDocumentCommand`, `\\newenvironment`…) and case mapping (`\\lowercase`), apart "
       "from `\\newcommand`/`\\renewcommand`/`\\DeclareMathOperator`/parameterless `\\def` "
       "of a plain new name; `\\let` onto anything off the allow-list or onto a command that "
       "takes a name (`\\let\\B\\begin`); an environment name built from macros; `^^`. "
       "It cannot be disabled, re-leveled or silenced by `mech-ignore` tags; `mechnb export "
       "--pdf` refuses to compile while it fires unless run with `--trust`, and no approval "
       "covers it.",
       text.check_dangerous, group="tex"),
    _r("MECH023", "hard-coded-reference", W,
       "Use \\cref{label} instead of the number.",
       "Prose says \"Figure 3\", \"Section 2\", \"Theorem 1\", \"Eq. (4)\", \"图 3\", \"第 2 节\"… "
       "(not when followed by \"of \\cite…\"); numbers change when the paper is reordered.",
       text.check_hard_coded, group="text"),
    _r("MECH024", "todo-left", W,
       "Finish it, or move it to a `note` cell.",
       "TODO / FIXME / XXX / TBD (or 待补充 / 待完成 / 待定) in exported prose, captions or "
       "titles.",
       text.check_todo, group="text"),
    _r("MECH025", "unfilled-placeholder", W,
       "Replace the template slot with your text.",
       "A bracketed word slot from a template (`[phenomenon]`, `[model class]`, `[现象]`) in "
       "prose, a caption or the title, reported once per cell with its slots. A cell that is "
       "still exactly what a template inserted is info (a fresh scaffold marks no cell); a "
       "cell you have begun writing is a warning. A `title` cell is not reported when Paper "
       "Settings (metadata) set the title, which it then overrides. Not flagged: math, code, "
       "links `[t](u)`, reference links, citations `[@k]`, intervals `[0,1]`/`[a, b]`, "
       "anything with digits or TeX.",
       text.check_placeholders, group="text"),
    _r("MECH026", "no-boxed-question", INFO,
       "State the research question with `%mech question`.",
       "The paper has a `question` cell (a boxed research question ending the introduction).",
       structure.check_question),
    _r("MECH027", "no-contributions", INFO,
       "List the contributions with `%mech contributions`.",
       "The paper has a `contributions` cell.",
       structure.check_contributions),
    _r("MECH028", "invalid-config", W,
       "Fix the `[tool.mechnb]` or `metadata.mechnb.checks` entry.",
       "A configuration entry names an unknown rule or severity, or the pyproject.toml cannot "
       "be read; the entry is ignored.",
       _config, group="format"),
    _r("MECH029", "resource-outside-paper", E,
       "Copy the file next to the notebook and name it by a relative path.",
       "Markdown images, `metadata.mechnb.bibliography` and `metadata.mechnb.template` "
       "resolve (symlinks followed) inside the notebook's folder; a file outside it, or an "
       "invalid path (a NUL byte), is never copied into the export.",
       text.check_resources, group="references"),
    _r("MECH030", "invalid-name", W,
       "Rename the label or citation key with letters, digits and `:-_.`.",
       "Labels (metadata and `\\label`), references, `validates` entries and citation keys "
       "contain no character that would end or escape the name in the .tex (spaces, "
       "`# % \\ { } $ & ~ ^ ,`); the exporter drops such names.",
       text.check_names, group="references"),
    _r("MECH036", "text-special-in-math", INFO,
       "Nothing to do: the export escapes it (write `\\_` yourself to silence this).",
       "Inside math, the argument of `\\text`, `\\textrm`, `\\textit`, `\\textbf`, "
       "`\\textsf`, `\\texttt`, `\\mbox` or `\\hbox` holds a bare `_ ^ # & %` (math nested "
       "in it with `$…$` may): MathJax prints it, LaTeX would stop (\"Missing $ inserted\"…), "
       "so the export writes it escaped (`\\text{hidden_states}` → `\\text{hidden\\_states}`), "
       "one of the MathJax-compatibility rewrites of `mechnb/tex/mathcompat.py`.",
       mathjax.check_text_specials, group="tex"),
    _r("MECH037", "mathjax-only-command", W,
       "Rewrite the command in LaTeX (the message says how).",
       "Math uses a command that Jupyter's MathJax renders and LaTeX with mechnb's preamble "
       "rejects: `\\LaTeX`/`\\TeX` and `\\url` (text only), `\\unicode`, `\\enclose`, "
       "`\\Space`, `\\Tiny`, `\\toggle`, `\\mathtip`, `\\texttip`, and the extensions "
       "`\\cancel…` (cancel) and `\\ce`/`\\pu` (mhchem), whose LaTeX packages are not "
       "loaded. The harmless MathJax-only macros (`\\gt`, `\\lt`, `\\bbox`, `\\class`, "
       "`\\cssId`, `\\style`, `\\require`) are defined by the exporter and not reported.",
       mathjax.check_mathjax_only, group="tex"),
    _r("MECH038", "nested-display-math", INFO,
       "Nothing to do: the export writes its inner form (use `aligned`… yourself to silence "
       "this).",
       "A display environment (`equation`, `align`, `gather`, `multline`, `flalign`, "
       "`alignat`, `eqnarray`, starred or not) inside inline math `$…$`, inside `$$…$$` "
       "together with other math (`$$\\left\\{\\begin{align*}…\\end{align*}\\right.$$`), or "
       "inside another display environment. MathJax renders it; LaTeX would stop, so the "
       "export writes its inner form (`aligned`, `gathered`, `alignedat`; `equation` "
       "unwrapped). `$$\\begin{align}…\\end{align}$$` alone is fine (exported as the bare "
       "environment).",
       mathjax.check_nested_display, group="tex"),
    _r("MECH039", "macro-already-defined", W,
       "Give the macro a new name, or use `\\renewcommand` to replace LaTeX's.",
       "Math defines with `\\newcommand` or `\\DeclareMathOperator` a control word LaTeX "
       "already has with mechnb's preamble (`\\d`, `\\P`, `\\S`, `\\vec`, `\\det`, "
       "`\\epsilon`…; the list is `mechnb/data/latex/defined-commands.txt`). MathJax lets a "
       "notebook redefine them; LaTeX stops with \"Command … already defined\".",
       mathjax.check_redefined, group="tex"),
    _r("MECH040", "pdflatex-unsupported-character", E,
       "Replace the character or write it as a LaTeX command (or choose XeLaTeX).",
       "When the paper compiles with pdfLaTeX (`metadata.mechnb.engine`, else every English "
       "paper) — as arXiv and most venue styles do — no exported text holds a character "
       "pdfLaTeX cannot typeset (an emoji, a dingbat, a script without a LaTeX encoding); "
       "CJK is typeset by ctex.",
       engine.check_pdflatex_characters, group="tex"),
    _r("MECH045", "reference-not-exported", E,
       "Run the cell that defines the label, or reference a label the paper exports.",
       "`check` predicts the PDF: a reference to a label that exists only in the notebook — "
       "the label of an unrun code cell or of one without an includable figure or captioned "
       "table, of a `note`, the title or the abstract, a `\\label` in a `note` or non-LaTeX raw "
       "cell — would print ?? after `export --pdf` (a code cell's label prints as a visible "
       "placeholder `[exp:name]` instead; an unrun experiment that validates a statement is "
       "MECH007's error, not reported again here).",
       evidence.check_export_references, group="references"),
    _r("MECH046", "placeholder-evidence", E,
       "Replace the template's stand-ins with real measurements and delete the markers.",
       "A code cell whose `validates` names a statement is evidence only if it measures "
       "something: not while it keeps the templates' `# mechnb: pending` line, derives "
       "\"measured\" values from the prediction plus noise, fakes the intervention with a "
       "hard-coded switch (`= 0.0 if intervene else 1.0`) or a made-up sequence "
       "(`measured = np.linspace(…)`), or still says TODO / FIXME / XXX / TBD or holds a "
       "template slot string such as `\"[quantity]\"`.",
       evidence.check_placeholder_evidence),
    _r("MECH047", "paper-sections", W,
       "Give the introduction, theory, experiments and conclusion a `#` section each.",
       "The main text is shaped like a paper: its top-level headings make sections, and the "
       "introduction (context / gap / question cells), the theory or mechanism (setup, "
       "definitions, statements, formulas), the experiments and the conclusion each sit in a "
       "section of their own; a paper without a `conclusion` cell has a section headed "
       "Conclusion / Summary / 结论. Notebooks with fewer than two of the four parts are "
       "fragments and are not checked.",
       paper.check_sections, group="paper"),
    _r("MECH048", "heading-levels", W,
       "Start sections at `#` and never skip a level.",
       "Headings that become sections are consistent: the main text's top level is `#` "
       "(`\\section`), and a heading is at most one level deeper than the one before it "
       "(headings inside theorem-like cells are their titles and do not count).",
       paper.check_heading_levels, group="paper"),
    _r("MECH049", "table-without-caption", W,
       "Set `metadata.mechnb.caption` and a `tab:` label on the cell.",
       "A code cell with a role whose output is a table (`text/latex` tabular or a markdown "
       "pipe table) has a caption and a label, like a figure: the export places both on the "
       "table. A table next to a figure in the same cell gets neither (they go to the figure).",
       paper.check_table_caption, group="paper"),
    _r("MECH050", "reference-in-abstract", W,
       "Name the result in words; keep `\\cref` out of the abstract.",
       "The abstract is read on its own (listings, search results), where \"Theorem 2\" means "
       "nothing: no `\\ref`/`\\cref`/`\\eqref` in an `abstract` cell.",
       paper.check_abstract_references, group="paper"),
    _r("MECH051", "formula-without-intuition", W,
       "Add a sentence of intuition (\"Intuitively, …\") after the formula.",
       "Seed checklist: a key formula (as in MECH010) is followed, in its cell or the next "
       "one, by an intuition sentence (\"intuitively\", \"in words\", \"that is\", \"this "
       "means\", \"直观\", \"也就是说\"…).",
       paper.check_intuition, group="paper"),
    _r("MECH052", "derivation-without-align", W,
       "Write the derivation as one `align`, one step per line.",
       "Seed checklist: a multi-step derivation uses `align`: a display that starts with a "
       "relation (continuing the previous display), or one display outside align-like "
       "environments with a line break or three or more relations, is reported.",
       paper.check_derivation_align, group="paper"),
    _r("MECH053", "theorem-without-proof-sketch", W,
       "Sketch the proof after the main theorem, or point to it.",
       "Seed checklist: the main theorem (as in MECH012) is followed in the main text by a "
       "`proof` (a sketch is enough) or a sentence pointing to the proof in the appendix; an "
       "experiment alone does not explain why it holds.",
       paper.check_proof_sketch, group="paper"),
    _r("MECH054", "implication-not-translated", W,
       "Say what the result means for attention / LLM behavior.",
       "Seed checklist: a paper with a theorem or claim has an `implication` cell that "
       "translates the result back to the model: attention, heads, tokens, layers, prompts, "
       "training, LLMs (注意力、词元、训练…).",
       paper.check_implication, group="paper"),
    _r("MECH055", "label-in-running-text", W,
       "Put the label in the heading it names or inside the equation.",
       "A `\\label{}` in the running text of a cell that is not a numbered statement (prose "
       "outside math and headings, in a cell without a role or with a narrative, setup, "
       "formula, mechanism, result or evidence role) takes the number of the enclosing "
       "section, so `\\cref` to it prints a section number — or ?? before the first section. "
       "The same holds for a `\\label` inside inline math (`$x \\label{eq:x}$`): inline "
       "math is never numbered, so the message suggests display math with the label.",
       evidence.check_label_in_text, group="references"),
    _r("MECH060", "abstract-missing-move", W,
       "Add a sentence that makes the missing move (`mechnb phrases --function abstract`).",
       "The `abstract` cell makes every move of a mechanism paper: context, gap, contribution "
       "(what the paper does, its lens), mechanism, validation and implication. The move "
       "analyzer (`mechnb moves`) labels each sentence from cue words, negation and position, "
       "weighed (in English) by a layer fitted on labelled real abstracts. A move is reported "
       "only when the analyzer is sure it is absent: no sentence makes it clearly and, in "
       "English, a model of the abstract as a whole (fitted on real abstracts with and "
       "without that move's sentences) gives it a low probability, at a bound picked so that "
       "at most 3% of the moves real abstracts make are reported (a move that might be made "
       "is listed as `unsure` by `mechnb moves`, not reported). On held-out real abstracts a "
       "deleted gap is caught in 23 of 25, a deleted validation in 10 of 25 (the line between "
       "a mechanism found and its evidence is thin); on LaTeX papers the rule is info. A "
       "sentence with unfilled template slots makes no move yet. Example: an "
       "abstract that states the problem, the mechanism and the experiment but never what it "
       "means beyond itself gets \"no implication move\". The message suggests a phrase "
       "from the library for the missing move.",
       moves.check_abstract_moves, group="text"),
    _r("MECH061", "abstract-move-order", INFO,
       "Reorder the abstract: context → gap → contribution → mechanism → validation → implication.",
       "The first sentence of each move (by its strongest move) comes in the usual order; a "
       "move that first appears after a move that usually follows it is reported once.",
       moves.check_abstract_order, group="text"),
    _r("MECH062", "introduction-missing-move", W,
       "Add the missing introduction paragraph (context, gap, lens or contributions).",
       "Where the paper has an introduction (narrative cells `context`…`contributions`, or an "
       "\"Introduction\" / \"引言\" heading), its paragraphs make the context, gap, lens "
       "and contributions moves — by role, or in the text of cells without a role. A move "
       "whose role the paper lacks altogether is left to MECH001 / MECH027.",
       moves.check_introduction_moves, group="text"),
    _r("MECH063", "introduction-move-order", INFO,
       "Reorder the introduction: context → prior → gap → lens → key step → contributions.",
       "The introduction's paragraphs (by role, or by their strongest move) come in the usual "
       "order; a move that first appears after one that usually follows it is reported once.",
       moves.check_introduction_order, group="text"),
    _r("MECH070", "vacuous-cell", W,
       "Say what is specific to this paper: name the object, assumption, setting or result.",
       "A `gap`, `interpretation`, `implication`, `limitations`, `lens` or `result` cell says "
       "something specific. It fires when the cell's prose is only stock sentences that fit "
       "any paper (\"More work is needed.\", \"This is interesting.\", 本文存在一定的局限性; "
       "the list is `data/checks/stock_phrases.json`), or when it is short (under 8 words, "
       "about 15 Chinese characters, math and citations not counted) and tied to nothing: an "
       "interpretation that shares no content word, CJK bigram, math symbol or label with the "
       "statement it follows; a gap, limitation, implication or lens that names no object, "
       "setting, model, number, math or citation beyond generic words (work, research, "
       "problem, 工作, 研究); a result that names no figure, table or number. Not flagged: "
       "a long cell without such a link, a stock sentence followed by something specific "
       "(\"More work is needed on how the previous-token head forms.\"), short specific cells "
       "(\"Our analysis covers two-layer attention-only models only.\"), and cells that still "
       "hold template slots (MECH025 reports those). Example: an interpretation after "
       "Theorem thm:main that reads \"That makes sense.\" shares nothing with it.",
       substance.check_vacuous, group="substance"),
    _r("MECH071", "hand-typed-evidence", E,
       "Compute or load the values you plot; typed-in numbers are not evidence.",
       "A code cell that validates a label shows values the notebook computes or loads. The "
       "code is read with Python's `ast` (magics masked; a cell that does not parse is not "
       "judged), following names back through earlier code cells and calls into functions the "
       "notebook defines: the cell is reported when everything it plots (`plt.plot`, `ax.bar`, "
       "`df.plot`, `sns.*`…), prints, displays, tabulates (`.to_latex()`…) or leaves as its "
       "last expression comes only from literals — lists, `np.array([...])`, dicts of numbers, "
       "a helper that returns them, a printed string such as `\"accuracy drops from 0.98 to "
       "0.12\"` — and the cell computes nothing. Not flagged: any loading (`np.load`, "
       "`pd.read_csv`, `open`, `json.load`, `torch.load`…), any library call that is not a "
       "literal constructor, arithmetic on a computed value or a grid, typed axes "
       "(`range`, `np.arange`, `np.linspace`) beside computed data, strings with no result-like "
       "number (`\"run 3 of 3\"`), and a placeholder cell (that is MECH046). Example: "
       "`scores = [0.1, 0.5, 0.9]; plt.plot(scores)`.",
       evidence.check_hand_typed_evidence, group="substance"),
    _r("MECH072", "number-not-shown", W,
       "Show the number in a result, caption, table or output, or drop it.",
       "A measurement the abstract or the conclusion reports — a percentage (`98%`, `98\\%`), a "
       "decimal (`0.98`) or a speed-up (`3.2x`, `4-fold`, `3 倍`) — appears in some other cell, "
       "a caption, a markdown or HTML table, or a text output (printed values, DataFrames). "
       "`98%` and `0.98` are the same number, and a shown value that rounds to the reported "
       "one counts (`0.9812` shows `98%`). Plain integers (\"64 keys\", \"2 layers\") are "
       "settings, not results, and decimals that name things (\"Llama 3.1\", \"Section "
       "3.2\") are skipped. When the number's own sentence points at a figure or an experiment "
       "(`\\cref{fig:…}`), the finding is info only: images are not read, so the figure may "
       "show it. Example: an abstract that says \"accuracy drops to 0.15\" while the "
       "experiment prints 0.12.",
       claims.check_numbers_shown, group="substance"),
    _r("MECH073", "causal-claim-without-intervention", W,
       "Add an intervention or ablation (`%mech validate LABEL --kind intervention`), or say "
       "\"is associated with\".",
       "Causal wording (\"causes\", \"is responsible for\", \"drives\", \"gives rise to\", "
       "\"causal role\"; 导致, 造成, 引起, 是…的原因) in a theorem-like statement, a claim, the "
       "abstract or the conclusion is backed by an intervention, an ablation or a proof. What "
       "backs a sentence: the experiments and statements it references (`\\cref{fig:…}`, "
       "`\\cref{clm:…}`, through their closure); for a statement's own sentence, its "
       "closure; for an abstract or conclusion sentence with no reference, every validating "
       "experiment and proof of the paper. A theorem with a proof may say \"causes\" within "
       "its model. Hedged or negated sentences (\"may drive\", \"does not cause\", 可能导致) "
       "and \"causal mask\" / \"causal language model\" are not claims; \"because\" is not "
       "causal wording. The wording is data (`data/checks/claim_wording.json`). Example: "
       "\"the logit margin causes the concentration (\\cref{fig:bound})\" where fig:bound is "
       "a controlled simulation.",
       claims.check_causal_wording, group="substance"),
    _r("MECH074", "proof-wording-for-experiment", INFO,
       "Say \"supports\" or \"is consistent with\" for experimental evidence.",
       "\"We prove\", \"proves\", \"confirms\" (证明了, 证实, 实验证明) about a statement that "
       "only experiments back, wherever the paper speaks for its own results: the abstract, "
       "the conclusion, a statement, a result, interpretation, implication or discussion "
       "cell, an untyped paragraph (not a proof, context or prior work). The statement is "
       "the one the sentence references (directly, or through the experiment it names); a "
       "sentence with no reference outside a statement is read against the whole paper (no "
       "proof anywhere). The noun "
       "(\"the proof\", 证明见附录) and \"proves useful\" are not proof wording. Example: "
       "\"The ablation proves \\cref{clm:remove}.\" where clm:remove is backed only by "
       "experiments.",
       claims.check_proof_wording, group="substance"),
    _r("MECH075", "nothing-cited", W,
       "Cite the work you build on (`\\citep{key}` with a .bib entry).",
       "A paper with `context` / `prior` cells cites something (`\\cite…{}` or `[@key]`), and "
       "every `prior` cell cites the work it describes. A paper that cites nothing gets one "
       "finding, at its first context or prior cell (the prior cells that cite nothing are "
       "named in it); otherwise each prior cell without a citation gets its own. Skipped: "
       "cells that still hold template slots, prior cells that say there is no prior work "
       "(\"to our knowledge\", 据我们所知) and prior cells that point to a related-work "
       "section (`\\cref{sec:…}`). A citation typed by hand (\"Olsson et al. (2022)\", "
       "\"[12]\") does not count, and the message quotes it. Example: \"Earlier work located "
       "induction heads in trained models.\" with no `\\citep{…}`.",
       substance.check_nothing_cited, group="substance"),
    _r("MECH076", "unseeded-randomness", W,
       "Fix the seed (`np.random.default_rng(0)`, `torch.manual_seed(0)`, `random.seed(0)`).",
       "A validating code cell, and every earlier cell it uses (the cells that bind the names "
       "it reads, transitively), draws random numbers from a fixed seed: legacy `np.random.*` "
       "draws (and `scipy.stats` `.rvs`) need `np.random.seed(...)` earlier in notebook order; "
       "`np.random.default_rng()`, `RandomState()`, `random.Random()` need a seed argument; "
       "`torch.randn`/`rand`/`randint`/`randperm`/`normal`/dropout, `nn.init.*` and `nn.Linear` "
       "and other randomly initialised modules need `torch.manual_seed`; `random.*` needs "
       "`random.seed`; `tf.random.*` needs `tf.random.set_seed` or `seed=`. A seed in an "
       "earlier cell covers later ones, and so do `seed_everything(0)`, `set_seed(0)` and "
       "other calls named for seeding. Not flagged: `jax.random` (keyed), draws with a "
       "`generator=`, seeded generators, and cells no experiment uses. Reported once per cell "
       "and generator, at the first unseeded draw. Example: `x = np.random.randn(100)` with no "
       "`np.random.seed(0)` above it.",
       reproduce.check_unseeded, group="substance"),
    _r("MECH077", "run-out-of-order", W,
       "Restart the kernel and run all cells from the top, then save.",
       "The saved outputs come from running the code cells top to bottom: the execution counts "
       "of the code cells that have one increase strictly in notebook order (reported once, at "
       "the first cell whose count is not above every count before it), and no validating "
       "cell ran before an earlier cell that defines a name it uses (reported at that "
       "experiment, one finding per experiment). Cells without a count are ignored. Example: "
       "the setup cell has count 7 and the experiment below it count 3.",
       reproduce.check_run_order, group="substance"),
    _r("MECH078", "output-without-execution-count", W,
       "Run the cell again so its outputs carry an execution count.",
       "A validating code cell that has outputs also has an execution count; outputs without "
       "one were pasted in or kept from another session (`nbstripout` of the counts only, a "
       "cell copied from another notebook), so nothing shows that this code made them. Cells "
       "that validate nothing are not checked. Example: an experiment cell showing a figure "
       "with `\"execution_count\": null`.",
       reproduce.check_execution_count, group="substance"),
    _r("MECH079", "tex-needs-review", W,
       "Read it, then approve it with `mechnb trust NOTEBOOK` (or export with --trust once).",
       "TeX off the allow-list that is not refused needs a person's review before it "
       "compiles: a raw LaTeX cell, a `text/latex` output that is neither math nor a table, a "
       "command or environment MathJax 3 (as JupyterLab shows it) does not know and the "
       "notebook does not define, a template or venue style/class file next to the notebook, "
       "a .bib with `@preamble` or TeX in `@string`. One finding per cell or file, until "
       "`mechnb trust` records this user's approval of exactly that content (by hash); "
       "`mechnb export --pdf` stops on unapproved items. Example: a raw cell "
       "`\\begin{tikzpicture}…`.",
       text.check_needs_review, group="tex"),
    _r("MECH080", "math-rewritten", INFO,
       "Nothing to do: the export makes it valid LaTeX (fix the math to silence this).",
       "Math Jupyter's MathJax renders and LaTeX rejects, rewritten on export (the other "
       "rewrites are MECH036 and MECH038): an `array` whose rows use more cells than its "
       "column specification declares gets `c` columns appended; a `$` inside display math "
       "is dropped; an `eqnarray` with rows of more than three cells becomes `align`; "
       "text in a script the math fonts lack (CJK, Cyrillic, Hebrew, Arabic …) goes into "
       "`\\text{…}`. Example: `\\begin{array}{cc} a & b & c \\end{array}` is exported with "
       "`{ccc}`.",
       mathjax.check_other_rewrites, group="tex"),
    _r("MECH081", "number-differs-from-output", W,
       "Copy the value the cell printed (rounded as printed), or rerun the cell.",
       "A measured value written in the prose — results, captions, interpretation, "
       "discussion, limitations (the abstract's and the conclusion's are MECH072's) — is "
       "compared with the saved outputs (printed text, `text/plain` reprs, tables; nothing "
       "runs) of the experiments its sentence or cell references, directly or through the "
       "statement they validate. A printed "
       "value that rounds to the written one matches (`0.0170` shows `0.017`, `0.98` shows "
       "`98%`); an output counts as a percentage only with a `%` or \"percent\" next to it. "
       "Reported when no output matches but one is close (same sign, within 35 %), with the "
       "nearest candidate; values with one significant digit (`0.5`), ranges (`[0.5, 1.5]`), "
       "values computed in the text (`\\log 3 \\approx 1.10`) and values far from every "
       "output (settings, predictions) are not compared. Example: \"the loss "
       "falls to 0.013\" while the cell printed `loss 0.0170`.",
       outputs.check_numbers_match_outputs, group="substance"),
    _r("MECH082", "real-model-claim-without-real-model", W,
       "Test it on that model (`%mech validate LABEL --kind real-model`), or say the result is "
       "shown for the toy model.",
       "A sentence in which the paper speaks for its own findings (not a proof, context, prior "
       "work, gap or limitation) and claims something of a named real model family (GPT-2, "
       "Llama, Pythia, BERT, …), of \"large language models\" or of what models do \"in "
       "practice\" (在大语言模型中, 实际中) needs an experiment of kind `real-model`. Hedged, "
       "negated or forward-looking sentences (\"may\", \"suggests\", \"did not test\", "
       "\"future work\") are not claims. Notebooks with typed experiments only (a LaTeX "
       "paper's experiment kinds are not known); code that loads a pretrained model "
       "(`from_pretrained`, `HookedTransformer`) backs the claim. One finding per cell. "
       "Example: \"Figure 2 shows that induction heads in GPT-2 are caused by these two "
       "scalars.\" when every experiment trains a toy model.",
       scope.check_real_model_claims, group="substance"),
    _r("MECH083", "single-seed-claim", W,
       "Run several seeds and report the spread, or say \"in this run\"; when several seeds "
       "ran, report the spread across them.",
       "When the code fixes one seed value and never loops over seeds, a sentence in which the "
       "paper speaks for a measured result (observed, measured, trained, predicted, runs…; "
       "not a statement, a proof or a limitation) with strong wording — \"exactly\", "
       "\"always\", \"consistently\", \"in every run\" (恰好, 总是, 始终), but not "
       "\"exactly when\" — claims more than one run shows. A warning; info when the paper "
       "says it used one seed (\"one seed\", \"a single run\"). One finding per cell. "
       "Example: \"the copy switches on exactly as predicted\" from one training run. "
       "The other side: when a code cell runs one computation over several seeds (`for seed "
       "in …`, a list of seeds, `n_seeds`) and the text reports measured numbers, the text or "
       "a figure reports the spread across them (±, std, a range or variance across seeds or "
       "runs, error bars, `fill_between`/`.std()` in the code); if not, one finding at that "
       "cell: info, a warning when the text words a measured result strongly.",
       scope.check_single_seed_claims, group="substance"),
    *(_r(code, slug, severity, _READING_DOCS[slug][0], _READING_DOCS[slug][1], _reading(code),
         group="format")
      for slug, (code, severity) in FORMAT_FINDINGS.items()),
), key=lambda rule: rule.code))
"""Every rule, in code order (the order they run and are documented)."""

RULES_BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}

UNSILENCEABLE = frozenset({"MECH022"})
"""Rules no configuration or ``mech-ignore`` tag can disable or re-level (the TeX gate)."""


def rule_names() -> dict[str, str]:
    """Lower-case code or slug → code (for configuration and suppression tags)."""
    names = {r.code.lower(): r.code for r in RULES}
    names.update({r.name.lower(): r.code for r in RULES})
    return names


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code or slug (case-insensitive)."""
    code = rule_names().get(code_or_name.lower())
    return RULES_BY_CODE.get(code) if code else None
