"""Findings a reviewer would sign (issue 36): the false-positive families found by labelling the
check's findings on real papers, each as a small hand-written LaTeX paper."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mechnb.checker import check
from mechnb.findings import Finding
from mechnb.latexin.check import check_latex
from mechnb.notebook import paper_from_dict

PREAMBLE = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}{Lemma}
\begin{document}
\title{Damped sums}
\begin{abstract}
Damped sums are common in signal processing. We study when a damped sum settles.
We show that it settles geometrically, and check this on simulated sequences.
\end{abstract}
"""


def paper(tmp_path: Path, body: str, name: str = "main.tex", extra: dict[str, str] | None = None
          ) -> list[Finding]:
    """The findings of ``mechnb check`` on a paper made of ``PREAMBLE`` + ``body``."""
    (tmp_path / name).write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")
    for file, text in (extra or {}).items():
        (tmp_path / file).write_text(text, encoding="utf-8")
    return check_latex(tmp_path / name)


def codes_at(findings: list[Finding], code: str) -> list[int | None]:
    return [f.line for f in findings if f.code == code]


def line_of(tmp_path: Path, needle: str, name: str = "main.tex") -> int:
    lines = (tmp_path / name).read_text(encoding="utf-8").split("\n")
    return next(n for n, text in enumerate(lines, 1) if needle in text)


# ---- MECH004: a statement is closed by a proof anywhere that refers to it ----------------------

FRAMED = r"""
\section{{Theory}}
\begin{{theorem}}\label{{thm:settle}}
Every damped sum with ratio below one settles.
\end{{theorem}}
In words, damping wins over accumulation.
{where}\begin{{{frame}}}
\begin{{proof}}[Proof of \Cref{{thm:settle}}]
Bound the tail by a geometric series.
\end{{proof}}
\end{{{frame}}}
"""
"""A theorem whose proof sits in a frame (``mdframed``, ``tcolorbox``), after it or in the
appendix."""

CLOSED_BY = {
    "heading": r"""
\section{Theory}
\begin{theorem}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{theorem}
In words, damping wins over accumulation.
\appendix
\section{Proofs}
\subsection{Proof of Theorem~\ref{thm:settle}}
\begin{proof}
Bound the tail by a geometric series.
\end{proof}
""",
    "proof-argument": r"""
\section{Theory}
\begin{theorem}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{theorem}
In words, damping wins over accumulation.
\begin{lemma}\label{lem:tail}
The tail is bounded.
\end{lemma}
\begin{proof}
Compare with a geometric series.
\end{proof}
\appendix
\section{Proofs}
\begin{proof}[Proof of Theorem~\ref{thm:settle}]
Apply Lemma~\ref{lem:tail}.
\end{proof}
""",
    "numbered-heading": r"""
\section{Theory}
\begin{theorem}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{theorem}
In words, damping wins over accumulation.
\appendix
\section{Proofs}
\subsection{Proof of Theorem 1}
Bound the tail by a geometric series, term by term.
""",
    "restatable": r"""
\section{Theory}
\begin{restatable}{theorem}{settle}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{restatable}
In words, damping wins over accumulation.
\appendix
\section{Proofs}
\settle*
\begin{proof}
Bound the tail by a geometric series.
\end{proof}
""",
    "deferral": r"""
\section{Theory}
The proofs of all results in this section are in Appendix~\ref{app:proofs}.
\begin{theorem}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{theorem}
In words, damping wins over accumulation.
\appendix
\section{Proofs}\label{app:proofs}
We bound the tail by a geometric series.
""",
    "framed": FRAMED.format(where="", frame="mdframed"),
    "framed-appendix": FRAMED.format(where="\\appendix\n\\section{Proofs}\n", frame="tcolorbox"),
    "cited": r"""
\section{Background}
\begin{theorem}[Ratio test~\cite{knuth}]\label{thm:ratio}
A series whose ratio stays below one converges.
\end{theorem}
We use it below.
\begin{thebibliography}{1}
\bibitem{knuth} D. Knuth. Concrete sums. 1990.
\end{thebibliography}
""",
}


def test_a_statement_proved_anywhere_that_refers_to_it_is_closed(tmp_path: Path) -> None:
    for how, body in CLOSED_BY.items():
        folder = tmp_path / how
        folder.mkdir()
        assert codes_at(paper(folder, body), "MECH004") == [], how


def test_a_statement_with_no_proof_or_a_pointer_to_nowhere_stays_open(tmp_path: Path) -> None:
    body = r"""
\section{Theory}
The proofs of all results in this section are in Appendix~\ref{app:missing}.
\begin{theorem}\label{thm:settle}
Every damped sum with ratio below one settles.
\end{theorem}
In words, damping wins over accumulation. We leave the proof of Theorem~\ref{thm:settle} to
future work.
"""
    found = paper(tmp_path, body)
    assert codes_at(found, "MECH004") == [line_of(tmp_path, r"\begin{theorem}")]


# ---- MECH016 / MECH017: an inline thebibliography is a bibliography ----------------------------

def test_an_inline_thebibliography_is_a_bibliography(tmp_path: Path) -> None:
    body = r"""
\section{Introduction}
Damped sums go back to \cite{euler} and \cite{gauss}.
\begin{thebibliography}{9}
\bibitem{euler} L. Euler. On series. 1748.
\end{thebibliography}
"""
    found = paper(tmp_path, body)
    assert codes_at(found, "MECH016") == []
    # the key the inline list lacks is still an unresolved citation
    assert [f.labels for f in found if f.code == "MECH017"] == [("gauss",)]


# ---- MECH023: a number after a locator into another work is not a hard-coded reference ---------

def test_locators_into_other_works_are_not_hard_coded_references(tmp_path: Path) -> None:
    body = r"""
\section{Introduction}
The bound is \citet[Table 2]{euler}, sharpened in \citep[Prop. A.22]{euler}.
As their Figure 22 shows, the sum oscillates; see also Section 4 of the Euler paper \cite{euler}.
Numbered works agree [12, Sec. 3], and 其论文中的图22 shows the same.
Our own Table 3 lists the rates.
\begin{thebibliography}{9}
\bibitem{euler} L. Euler. On series. 1748.
\end{thebibliography}
"""
    found = paper(tmp_path, body)
    hard = [f for f in found if f.code == "MECH023"]
    assert [f.line for f in hard] == [line_of(tmp_path, "Our own Table 3")]
    assert "'Table 3'" in hard[0].message


# ---- MECH081 / MECH072: numbers in the prose against the notebook's saved outputs ------------

EXAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "example_paper.ipynb"


def all_example_findings(edit: Callable[[list[dict[str, Any]]], None]) -> list[Finding]:
    """The findings of the English example paper after ``edit`` changes its cells."""
    nb = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    edit(nb["cells"])
    return check(paper_from_dict(nb, EXAMPLE))


def _example_cells() -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(EXAMPLE.read_text("utf-8"))["cells"]
    return cells


def example_findings(edit: Callable[[list[dict[str, Any]]], None]) -> list[Finding]:
    """The findings ``edit`` adds to the example paper's own (none, below)."""
    before = {(f.code, f.cell, f.message) for f in all_example_findings(lambda cells: None)}
    return [f for f in all_example_findings(edit) if (f.code, f.cell, f.message) not in before]


def _replace(cells: list[dict[str, Any]], index: int, old: str, new: str) -> None:
    source = "".join(cells[index]["source"])
    assert old in source
    cells[index]["source"] = source.replace(old, new, 1)


# cells of the example paper the tests below edit (notebooks/example_paper.ipynb)
ABSTRACT, DYNAMICS, DYNAMICS_RESULT, IMPLICATION, LIMITATIONS = 0, 25, 26, 31, 32


def test_the_example_paper_has_no_findings_to_start_with() -> None:
    # five seeds per setting, every number as printed: nothing to report
    assert [(f.code, f.cell) for f in all_example_findings(lambda cells: None)] == []


def test_a_results_number_that_differs_from_the_output_names_the_printed_value() -> None:
    found = example_findings(lambda cells: _replace(cells, DYNAMICS_RESULT, "$o=1.189$",
                                                    "$o=1.198$"))
    assert [(f.code, f.cell) for f in found] == [("MECH081", DYNAMICS_RESULT)]
    assert f"text says 1.198, cell {DYNAMICS_RESULT} printed 1.189" in found[0].message
    found = example_findings(lambda cells: _replace(cells, DYNAMICS_RESULT, "(sd 0.0034)",
                                                    "(sd 0.0043)"))
    assert [(f.code, f.cell) for f in found] == [("MECH081", DYNAMICS_RESULT)]
    assert f"text says 0.0043, cell {DYNAMICS_RESULT} printed 0.0034" in found[0].message


def test_a_caption_number_that_differs_from_its_own_output() -> None:
    def edit(cells: list[dict[str, Any]]) -> None:
        meta = cells[DYNAMICS]["metadata"]["mechnb"]
        meta["caption"] += " At step 300, $o=1.198$."

    found = example_findings(edit)
    assert [(f.code, f.cell) for f in found] == [("MECH081", DYNAMICS)]
    assert f"text says 1.198, cell {DYNAMICS_RESULT} printed 1.189: the caption" in \
        found[0].message


def test_a_table_number_that_differs_from_the_latex_table_shown() -> None:
    # the intervention table is shown with display(Latex(...)): its numbers are read from the
    # text/latex output, not from the "<IPython.core.display.Latex object>" text/plain
    found = example_findings(lambda cells: _replace(cells, 30, "$x_{i+2}$ on 0.922",
                                                    "$x_{i+2}$ on 0.932"))
    assert [(f.code, f.cell) for f in found] == [("MECH081", 30)]
    assert "printed 0.922" in found[0].message


def test_a_hundredth_of_a_shown_number_is_not_shown() -> None:
    # the printed 0.950 is no percentage: a summary's 0.0095 is no printed value, and no shown
    # number may stand for it unless a % says it is a percentage
    found = example_findings(lambda cells: _replace(
        cells, ABSTRACT, "as the circuit predicts.",
        "as the circuit predicts, and the trained models copy on $0.0095$ of the contexts."))
    assert [(f.code, f.cell) for f in found] == [("MECH072", ABSTRACT)]


# ---- MECH082 / MECH074: the scope and the strength of what the prose claims -------------------

def test_a_claim_about_a_named_real_model_needs_a_real_model_experiment() -> None:
    found = example_findings(lambda cells: _replace(
        cells, IMPLICATION, "The same route", "Induction heads in GPT-2 form when the reduced "
        "dynamics escape. The same route"))
    assert [(f.code, f.cell) for f in found] == [("MECH082", IMPLICATION)]
    assert "GPT-2" in found[0].message
    # hedged, it is not a claim; in the limitations it is a limit, not a claim
    assert example_findings(lambda cells: _replace(
        cells, IMPLICATION, "The same route", "The same may hold for induction heads in GPT-2. "
        "The same route")) == []
    assert example_findings(lambda cells: _replace(
        cells, LIMITATIONS, "The data are", "Induction heads in GPT-2 form differently. "
        "The data are")) == []


def test_proof_wording_for_an_experiment_is_read_in_the_discussion_too() -> None:
    found = example_findings(lambda cells: _replace(
        cells, IMPLICATION, "The same route", "\\cref{tab:intervention} proves that the "
        "previous-token pattern decides what the head copies. The same route"))
    assert [(f.code, f.cell) for f in found] == [("MECH074", IMPLICATION)]


# ---- domain rules and introduction moves ------------------------------------------------------

def _domain_paper(subject: str) -> str:
    return rf"""
\section{{Introduction}}
Betting strategies for {subject} are used to build confidence sequences in sequential
statistics, and they are studied for their regret and their growth rate over many rounds.
Existing analyses bound the regret, but it is not known how fast the wealth grows when the
outcomes are bounded.
We show that the wealth grows at a rate set by the variance of the outcomes. Our contributions
are a growth bound and its tightness.
\section{{Theory}}
\begin{{theorem}}\label{{thm:growth}}
The wealth grows at least geometrically.
\end{{theorem}}
\begin{{proof}}
Take logarithms and sum the increments.
\end{{proof}}
In words, betting a fixed fraction pays off.
\section{{Conclusion}}
The main limitation is that the outcomes must be bounded.
"""


def test_domain_rules_apply_to_papers_about_transformers_only_and_say_so(tmp_path: Path) -> None:
    coins = tmp_path / "coins"
    coins.mkdir()
    found = paper(coins, _domain_paper("coin flips"))
    codes = {f.code for f in found}
    # not about Transformers / LLMs: no attention vocabulary owed, no lens asked for; the
    # introduction opens with context (it never says "we" in its first sentence)
    assert "MECH054" not in codes
    # its gap, limitation and context are in its own words: nothing missing
    assert not codes & {"MECH001", "MECH062"}
    assert not [f for f in found if f.code == "MECH062" and "context" in f.message]
    llm = tmp_path / "llm"
    llm.mkdir()
    found = paper(llm, _domain_paper("large language models"))
    implication = [f for f in found if f.code == "MECH054"]
    assert len(implication) == 1
    assert "about Transformers / LLMs (it speaks of “large language models”)" in \
        implication[0].message


# ---- MECH083: strong wording about a result from one seed -------------------------------------

def _one_seed(cells: list[dict[str, Any]]) -> None:
    """The example trained on one seed only, with "exactly" in its result."""
    setup = next(c for c in cells if c["cell_type"] == "code")
    setup["source"] = "SEED = 0\n" + "".join(setup["source"]).replace("SEEDS = range(5)",
                                                                      "SEEDS = [SEED]")
    for cell in cells:
        if cell["cell_type"] == "code":
            cell["source"] = "".join(cell["source"]).replace("for seed in SEEDS",
                                                             "for _ in SEEDS")
    _replace(cells, DYNAMICS_RESULT, "Every run escapes within one evaluation interval of its "
             "prediction", "The run escapes exactly at its predicted step")


def test_exactness_from_one_seed_is_a_warning_when_the_paper_never_says_one_seed() -> None:
    found = all_example_findings(_one_seed)
    assert [(f.code, f.severity.value, f.cell) for f in found] == \
        [("MECH083", "warning", DYNAMICS_RESULT)]
    assert "“exactly”" in found[0].message

    def disclosed(cells: list[dict[str, Any]]) -> None:
        _one_seed(cells)
        _replace(cells, LIMITATIONS, "The data are", "One seed is reported. The data are")

    found = all_example_findings(disclosed)
    assert [(f.code, f.severity.value, f.cell) for f in found] == \
        [("MECH083", "info", DYNAMICS_RESULT)]


def test_a_loop_over_seeds_is_not_one_seed() -> None:
    def edit(cells: list[dict[str, Any]]) -> None:
        _one_seed(cells)
        code = next(c for c in cells if c["cell_type"] == "code")
        code["source"] = "for seed in (0, 1, 2):\n    pass\n" + "".join(code["source"])

    assert [f.code for f in all_example_findings(edit)] == []


def _seeds_paper(result: str) -> list[Finding]:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Copying across seeds"},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source":
         "import random\nfor seed in (0, 1, 2):\n    random.seed(seed)\n    print(seed, 0.947)",
         "outputs": [{"output_type": "stream", "name": "stdout",
                      "text": "0 0.947\n1 0.941\n2 0.953\n"}]},
        {"cell_type": "markdown", "metadata": {"mechnb": {"role": "result"},
                                               "tags": ["mech:result"]}, "source": result},
    ]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    return [f for f in check(paper_from_dict(nb, EXAMPLE.parent / "seeds.ipynb"))
            if f.code == "MECH083"]


def test_several_seeds_and_a_strong_claim_without_the_spread() -> None:
    found = _seeds_paper("In our runs the trained models consistently reach a held-out copy "
                         "accuracy of 0.947.")
    # several seeds, no spread reported, strong wording: a warning at the loop
    assert [(f.severity.value, f.cell) for f in found] == [("warning", 1)]
    assert "runs several seeds" in found[0].message and "spread" in found[0].message
    assert _seeds_paper("In our runs the trained models consistently reach a held-out copy "
                        "accuracy of 0.947, with a standard deviation of 0.006 across the three "
                        "seeds.") == []


# ---- MECH025: brackets that are not template slots (labelled on corpus notebooks) --------------

NOT_SLOTS = [
    "The cache stores the pattern with shape [layer, pos, head], so we index it per head.",
    'Suppose the prompt reads:\n\n"""Summarise the passage below.\n\n<passage>\n{{text}}\n'
    '</passage>\n\nKeep it to [number of sentences] sentences."""\n\nWe fill the variables from '
    "the data set.",
    "Categorical inputs look like this:\n\n    colour in [red, green, amber]\n\nEach gets its "
    "own axis.",
    "<script>\nrows.forEach(([label, score]) => draw(label, score));\n</script>",
    'As the report puts it, the operator "stopped after a few dozen [trials] because the answer '
    'was plain".',
    "In the long run [ here the authors let the sample size grow without bound ] the error rate "
    "settles.",
    "**[NOTE]** Only the adapter weights are saved.",
    "1. Start from any policy.\n2. [Policy evaluation]\n   Solve the linear system for its value."
    "\n3. [Policy improvement]\n   Act greedily with respect to that value.",
]
SLOTS = [
    "The effect grows with [model size], which we vary below.",
    "- Sweeps over [number formats, optimizers, model sizes].",
    "1. [first contribution]\n2. [second contribution]",
]


def test_brackets_that_are_shapes_quotes_code_asides_labels_or_step_titles_are_not_slots(
        ) -> None:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": text}
             for text in ["# Probing copy heads", *NOT_SLOTS, *SLOTS]]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    findings = [f for f in check(paper_from_dict(nb, EXAMPLE.parent / "slots.ipynb"))
                if f.code == "MECH025"]
    first_slot = 1 + len(NOT_SLOTS)
    assert sorted({f.cell for f in findings}) == [first_slot, first_slot + 1, first_slot + 2]
    # one finding per cell, counting its slots (issue 38): the list item cell holds two
    from mechnb.checker.report import slot_count

    assert len(findings) == 3 and sum(slot_count(f) for f in findings) == 4


def test_a_conjecture_is_open_by_definition_and_needs_no_proof(tmp_path: Path) -> None:
    found = paper(tmp_path, r"""
\newtheorem{conjecture}{Conjecture}
\section{Outlook}
\begin{conjecture}
Every damped sum with a random ratio below one settles almost surely.
\end{conjecture}
We leave this open; simulations agree with it.
""")
    assert codes_at(found, "MECH004") == []
    found = paper(tmp_path, r"""
\section{Outlook}
\begin{theorem}
Every damped sum with a random ratio below one settles almost surely.
\end{theorem}
We leave this open; simulations agree with it.
""")
    assert codes_at(found, "MECH004") == [line_of(tmp_path, r"\begin{theorem}")]


# ---- MECH001: a lens is owed by papers about a mechanism, not by papers that use a Transformer --

def _kv_paper(abstract: str) -> str:
    return r"""\documentclass{article}
\begin{document}
\title{Shared caches}
\begin{abstract}
""" + abstract + r"""
\end{abstract}
\section{Introduction}
Large language models decode one token at a time through the attention mechanism, and each of
their $H$ attention heads keeps a cache of keys and values that grows with the context.
However, this cache is the memory bottleneck of long generations.
We share one cache between neighbouring layers and keep the accuracy.
\section{Experiments}
Sharing halves the memory on every benchmark we tried.
\section{Conclusion}
The main limitation is that very deep models lose accuracy when more than two layers share.
\end{document}
"""


def _lens_asked(folder: Path, abstract: str) -> bool:
    """Whether MECH001 asks for a lens of the key-value-cache paper with ``abstract``."""
    folder.mkdir()
    (folder / "main.tex").write_text(_kv_paper(abstract), encoding="utf-8")
    return any(f.code == "MECH001" and "lens" in f.message
               for f in check_latex(folder / "main.tex"))


def test_architecture_words_in_the_introduction_do_not_make_a_mechanism_paper(
        tmp_path: Path) -> None:
    def lens_asked(name: str, abstract: str) -> bool:
        return _lens_asked(tmp_path / name, abstract)

    assert not lens_asked("uses", "We halve the memory of decoding with large language models "
                                  "by sharing key-value caches between layers, at equal accuracy.")
    assert lens_asked("about", "We ask by which mechanism attention heads of large language "
                               "models come to share their key-value caches during training.")


SETTLED = ("\n\\section{Results}\n"
           "Every simulated damped sum settled within the predicted number of steps.\n")
"""The results paragraph the limitation tests' papers open with."""


def _limitation_findings(tmp_path: Path, body: str) -> list[Finding]:
    """The MECH001 findings that ask ``body`` (a LaTeX paper's text) for its limitations."""
    return [f for f in paper(tmp_path, body) if f.code == "MECH001" and
            "limitations" in f.message]


# ---- MECH001: "the limitations of our study" names a limitation of the paper itself -------------

def test_the_limitations_of_our_study_are_limitations(tmp_path: Path) -> None:
    assert _limitation_findings(tmp_path, SETTLED + r"""
\section{Future work}
We should acknowledge the limitations of our study: only ratios between zero and one were
simulated, and the sequences were short.
""") == []
    # the limitations of the methods the paper improves on are not its own
    assert _limitation_findings(tmp_path, r"""
\section{Results}
Every simulated damped sum settled within the predicted number of steps, despite the
limitations of existing solvers on long sequences.
""")


# ---- MECH001: an under-exploited or little-known connection is a gap ---------------------------

def _gap_findings(tmp_path: Path, abstract: str) -> list[Finding]:
    """MECH001's gap findings on a short paper whose introduction states no gap."""
    (tmp_path / "main.tex").write_text(r"""\documentclass{article}
\begin{document}
\title{Two updates}
\begin{abstract}
""" + abstract + r"""
\end{abstract}
\section{Introduction}
The filter update and the sampler update are used in two communities.
We write both as one affine map and compare their costs.
\section{Conclusion}
The main limitation is that both updates assume Gaussian noise.
\end{document}
""", encoding="utf-8")
    return [f for f in check_latex(tmp_path / "main.tex")
            if f.code == "MECH001" and "gap" in f.message]


def test_an_underexploited_connection_is_a_gap(tmp_path: Path) -> None:
    def gap(abstract: str) -> list[Finding]:
        return _gap_findings(tmp_path, abstract)

    assert gap("The two updates are the same map, a simple but under-exploited equivalence.") == []
    assert gap("The two updates share a little-known connection, which we spell out.") == []
    assert gap("The two updates are the same map, and we spell out the equivalence.")


# ---- MECH002: a table set in the text of an experiments section is evidence -------------------

def test_a_table_outside_a_float_in_the_experiments_validates(tmp_path: Path) -> None:
    table = r"""
\begin{center}
  \begin{tabular}{c|c}
    ratio & steps to settle \\ \hline
    0.5 & 7 \\
    0.9 & 44
  \end{tabular}
\end{center}
"""
    experiments = r"""
\section{Experiments}
We simulated damped sums with two ratios and counted the steps until they settled.
"""
    found = paper(tmp_path, experiments + table)
    assert codes_at(found, "MECH002") == []
    # the same numbers in prose only, or a table with no experiments section: no validation
    assert codes_at(paper(tmp_path, experiments + "Both settled.\n"), "MECH002")
    assert codes_at(paper(tmp_path, "\\section{Setting}\nWe fix two ratios.\n" + table),
                    "MECH002")


# ---- MECH015: the jmlr / PMLR float body \floatconts{label}{caption}{contents} defines a label --

def test_floatconts_defines_the_label_of_its_figure(tmp_path: Path) -> None:
    found = paper(tmp_path, r"""
\section{Experiments}
Figure~\ref{fig:steps} counts the steps each damped sum needs to settle, and
Figure~\ref{fig:step} is a misspelt reference.
\begin{figure}[t]
  \floatconts{fig:steps}%
    {\caption{Steps to settle against the ratio.}}%
    {\includegraphics[width=\linewidth]{steps.pdf}}
\end{figure}
""")
    assert [f.message.split("}")[0] for f in found if f.code == "MECH015"] == ["\\ref{fig:step"]
    assert codes_at(found, "MECH020") == []


# ---- MECH020: an unlabelled float that the paragraph before it introduces is pointed to --------

def test_a_float_introduced_by_the_paragraph_before_it_is_referenced(tmp_path: Path) -> None:
    def table(caption: str) -> str:
        return ("\\begin{table}[h]\n\\caption{" + caption + "}\n\\begin{tabular}{cc}\n"
                "0.5 & 7 \\\\\n0.9 & 44\n\\end{tabular}\n\\end{table}\n")

    found = paper(tmp_path, r"""
\section{Setting}
We sweep the ratio and count the steps to settle, as follows:
""" + table("Steps against the ratio.") + r"""
Below is the list of sequence lengths we simulate.
""" + table("Sequence lengths.") + r"""
The error of the predicted step count stays below one step.
""" + table("Errors of the prediction.") + r"""
Both runs use the same seed.
""" + table("Runs."))
    assert codes_at(found, "MECH020") == [line_of(tmp_path, "Errors of the prediction") - 1,
                                          line_of(tmp_path, "{Runs.}") - 1]


def test_an_unreferenced_table_is_called_a_table(tmp_path: Path) -> None:
    """MECH020 said "figure tab:steps is never referenced" of a table (found on a fresh real
    paper); a table float, or a label that says tab:, is a table in the message."""
    found = paper(tmp_path, r"""
\section{Setting}
We sweep the ratio and count the steps to settle.
\begin{table}[h]
\caption{Steps against the ratio.}\label{tab:steps}
\begin{tabular}{cc}
0.5 & 7 \\
\end{tabular}
\end{table}
\begin{figure}[h]
\centering\rule{1cm}{1cm}
\caption{The settling curve.}\label{fig:curve}
\end{figure}
""")
    messages = [f.message for f in found if f.code == "MECH020"]
    assert len(messages) == 2
    assert messages[0].startswith("table tab:steps is never referenced")
    assert messages[1].startswith("figure fig:curve is never referenced")


def test_a_figure_cited_by_the_label_of_one_of_its_panels_is_referenced(tmp_path: Path) -> None:
    found = paper(tmp_path, r"""
\section{Setting}
The left panel of \cref{fig:curve-left} shows the settling curve.
\begin{figure}[h]
\begin{subfigure}{0.4\textwidth}\rule{1cm}{1cm}\caption{Left.}\label{fig:curve-left}
\end{subfigure}
\caption{The settling curve.}\label{fig:curve}
\end{figure}
\begin{figure}[h]
\begin{subfigure}{0.4\textwidth}\rule{1cm}{1cm}\caption{Left.}\label{fig:other-left}
\end{subfigure}
\caption{Another curve.}\label{fig:other}
\end{figure}
""")
    messages = [f.message for f in found if f.code == "MECH020"]
    assert len(messages) == 1 and messages[0].startswith("figure fig:other is never referenced")


def test_a_figure_cited_through_the_papers_own_reference_command_is_referenced(
        tmp_path: Path) -> None:
    # Venue templates define \Figref in a commands file; a paragraph the import keeps as raw
    # LaTeX (here because of the colour-box command) is not expanded, the command still refers.
    commands = ("\\def\\Figref#1{Figure~\\ref{#1}}\n"
                "\\newcommand{\\panel}[2]{panel #2 of Fig.~\\ref{fig:#1}}\n"
                "\\newcommand{\\boxed}[1]{\\fcolorbox{blue}{white}{\\parbox{5cm}{#1}}}\n")
    found = paper(tmp_path, r"""
\input{commands}
\section{Setting}
\boxed{The sum settles fast, as \Figref{fig:curve} shows; see also \panel{tail}{b}.}

\begin{figure}[h]\rule{1cm}{1cm}\caption{The settling curve.}\label{fig:curve}\end{figure}
\begin{figure}[h]\rule{1cm}{1cm}\caption{The tail.}\label{fig:tail}\end{figure}
\begin{figure}[h]\rule{1cm}{1cm}\caption{Another curve.}\label{fig:other}\end{figure}
""", extra={"commands.tex": commands})
    messages = [f.message for f in found if f.code == "MECH020"]
    assert len(messages) == 1 and messages[0].startswith("figure fig:other is never referenced")


def test_an_intuition_before_the_formula_or_in_other_words_is_read(tmp_path: Path) -> None:
    # MECH051 read only "Intuitively, …" after a formula; papers also say what a term does
    # ("corresponds to", "penalises", "as the ratio grows, …", "if … is small, then …") or give
    # the intuition first. A glossary of symbols alone is still no intuition.
    found = paper(tmp_path, r"""
\section{Setting}
We weigh each step:
\begin{equation}\label{eq:mirror}
w_t = \rho^{t}
\end{equation}
The weight corresponds to how much of step $t$ survives.

The update is
\begin{equation}\label{eq:grow}
s_t = \rho s_{t-1} + x_t
\end{equation}
As the ratio grows, old inputs fade more slowly.

The gap is
\begin{equation}\label{eq:small}
g = |s_t - s^\ast|
\end{equation}
If $g$ is small for every input, then the sum has settled.

The intuition behind the next definition is that a sum settles once its tail stops moving.

\begin{equation}\label{eq:before}
T = \min\{t : g_t < \epsilon\}
\end{equation}

Finally we expand one step:
\begin{equation}\label{eq:bare}
s_{t+1} - s_t = (\rho - 1) s_t + x_{t+1}
\end{equation}
Here, $x_t$ denotes the input.
""")
    assert [f.labels for f in found if f.code == "MECH051"] == [("eq:bare",)]


def test_a_run_in_heading_that_announces_the_interpretation_interprets(tmp_path: Path) -> None:
    found = paper(tmp_path, r"""
\section{Theory}
\begin{theorem}\label{thm:gate}
Every damped sum with ratio below one settles.
\end{theorem}
\paragraph{Interpretation: damping as a gate.}
Each step forgets a fixed share of the past.

\begin{theorem}\label{thm:grow}
A damped sum with ratio above one grows without bound.
\end{theorem}
\paragraph{A remark on inputs.}
Inputs are bounded throughout.
""")
    assert [f.labels for f in found if f.code == "MECH003"] == [("thm:grow",)]


def test_a_piecewise_definition_is_not_a_chain_of_steps(tmp_path: Path) -> None:
    # dcases / rcases rows are the cases of one definition, not a derivation (MECH052)
    found = paper(tmp_path, r"""
\section{Setting}
The weight is
\begin{equation}\label{eq:piece}
w(t) = \begin{dcases} \rho^t & t \ge 0, \\ 0 & t < 0, \end{dcases}
\end{equation}
and one step gives
\begin{equation}\label{eq:chain}
s_{t+1} = \rho s_t + x_{t+1} = \rho^2 s_{t-1} + \rho x_t + x_{t+1} \le 2 \max_k |x_k|.
\end{equation}
""")
    assert [f.line for f in found if f.code == "MECH052"] == [line_of(tmp_path, "eq:chain")]


LLM_PAPER = r"""\documentclass{article}
\usepackage{amsthm}
\newtheorem{theorem}{Theorem}
\begin{document}
\title{Copy heads}
\begin{abstract}
Attention heads in large language models copy tokens. We prove when one head copies exactly.
\end{abstract}
\section{Introduction}
Large language models copy tokens from their context with attention heads.
\section{Theory}
\begin{theorem}\label{thm:copy}
A head with margin above one copies the token it attends to.
\end{theorem}
\begin{proof}
The softmax weight on the target exceeds one half.
\end{proof}
\section{Discussion and Outlook}
\subsection{Scope}
%s
\end{document}
"""


def test_an_implication_in_the_discussion_is_read_on_latex(tmp_path: Path) -> None:
    # A LaTeX paper has no `implication` cell: MECH054 reads the abstract and the discussion /
    # conclusion sections (their subsections too) for a consequence drawn for the model.
    def implication_asked(name: str, closing: str) -> bool:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "main.tex").write_text(LLM_PAPER % closing, encoding="utf-8")
        return any(f.code == "MECH054" for f in check_latex(folder / "main.tex"))

    assert not implication_asked("drawn", "This suggests that attention heads with a small "
                                          "margin should be pruned first.")
    assert implication_asked("none", "The margin is easy to compute for any head.")


def test_a_statement_heading_typed_by_hand_is_numbered_by_hand_not_a_reference(
        tmp_path: Path) -> None:
    found = paper(tmp_path, r"""
\section{Theory}
\textbf{Proposition 1 (Endpoints).} A sum with ratio zero settles at once.

\noindent\textbf{Proposition 2 (Monotonicity in \(\rho\)).}
The settling time grows with the ratio $\rho$. Its proof uses Proposition 1.

Proposition 3: the settling time is finite.
""")
    messages = {f.line: f.message for f in found if f.code == "MECH023"}
    heading, second = line_of(tmp_path, "Endpoints"), line_of(tmp_path, "Monotonicity")
    assert set(messages) == {heading, second, second + 1, line_of(tmp_path, "Proposition 3")}
    for line in (heading, second, line_of(tmp_path, "Proposition 3")):
        assert "numbers a statement by hand" in messages[line]
        assert "`proposition` environment" in messages[line] and "\\cref" not in messages[line]
    assert "use \\cref" in messages[second + 1]  # "Its proof uses Proposition 1": a reference


def test_a_gap_closed_or_a_question_asked_and_a_view_taken_are_read(tmp_path: Path) -> None:
    def gap(abstract: str) -> list[Finding]:
        return _gap_findings(tmp_path, abstract)

    assert gap("Both updates are affine maps. We close this gap with one scan.") == []
    assert gap("The question is not whether the updates agree but how fast they do.") == []
    assert gap("Most work on the updates answers a different question: which is cheaper.") == []
    assert gap("Both updates are affine maps, and we compute both with one scan.")
    question = ("We ask by which mechanism attention heads of large language models come to "
                "share their key-value caches during training.")
    assert _lens_asked(tmp_path / "plain", question)
    assert not _lens_asked(tmp_path / "viewed", question + " Once each cache is viewed as a "
                           "low-rank sketch of the context, sharing becomes a rank question.")
    # what the paper explains something in terms of, or the analytical tool it works through
    for view in ("We characterise the sharing in terms of the spectrum of the key projections.",
                 "We model each cache as a low-rank sketch of the context.",
                 "Using activation patching, we trace which heads read the shared cache.",
                 "Our account proceeds through training dynamics of a two-layer model."):
        assert not _lens_asked(tmp_path / view[:12].replace(" ", "_"), question + " " + view), view
    assert _lens_asked(tmp_path / "terms", question + " Sharing is cheap in terms of memory.")


# ---- MECH001 / MECH062: prose written with acronym commands is read as TeX prints it ------------

def test_acronym_commands_are_read_as_the_text_they_print(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(r"""\documentclass{article}
\usepackage{acronym}
\newacro{ds}[DS]{damped sum}
\newacronym{sp}{SP}{signal processing}
\DeclareAcronym{gr}{short = GR, long = geometric rate}
\begin{document}
\title{Settling}
\begin{abstract}
\Acp{ds} are common in \ac{sp}. We show that they settle at a \acl{gr}.
\end{abstract}
\section{Introduction}
\Acp{ds} appear in every \ac{sp} textbook, and engineers rely on them to smooth noisy signals.
However, when a \ac{ds} settles is not known beyond special cases, and \acp{ds} with varying
ratios lack any guarantee.
We prove that every \ac{ds} settles at a \acf{gr}.
\section{Conclusion}
The main limitation is that the ratios must stay below one.
\end{document}
""", encoding="utf-8")
    found = check_latex(tmp_path / "main.tex")
    assert not [f for f in found if f.code == "MECH001" and "gap" in f.message]
    assert not [f for f in found if f.code == "MECH062" and "context" in f.message]
    # an import keeps the commands as written
    from mechnb.latexin.reader import read_latex

    imported = read_latex(tmp_path / "main.tex")
    assert any("\\ac{ds}" in b.source for b in imported.blocks if b.kind == "raw")


# ---- MECH023: "Experiment 2" is a name unless the paper numbers its experiments ----------------

def test_an_experiment_named_by_its_number_is_not_a_hard_coded_reference(tmp_path: Path) -> None:
    body = r"""
\section{Experiments}
\subsection{Experiment 1: short sums}
Sums of ten terms settle within the predicted steps.
\subsection{Experiment 2: long sums}
As in Experiment 1, but with a thousand terms; run 7 of Experiment 2 settled last, and
Figure 3 shows every run.
"""
    found = [f.message.split("'")[1] for f in paper(tmp_path, body) if f.code == "MECH023"]
    assert found == ["Figure 3"]
    numbered = "\\newtheorem{experiment}{Experiment}\n" + body + r"""
\begin{experiment}
Sums of a million terms settle too.
\end{experiment}
"""
    found = [f.message.split("'")[1] for f in paper(tmp_path, numbered) if f.code == "MECH023"]
    # the headings' numbers too: the environment numbers the experiments
    assert set(found) == {"Experiment 1", "Experiment 2", "Figure 3"}


# ---- MECH016 / MECH017: a named .bib that is absent is one finding, not one per key ------------

def test_a_missing_bib_among_several_is_reported_once_not_per_key(tmp_path: Path) -> None:
    own = "@article{fourier, title={On heat}, author={J. Fourier}, year={1822}}\n"
    found = paper(tmp_path, r"""
\section{Introduction}
Damped sums go back to \cite{euler-1748-series} and to \cite{fourier}; see
\citet{gauss-1813-series} for their convergence.
\bibliography{anthology,own}
""", extra={"own.bib": own})
    assert [f.message.split("'")[1] for f in found if f.code == "MECH016"] == ["anthology.bib"]
    assert codes_at(found, "MECH017") == []  # the keys may well be in the missing file
    # with every named file there, a key none of them holds is still unresolved
    (tmp_path / "anthology.bib").write_text(
        "@article{euler-1748-series, title={Series}, author={L. Euler}, year={1748}}\n",
        encoding="utf-8")
    found = check_latex(tmp_path / "main.tex")
    assert codes_at(found, "MECH016") == []
    assert [f.labels for f in found if f.code == "MECH017"] == [("gauss-1813-series",)]


def test_a_bibliography_command_shown_in_verbatim_names_no_file(tmp_path: Path) -> None:
    own = "@article{fourier, title={On heat}, author={J. Fourier}, year={1822}}\n"
    found = paper(tmp_path, r"""
\section{Introduction}
Damped sums go back to \cite{fourier} and \cite{euler}. To add the large list, write
\begin{verbatim}
\bibliography{biglist,own}
\end{verbatim}
\bibliography{own}
""", extra={"own.bib": own})
    assert codes_at(found, "MECH016") == []
    assert [f.labels for f in found if f.code == "MECH017"] == [("euler",)]


# ---- MECH015: a macro of the paper that ends in \label sets a label ----------------------------

def test_a_macro_that_ends_in_label_defines_the_label_it_is_given(tmp_path: Path) -> None:
    body = r"""
\section{Method}
\newcounter{stepno}
\begin{itemize}
\item Add the next term. \steplabel{step:add}
\item Stop when the term is small. \namedstep{step:stop}
\end{itemize}
Step~\ref{step:add} runs until step~\ref{step:stop} fires; step~\ref{step:halt} does not exist.
"""
    preamble = "\\newcommand{\\steplabel}{%\n  \\refstepcounter{stepno}% count the step\n" \
               "  \\label% the label follows\n}\n\\newcommand{\\namedstep}[1]{\\label{#1}}\n"
    (tmp_path / "main.tex").write_text(PREAMBLE.replace("\\begin{document}",
                                                        preamble + "\\begin{document}")
                                       + body + "\n\\end{document}\n", encoding="utf-8")
    found = check_latex(tmp_path / "main.tex")
    assert [f.labels for f in found if f.code == "MECH015"] == [("step:halt",)]


# ---- MECH017: text between \if0 and \fi is never read, like \iffalse -----------------------------

def test_text_between_if0_and_fi_is_not_read(tmp_path: Path) -> None:
    own = "@article{fourier, title={On heat}, author={J. Fourier}, year={1822}}\n"
    found = paper(tmp_path, r"""
\section{Introduction}
Damped sums go back to \cite{fourier}.
\if0
% a template's example entry, switched off
\nocite{langley00}
\fi
\bibliography{own}
""", extra={"own.bib": own})
    assert codes_at(found, "MECH017") == []


# ---- MECH001: "in this paper we only consider …" states a limit of the paper --------------------

def test_what_this_paper_only_considers_is_a_limitation(tmp_path: Path) -> None:
    assert _limitation_findings(tmp_path, SETTLED + r"""
\section{Open problems}
\begin{itemize}
\item In this paper we only consider constant ratios, which may not cover adaptive filters.
\end{itemize}
""") == []
    assert _limitation_findings(tmp_path, SETTLED + r"""
\section{Open problems}
Our solver stores every partial sum, which is not viable for streams that never end.
""") == []
    # a transition inside the argument names no limit
    assert _limitation_findings(tmp_path, r"""
\section{Results}
So far we have only considered constant ratios, but the next section varies them, and every
simulated damped sum settled within the predicted number of steps.
""")


# ---- MECH001: a mechanism paper that names its perspective has a lens --------------------------

def test_a_mechanism_paper_that_names_its_perspective_has_a_lens(tmp_path: Path) -> None:
    def lens_asked(name: str, abstract: str) -> bool:
        return _lens_asked(tmp_path / name, abstract)

    question = ("We ask by which mechanism attention heads of large language models come to "
                "share their key-value caches during training.")
    assert lens_asked("plain", question)
    assert not lens_asked("perspective", question + " Reading the caches in the frequency "
                          "domain, we give a framework for understanding which heads share.")
    assert not lens_asked("view", question + " We view each head's cache as a low-rank "
                          "sketch of the context.")


# ---- MECH062: a paragraph on what prior work observed is context, wherever it stands -----------

def test_a_prior_work_paragraph_after_the_opening_is_context(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(r"""\documentclass{article}
\begin{document}
\title{Settling}
\begin{abstract}
Damped sums are common in signal processing. We show that they settle geometrically.
\end{abstract}
\section{Introduction}
Here we introduce the settling index, a single number that tells how fast a damped sum
forgets its first terms, and we compute it for every ratio.

Earlier studies have measured settling times of damped sums on recorded signals
\cite{euler}, and classical texts bound the tail by a geometric series \cite{gauss}. Unlike
those bounds, which hold one ratio at a time, recent work tracks whole families of ratios.
\section{Conclusion}
The main limitation is that the ratios must stay below one.
\begin{thebibliography}{9}
\bibitem{euler} L. Euler. On series. 1748.
\bibitem{gauss} C. F. Gauss. On convergence. 1813.
\end{thebibliography}
\end{document}
""", encoding="utf-8")
    found = check_latex(tmp_path / "main.tex")
    assert not [f for f in found if f.code == "MECH062" and "context" in f.message]
