"""Build and execute ``example_paper.ipynb`` (the bundled example mechanism paper).

Run with the project's venv: ``.venv/bin/python notebooks/build_example_paper.py``. The notebook
is written with nbformat and executed with nbclient, so its outputs (figures, tables) are real.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
OUT = HERE / "example_paper.ipynb"


def md(source: str, role: str | None = None, **fields: object) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source.strip("\n"))
    if role:
        cell.metadata["mechnb"] = {"role": role, **fields}
        cell.metadata["tags"] = [f"mech:{role}"]
    return cell


def code(source: str, role: str | None = None, **fields: object) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source.strip("\n"))
    if role:
        cell.metadata["mechnb"] = {"role": role, **fields}
        cell.metadata["tags"] = [f"mech:{role}"]
    return cell


CELLS = [
    md(r"""
We show that a single attention head whose keys carry the *previous* token solves the induction
task by concentration: its attention mass on the matching position has the closed form
$p(\beta)=e^{\beta}/(e^{\beta}+n-1)$, so the head copies the right token in every context as
soon as the query scale $\beta$ exceeds $\log(n-1)$, a threshold that is tight for contexts
filled with one repeated distractor. A controlled experiment with random embeddings follows the
formula, and an intervention that removes only the previous-token shift makes the effect vanish.
""", "abstract"),
    md(r"""
# Introduction

Induction heads let a transformer continue a pattern it has seen earlier in its context: after
`A B … A` they predict `B`. They appear abruptly during training and are tied to in-context
learning in large models, so knowing *why* they work is a step towards knowing what an LLM can
learn from its prompt.
""", "context", label="sec:intro"),
    md(r"""
The circuit view describes an induction head as two parts: a previous-token head that writes the
preceding token into each position, and a head that matches the current token against those
written keys [@elhage2021mathematical; @olsson2022context]. Attention itself goes back to
\citet{vaswani2017attention}, and causal interventions that isolate one component have become
the standard evidence for such circuits [@meng2022locating].
""", "prior"),
    md(r"""
What is missing is a *closed-form characterization* of how sharply the matching head
concentrates: how much attention lands on the right position as a function of the query scale and
the context length, and from which scale on the copy is guaranteed to be correct.
""", "gap"),
    md(r"""
We look at the head **through the lens of softmax concentration**: with (near-)orthogonal token
embeddings every attention score is either the query scale or zero, and the softmax of such a
two-level score vector can be written down exactly.
""", "lens"),
    md(r"""
How large must the query scale of a previous-token-keyed attention head be, as a function of the
context length, for the head to copy the token that followed the earlier occurrence of the
current token — and is the previous-token shift really what makes it work?
""", "question", label="q:main"),
    md(r"""
- A closed form for the attention mass on the matching position (\cref{eq:attn}) and a sharp
  scale threshold for a correct copy (\cref{thm:concentration}).
- A controlled numerical check with random embeddings (\cref{fig:concentration}).
- An intervention that removes only the previous-token shift, after which the copy fails
  (\cref{fig:intervention}).
""", "contributions"),
    md(r"""
## Setup

Let the vocabulary have $V$ tokens with embeddings $e_1,\dots,e_V\in\mathbb{R}^d$ that are
orthonormal, $\langle e_u, e_v\rangle = \mathbf{1}[u=v]$. A context is a sequence
$x_0,\dots,x_{T-1}$ whose last token $q = x_{T-1}$ occurred exactly once before, at position
$i<T-2$; the *induction target* is $y^\star = x_{i+1}$. The head attends over the $n=T-1$
positions $j=1,\dots,T-1$.
""", "setup", label="sec:setup"),
    md(r"""
A *previous-token-keyed head* with query scale $\beta>0$ uses the query $\beta e_{q}$, the key
$k_j = e_{x_{j-1}}$ and the value $v_j = e_{x_j}$ at position $j$; it outputs
$o=\sum_j a_j v_j$ with $a = \operatorname{softmax}(s)$ and predicts
$\hat y = \arg\max_v \langle o, e_v\rangle$.
""", "definition", label="def:head"),
    md(r"""
To see where the head looks, we write its scores and attention weights in closed form. Because
the keys are orthonormal, the score of position $j$ is
$$
s_j = \beta\,\langle e_q, e_{x_{j-1}}\rangle = \beta\,\mathbf{1}[x_{j-1}=q],
\qquad
a_{j^\star} = \frac{e^{\beta}}{e^{\beta}+n-1} =: p(\beta). \label{eq:attn}
$$
Here, $j^\star=i+1$ denotes the unique position whose previous token equals the query token,
$n$ is the number of attended positions and $p(\beta)$ is the attention mass on $j^\star$.
Intuitively, the shift turns "find the earlier copy of $q$" into "look one step to its right".
""", "formula", label="eq:attn"),
    md(r"""
Under the setup of \cref{sec:setup}, the head of \cref{def:head} puts attention mass $p(\beta)$
of \eqref{eq:attn} on the position $j^\star$, every other token receives total output weight at
most $1-p(\beta)$, and the head predicts the induction target, $\hat y = y^\star$, whenever
$$\beta > \log(n-1).$$
""", "theorem", label="thm:concentration", title="Concentration"),
    md(r"""
The head does not need to be trained to be "sure": its certainty is set by one number, the ratio
between the query scale and the logarithm of the context length. Longer contexts need a larger
scale, but only logarithmically larger — an induction head stays reliable over long prompts.
The threshold is a worst case: it is needed when every other position holds one repeated
distractor token, while contexts of distinct tokens are copied correctly at any positive scale.
""", "interpretation"),
    md(r"""
By orthonormality only $j^\star$ has a non-zero score, which gives \eqref{eq:attn}. The output
weight of the target token is at least $a_{j^\star}=p(\beta)$, and any other token $v$ collects
weight only from positions $j\neq j^\star$, whose total mass is $1-p(\beta)$. Hence
$\hat y=y^\star$ as soon as $p(\beta) > 1-p(\beta)$, i.e. $e^{\beta} > n-1$. The full
calculation is in \cref{app:proof}.
""", "proof", kind="sketch"),
    md(r"""
### The causal chain

The mechanism is a three-step causal chain: (i) the previous-token shift writes $x_{j-1}$ into
the key of position $j$; (ii) the query $e_q$ therefore matches the key at $j^\star=i+1$ and no
other; (iii) the softmax concentrates on $j^\star$ at rate $e^{-\beta}(n-1)$, and the value
there is the target $y^\star$. Removing step (i) should remove the effect while leaving the
softmax and the values untouched.
""", "mechanism", label="mech:chain"),
    code(r"""
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

rng = np.random.default_rng(0)
V, d, T, N = 64, 256, 33, 2000      # vocabulary, width, context length, sequences
n = T - 1                            # attended positions
E = rng.standard_normal((V, d)) / np.sqrt(d)   # random, nearly orthonormal embeddings
BETAS = np.linspace(0.0, 8.0, 17)


def sample(rng, N, repeated=False):
    # Contexts whose last token q occurred once before, at position i; the target follows it.
    # repeated=False: all other tokens distinct; repeated=True: all other positions hold one
    # distractor token (the worst case of the theorem).
    i = rng.integers(0, T - 2, size=N)
    if repeated:
        q, y, dis = np.stack([rng.choice(V, size=3, replace=False) for _ in range(N)]).T
        seqs = np.repeat(dis[:, None], T, axis=1)
        seqs[np.arange(N), i + 1] = y
    else:
        seqs = np.stack([rng.choice(V, size=T, replace=False) for _ in range(N)])
        q = seqs[np.arange(N), i]
    seqs[np.arange(N), i] = q
    seqs[:, -1] = q
    return seqs, i


def head(seqs, beta, shift=True):
    # Attention of the query e_q over positions 1..T-1; returns weights and predictions.
    keys = E[seqs[:, :-1]] if shift else E[seqs[:, 1:]]
    values = E[seqs[:, 1:]]
    q = E[seqs[:, -1]]
    s = beta * np.einsum("nd,njd->nj", q, keys)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    o = np.einsum("nj,njd->nd", a, values)
    return a, (o @ E.T).argmax(axis=1)


seqs, first = sample(rng, N)
target = seqs[np.arange(N), first + 1]
hard, hard_first = sample(rng, N, repeated=True)
hard_target = hard[np.arange(N), hard_first + 1]
"""),
    code(r"""
p_theory = np.exp(BETAS) / (np.exp(BETAS) + n - 1)
p_meas, acc, acc_hard = [], [], []
for beta in BETAS:
    a, pred = head(seqs, beta)
    p_meas.append(a[np.arange(N), first].mean())   # position j* = i+1 is column i
    acc.append((pred == target).mean())
    acc_hard.append((head(hard, beta)[1] == hard_target).mean())

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(8, 3))
ax1.plot(BETAS, p_theory, label=r"closed form $p(\beta)$")
ax1.plot(BETAS, p_meas, "o", ms=4, label="measured")
ax1.set_xlabel(r"query scale $\beta$"); ax1.set_ylabel("attention on $j^*$"); ax1.legend()
ax2.plot(BETAS, acc, "o-", ms=4, label="distinct tokens")
ax2.plot(BETAS, acc_hard, "s-", ms=4, label="repeated distractor")
ax2.axvline(np.log(n - 1), color="gray", ls="--", label=r"$\log(n-1)$")
ax2.set_xlabel(r"query scale $\beta$"); ax2.set_ylabel("copy accuracy"); ax2.legend()
fig.tight_layout()
plt.show()
rows = [f"| {b:.1f} | {pt:.3f} | {pm:.3f} | {ac:.3f} | {ah:.3f} |"
        for b, pt, pm, ac, ah in zip(BETAS[::2], p_theory[::2], p_meas[::2], acc[::2],
                                     acc_hard[::2])]
display(Markdown("| $\\beta$ | $p(\\beta)$ | measured | accuracy (distinct) | "
                 "accuracy (repeated) |\n|---:|---:|---:|---:|---:|\n" + "\n".join(rows)))
""", "experiment", label="fig:concentration", kind="controlled",
         validates=["thm:concentration", "eq:attn"],
         caption=r"Validates \cref{thm:concentration}: the measured attention mass on the matching "
                 r"position follows the closed form $p(\beta)$ of \eqref{eq:attn} (left), and "
                 r"on worst-case contexts the copy becomes correct once $\beta$ passes "
                 r"$\log(n-1)$ (dashed, right)."),
    md(r"""
With random (only nearly orthonormal) embeddings the measured attention mass stays on the curve
$p(\beta)$ over the whole range of scales (within $0.02$, slightly below it because the random
embeddings are not exactly orthogonal). On contexts with one repeated distractor the copy
accuracy jumps from $0.12$ at $\beta=3$ to $0.93$ at $\beta=4$, around the predicted threshold
$\log(n-1)\approx 3.43$; contexts of distinct tokens are already copied correctly at
$\beta=2$, as the theorem's worst-case reading predicts.
""", "result"),
    code(r"""
acc_ablated = [(head(seqs, beta, shift=False)[1] == target).mean() for beta in BETAS]
copies_query = (head(seqs, 8.0, shift=False)[1] == seqs[:, -1]).mean()

fig, ax = plt.subplots(figsize=(4.5, 3))
ax.plot(BETAS, acc, "o-", ms=4, label="intact head")
ax.plot(BETAS, acc_ablated, "s-", ms=4, label="previous-token shift removed")
ax.set_xlabel(r"query scale $\beta$"); ax.set_ylabel("copy accuracy"); ax.legend()
fig.tight_layout()
plt.show()
print(f"ablated head at beta=8 copies the query token itself in {copies_query:.1%} of contexts")
""", "experiment", label="fig:intervention", kind="intervention",
         validates=["mech:chain", "thm:concentration"],
         caption=r"Validates the causal chain of \cref{mech:chain} behind \cref{thm:concentration} "
                 r"(intervention): removing only the "
                 r"previous-token shift of the keys, with the same queries, values and softmax, "
                 r"makes the induction copy vanish at every scale."),
    md(r"""
Without the shift the query matches the *earlier copy of itself*, so the head returns the query
token instead of its successor: accuracy stays at zero for every scale while everything but the
keys is unchanged. The shift is therefore necessary for the effect, as the causal chain claims.
""", "result"),
    md(r"""
For attention in real LLMs this says that an induction head's reliability is a matter of scale
versus $\log$ context length. A head whose query norm grows during training crosses the
threshold abruptly, which is one simple account of the sudden appearance of induction heads.
""", "implication"),
    md(r"""
Our analysis assumes orthonormal embeddings, a single earlier occurrence of the query token and
a perfect previous-token head; real models have superposed features, repeated tokens and noisy
previous-token heads. The experiment uses random rather than trained weights, so it tests the
mechanism, not how training finds it.
""", "limitations"),
    md(r"""
# Proof of the concentration theorem
\label{app:proof}

With orthonormal keys, $s_j=\beta$ for $j=j^\star$ and $s_j=0$ for the other $n-1$ positions, so
$$a_{j^\star}=\frac{e^{\beta}}{e^{\beta}+(n-1)}, \qquad a_j = \frac{1}{e^{\beta}+(n-1)} \quad (j\neq j^\star).$$
The logit of token $v$ is $\langle o, e_v\rangle = \sum_j a_j \mathbf{1}[x_j=v]$. The target
collects at least $a_{j^\star}$; any other token at most $\sum_{j\neq j^\star}a_j = 1-p(\beta)$.
The argmax is the target when $p(\beta) > 1/2$, i.e. $e^{\beta} > n-1$.
""", "appendix", label="app:proof"),
]


def build() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = CELLS
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["mechnb"] = {
        "title": "Induction by Concentration: A Closed-Form Account of a Previous-Token-Keyed "
                 "Attention Head",
        "authors": ["A. Researcher", "B. Theorist"],
        "lang": "en",
        "paper_type": "dynamics",
        "bibliography": "example_paper.bib",
    }
    return nb


if __name__ == "__main__":
    notebook = build()
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(HERE)}}).execute()
    nbformat.validate(notebook)
    nbformat.write(notebook, OUT)
    print(f"wrote {OUT}")
