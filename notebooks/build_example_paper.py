"""Build and execute ``example_paper.ipynb`` and its Chinese version ``example_paper_zh.ipynb``.

Run with the project's venv: ``.venv/bin/python notebooks/build_example_paper.py``. The notebook
is written with nbformat and executed with nbclient, so its outputs (figures, tables) are real.
"""

from __future__ import annotations

import nbformat
from nbbuild import HERE, code, execute_and_write, md, notebook, output_dir

OUT = HERE / "example_paper.ipynb"


LABELS = {
    "en": {"margin": r"margin $\beta(2\pi-1)$", "reach": r"reach $\beta\pi$",
           "step": "training step", "distinct": "distinct tokens",
           "repeated": "repeated distractor", "measured": r"attention on $j^\star$",
           "closed": r"closed form $p(\beta,\pi)$", "accuracy": "copy accuracy",
           "set_pi": r"previous-token weight $\pi$ (set)",
           "set_beta": r"query scale $\beta$ (set)",
           "settings": ["Quantity", "Symbol", "Value"]},
    "zh": {"margin": r"裕度 $\beta(2\pi-1)$", "reach": r"匹配分数 $\beta\pi$",
           "step": "训练步数", "distinct": "词元互不相同",
           "repeated": "重复干扰词元", "measured": r"$j^\star$ 上的注意力",
           "closed": r"闭式 $p(\beta,\pi)$", "accuracy": "复制准确率",
           "set_pi": r"前一词元权重 $\pi$（设定）",
           "set_beta": r"查询尺度 $\beta$（设定）",
           "settings": ["量", "符号", "取值"]},
}
"""Figure and table text in the paper's language (the code is the same in both notebooks)."""

SETTING_NAMES = {
    "en": ["random seed", "vocabulary size", "embedding width", "context length",
           "attended positions", "batch size", "training steps", "learning rate (plain SGD)",
           "initial gate logit, query scale, output scale", "held-out contexts per kind",
           "evaluation interval (steps)"],
    "zh": ["随机种子", "词表大小", "嵌入维度", "上下文长度", "被关注的位置数", "批大小", "训练步数",
           "学习率（普通 SGD）", "门控 logit、查询尺度、输出尺度的初值", "每类留出上下文数",
           "评估间隔（步）"],
}

SETUP_CODE = r'''
%load_ext mechnb
%mech figures --lang FIGLANG
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Latex, display

L = LABELS  # figure and table text in the paper's language

# Settings (also printed in the paper's settings table)
SEED, V, d, T = 0, 64, 256, 33       # seed, vocabulary, embedding width, context length
n = T - 1                             # attended positions j = 1..T-1
BATCH, STEPS, LR, EVERY = 128, 1500, 0.2, 5
ALPHA0, BETA0, GAMMA0 = 0.0, 0.05, 1.0   # initial gate logit, query scale, output scale
N_TEST = 1000                         # held-out contexts of each kind

rng = np.random.default_rng(SEED)
E = rng.standard_normal((V, d)) / np.sqrt(d)   # frozen random embeddings (nearly orthonormal)
G = E @ E.T                                    # all inner products <e_u, e_v>


def sample(rng, N, repeated=False):
    # Contexts whose last token q occurred once before, at position 1 <= i <= T-3; the target
    # y* = x_{i+1} follows it. repeated=False: all other tokens distinct; repeated=True: every
    # other position holds one distractor token (the worst case of the theorem).
    i = rng.integers(1, T - 2, size=N)
    if repeated:
        q, y, dis = np.stack([rng.choice(V, size=3, replace=False) for _ in range(N)]).T
        seqs = np.repeat(dis[:, None], T, axis=1)
        seqs[np.arange(N), i + 1] = y
    else:
        seqs = np.stack([rng.choice(V, size=T, replace=False) for _ in range(N)])
        q = seqs[np.arange(N), i]
    seqs[np.arange(N), i] = q
    seqs[:, -1] = q
    return seqs, i, seqs[np.arange(N), i + 1]


def forward(seqs, pi, beta, gamma):
    # Layer 1 mixes each position with its predecessor (weight pi); layer 2 attends from the
    # last token with query scale beta and copies the attended tokens (output scale gamma).
    Gq = G[seqs[:, -1][:, None], seqs]                  # <e_q, e_{x_k}>
    s = beta * (pi * Gq[:, :-1] + (1 - pi) * Gq[:, 1:])  # scores of positions 1..T-1
    a = np.exp(s - s.max(1, keepdims=True))
    a /= a.sum(1, keepdims=True)
    Gv = G[seqs[:, 1:]]
    logits = gamma * np.einsum("nj,njv->nv", a, Gv)
    return Gq, s, a, Gv, logits


def gradients(seqs, y, alpha, beta, gamma):
    # Cross-entropy of the next token and its exact gradient in (alpha, beta, gamma).
    N, pi = len(y), 1 / (1 + np.exp(-alpha))
    Gq, s, a, Gv, logits = forward(seqs, pi, beta, gamma)
    P = np.exp(logits - logits.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    loss = -np.log(P[np.arange(N), y]).mean()
    dl = P
    dl[np.arange(N), y] -= 1
    dl /= N
    da = gamma * np.einsum("nv,njv->nj", dl, Gv)
    ds = a * (da - (a * da).sum(1, keepdims=True))
    dpi = beta * (ds * (Gq[:, :-1] - Gq[:, 1:])).sum()
    return loss, dpi * pi * (1 - pi), (ds * s).sum() / beta, (dl * logits).sum() / gamma


def evaluate(seqs, i, y, pi, beta, gamma):
    # Copy accuracy and mean attention on the matching position j* = i+1 (column i).
    _, _, a, _, logits = forward(seqs, pi, beta, gamma)
    return (logits.argmax(1) == y).mean(), a[np.arange(len(y)), i].mean()


test = sample(np.random.default_rng(SEED + 1), N_TEST)
hard = sample(np.random.default_rng(SEED + 2), N_TEST, repeated=True)

alpha, beta, gamma = ALPHA0, BETA0, GAMMA0
history = []   # step, pi, beta, loss, accuracy (distinct), accuracy (worst case), mass on j*
for step in range(STEPS + 1):
    seqs, i, y = sample(rng, BATCH)
    loss, d_alpha, d_beta, d_gamma = gradients(seqs, y, alpha, beta, gamma)
    if step % EVERY == 0:
        pi = 1 / (1 + np.exp(-alpha))
        acc, mass = evaluate(*test, pi, beta, gamma)
        history.append((step, pi, beta, loss, acc, evaluate(*hard, pi, beta, gamma)[0], mass))
    alpha, beta, gamma = alpha - LR * d_alpha, beta - LR * d_beta, gamma - LR * d_gamma
H = np.array(history)
pi_end, beta_end, gamma_end = 1 / (1 + np.exp(-alpha)), beta, gamma
'''

SETTINGS_CODE = r'''
NAMES = SETTING_NAMES_HERE
values = [(r"--", SEED), ("$V$", V), ("$d$", d), ("$T$", T), ("$n=T-1$", n), ("$B$", BATCH),
          (r"--", STEPS), (r"$\eta$", LR),
          (r"$\alpha_0,\beta_0,\gamma_0$", f"{ALPHA0:g}, {BETA0:g}, {GAMMA0:g}"),
          (r"--", N_TEST), (r"--", EVERY)]
rows = [f"{name} & {sym} & {val} \\\\" for name, (sym, val) in zip(NAMES, values)]
display(Latex("\\begin{tabular}{llr}\n\\hline\n" + " & ".join(L["settings"]) + " \\\\\n\\hline\n"
              + "\n".join(rows) + "\n\\hline\n\\end{tabular}"))
'''

FIGURE_CODE = r'''
steps, pis, betas = H[:, 0], H[:, 1], H[:, 2]
margin, reach = betas * (2 * pis - 1), betas * pis
p_closed = np.exp(reach) / (np.exp(reach) + 2 * np.exp(betas * (1 - pis)) + n - 3)
first = lambda mask: int(steps[np.argmax(mask)])   # first logged step where mask holds
predicted = (first(margin > np.log(2)), first((margin > np.log(2)) & (reach > np.log(n - 3))))
observed = (first(H[:, 4] >= 0.5), first(H[:, 5] >= 0.5))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.5, 2.6))
ax1.plot(steps, margin, label=L["margin"])
ax1.plot(steps, reach, label=L["reach"])
ax1.axhline(np.log(2), color="gray", ls=":", lw=0.8)
ax1.axhline(np.log(n - 3), color="gray", ls="--", lw=0.8)
ax1.set_xlim(0, 500); ax1.set_xlabel(L["step"]); ax1.legend()
ax2.plot(steps, H[:, 4], label=L["distinct"])
ax2.plot(steps, H[:, 5], label=L["repeated"])
ax2.plot(steps[::4], H[::4, 6], "o", ms=2.5, label=L["measured"])
ax2.plot(steps, p_closed, "k-", lw=0.8, label=L["closed"])
for s in predicted:
    ax2.axvline(s, color="gray", ls="--", lw=0.8)
ax2.set_xlim(0, 500); ax2.set_xlabel(L["step"]); ax2.legend(loc="center right")
fig.tight_layout()
plt.show()
print(f"copy switches on (step): distinct predicted {predicted[0]}, observed {observed[0]}; "
      f"worst case predicted {predicted[1]}, observed {observed[1]}")
print(f"max |measured - closed form| = {np.abs(H[:, 6] - p_closed).max():.3f}; "
      f"end of training: pi = {pi_end:.3f}, beta = {beta_end:.2f}, loss = {H[-1, 3]:.4f}")
'''

INTERVENTION_CODE = r'''
PI_GRID, BETA_GRID = np.linspace(0, 1, 41), np.linspace(0, 8, 41)
by_pi = np.array([[evaluate(*c, p, beta_end, gamma_end)[0] for c in (test, hard)]
                  for p in PI_GRID])
by_beta = np.array([[evaluate(*c, pi_end, b, gamma_end)[0] for c in (test, hard)]
                    for b in BETA_GRID])
pi_star = 0.5 + np.log(2) / (2 * beta_end)                         # margin = log 2
pi_star_hard = max(pi_star, np.log(n - 3) / beta_end)              # and reach = log(n-3)
beta_star = np.log(2) / (2 * pi_end - 1)
beta_star_hard = max(beta_star, np.log(n - 3) / pi_end)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.5, 2.6))
for ax, grid, acc, marks, xlabel in ((ax1, PI_GRID, by_pi, (pi_star, pi_star_hard), L["set_pi"]),
                                     (ax2, BETA_GRID, by_beta, (beta_star, beta_star_hard),
                                      L["set_beta"])):
    ax.plot(grid, acc[:, 0], "o-", ms=3, label=L["distinct"])
    ax.plot(grid, acc[:, 1], "s-", ms=3, label=L["repeated"])
    for m in marks:
        ax.axvline(m, color="gray", ls="--", lw=0.8)
    ax.set_xlabel(xlabel); ax.set_ylabel(L["accuracy"])
ax1.legend()
fig.tight_layout()
plt.show()
flip = lambda grid, acc: grid[np.argmax(acc >= 0.5)]
print(f"pi set on the trained model: copy from pi = {flip(PI_GRID, by_pi[:, 0]):.3f} "
      f"(predicted {pi_star:.3f}), worst case from {flip(PI_GRID, by_pi[:, 1]):.3f} "
      f"(predicted {pi_star_hard:.3f})")
print(f"beta set on the trained model: copy from beta = {flip(BETA_GRID, by_beta[:, 0]):.1f} "
      f"(predicted {beta_star:.2f}), worst case from {flip(BETA_GRID, by_beta[:, 1]):.1f} "
      f"(predicted {beta_star_hard:.2f})")
'''


CELLS = [
    md(r"""
Induction heads let a transformer continue a pattern from its context, and they form abruptly
during training; it is not known which quantities of the trained weights decide when such a head
starts to copy. We study a two-layer attention-only model whose first layer mixes each token with
its predecessor, with weight $\pi$, and whose second layer attends from the last token with query
scale $\beta$. For orthonormal embeddings we show that the attention on the matching position has
the closed form $p(\beta,\pi)=e^{\beta\pi}/(e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3)$ and that the
model copies the right token exactly when the margin $\beta(2\pi-1)$ exceeds $\log 2$; contexts
filled with one repeated distractor also need $\beta\pi>\log(n-3)$. We train the model by gradient
descent with frozen random embeddings. After a plateau, the copy switches on at the step at which
the trained weights cross the predicted boundary, both on ordinary contexts and on worst-case
contexts that the model never saw in training, and the closed form tracks the measured attention
within $0.02$ throughout. Setting the learned previous-token weight or the query scale of the
trained model below its predicted threshold removes the copy. These results suggest that, in this
model, the abrupt formation of an induction head can be read off two scalars of the trained
weights.
""", "abstract"),
    md(r"""
# Introduction

Induction heads let a transformer continue a pattern it has seen earlier in its context: after
`A B … A` they predict `B`. They appear abruptly during training and are tied to in-context
learning in large models [@olsson2022context], so knowing *when* and *why* they start to work is a
step towards knowing what an LLM can learn from its prompt.

By an *induction head* we mean an attention head that, at a token it has seen before, attends to
the position right after that earlier occurrence and copies the token found there — for example,
after reading `Harry Potter … Harry` it puts most of its attention on the first `Potter`. The
definition is functional: it says what the head does, not which weights implement it.
""", "context", label="sec:intro"),
    md(r"""
The circuit view describes an induction head as two parts: a previous-token head that writes the
preceding token into each position, and a head that matches the current token against those
written keys [@olsson2022context]. Attention itself goes back to \citet{vaswani2017attention}.
Why such heads form abruptly has been studied in minimal models of in-context classification
[@reddy2024mechanistic; @chan2022data], through the associative memories a transformer stores in
its weights [@bietti2023birth], for in-context Markov chains [@edelman2024evolution], for causal
structure learned by gradient descent [@nichani2024causal] and by following the subcircuits of a
forming head [@singh2024needs]. Progress measures that track a mechanism through training
[@nanda2023progress] and causal interventions that isolate one component
[@meng2022locating; @wang2023interpretability] are the evidence such accounts rest on.
""", "prior"),
    md(r"""
What is missing is a *closed-form boundary in the trained weights*: an account that says, from
the current values of a few learned quantities, how much attention lands on the right position
and whether the copy is correct — so that the moment a training run crosses that boundary can be
predicted rather than only observed.
""", "gap"),
    md(r"""
We look at the head **through the lens of softmax concentration**: with (near-)orthogonal token
embeddings every attention score takes one of three values, set by the previous-token weight and
the query scale, and the softmax of such a score vector can be written down exactly at every
point of training.
""", "lens"),
    md(r"""
Which values of the previous-token weight and the query scale make a two-layer attention model
copy the token that followed the earlier occurrence of the current token, and does gradient
descent start to copy exactly when its weights reach those values?
""", "question", label="q:main"),
    md(r"""
- A closed form for the attention on the matching position (\cref{eq:attn}) and an exact
  boundary for a correct copy in the previous-token weight and the query scale
  (\cref{thm:concentration}).
- A training run in which the copy switches on at the step predicted from the trained weights,
  also on worst-case contexts absent from training (\cref{fig:dynamics}).
- An intervention on the trained model that moves one learned quantity at a time across its
  predicted threshold (\cref{fig:intervention}).
""", "contributions"),
    md(r"""
# Setup

Let the vocabulary have $V$ tokens with embeddings $e_1,\dots,e_V\in\mathbb{R}^d$. In the theory
they are orthonormal, $\langle e_u, e_v\rangle = \mathbf{1}[u=v]$; in the experiments they are
random Gaussian vectors with variance $1/d$, which are only nearly orthonormal. A context is a
sequence $x_0,\dots,x_{T-1}$ whose last token $q = x_{T-1}$ occurred exactly once before, at a
position $1\le i\le T-3$; the *induction target* is $y^\star = x_{i+1}$ and the *matching
position* is $j^\star=i+1$. The second layer attends over the $n=T-1$ positions $j=1,\dots,T-1$.
""", "setup", label="sec:setup"),
    md(r"""
The *two-layer induction model* with previous-token weight $\pi\in[0,1]$, query scale $\beta>0$
and output scale $\gamma>0$ forms the key $k_j = \pi e_{x_{j-1}} + (1-\pi) e_{x_j}$ at every
position $j\ge 1$ (the first layer), scores $s_j = \beta\langle e_q, k_j\rangle$, attends with
$a = \operatorname{softmax}(s)$ and predicts $\hat y = \arg\max_v \gamma\,\langle o, e_v\rangle$
with $o=\sum_j a_j e_{x_j}$ (the second layer). In training, $\pi=\sigma(\alpha)$ for a gate logit
$\alpha$, and $\alpha$, $\beta$, $\gamma$ are learned.
""", "definition", label="def:model"),
    md(r"""
# Theory

To see where the second layer looks, we write its scores and attention in closed form. With
orthonormal embeddings the key of $j^\star$ contains $e_q$ with weight $\pi$, the keys of the two
occurrences of $q$ (positions $i$ and $T-1$) contain it with weight $1-\pi$, and no other key
contains it, so
$$
s_{j^\star} = \beta\pi,\qquad s_i = s_{T-1} = \beta(1-\pi),\qquad
a_{j^\star} = \frac{e^{\beta\pi}}{e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3} =: p(\beta,\pi).
\label{eq:attn}
$$
Here, $n-3$ counts the positions whose score is zero and $p(\beta,\pi)$ is the attention on
$j^\star$. Intuitively, the first layer decides *which* position matches — its successor or the
query's own occurrences — and the query scale decides *how sharply* the second layer commits.
""", "formula", label="eq:attn"),
    md(r"""
Under the setup of \cref{sec:setup}, the model of \cref{def:model} puts attention
$p(\beta,\pi)$ of \eqref{eq:attn} on $j^\star$. On contexts whose other tokens are distinct it
predicts the target, $\hat y = y^\star$, if $\beta(2\pi-1) > \log 2$, and the query token if
$\beta(2\pi-1) < \log 2$. On contexts whose other positions all hold one distractor token it
predicts the target if and only if, in addition, $\beta\pi > \log(n-3)$.
""", "theorem", label="thm:concentration", title="Copy boundary"),
    md(r"""
Two numbers of the trained weights decide whether the model copies: the *margin*
$\beta(2\pi-1)$, by which the matching position outscores the query's own two occurrences, and
the *reach* $\beta\pi$, by which it outscores a crowd of $n-3$ identical distractors. The first
threshold does not depend on the context length; the second grows only with its logarithm. The
boundary also explains the plateau at the start of training: at $\pi=\tfrac12$ the matching
position and the query's occurrences score alike, so a larger $\beta$ alone cannot separate
them, while the gradient of the loss with respect to the gate logit $\alpha$ carries a factor
$\beta$ and is small as long as $\beta$ is.
""", "interpretation"),
    md(r"""
The scores follow from orthonormality, which gives \eqref{eq:attn}. With orthonormal values the
logit of token $v$ is $\gamma$ times the attention on the positions holding $v$. On distinct
contexts the target collects $e^{\beta\pi}$, the query token $2e^{\beta(1-\pi)}$ and every other
token $1$ (in units of the normalizer), so the target wins exactly when
$e^{\beta\pi} > 2e^{\beta(1-\pi)}$, which also implies $e^{\beta\pi}>1$. With one repeated
distractor that token collects $n-3$, which adds the condition $e^{\beta\pi}>n-3$. The full
calculation is in \cref{app:proof}.
""", "proof", kind="sketch"),
    md(r"""
# Mechanism

The mechanism is a three-step causal chain: (i) the first layer writes the previous token into
each key with weight $\pi$; (ii) the query $e_q$ therefore scores the matching position $\beta\pi$
and the query's own occurrences $\beta(1-\pi)$; (iii) the softmax commits to $j^\star$ once the
margin and the reach pass their thresholds, and the value there is the target. The chain predicts
that moving *either* learned quantity of a trained model below its threshold removes the copy,
with nothing else changed.
""", "mechanism", label="mech:chain"),
    md(r"""
# Experiments
\label{sec:experiments}

We train the model of \cref{def:model} on induction contexts with distinct tokens by plain
stochastic gradient descent on the cross-entropy of the target, with the exact gradient in
$(\alpha,\beta,\gamma)$ and frozen random embeddings, and evaluate it every few steps on held-out
contexts of both kinds; the worst-case contexts never occur in training. \Cref{tab:settings} lists
every setting. At each evaluation we compare the measured attention on $j^\star$ with
$p(\beta,\pi)$ computed from the current weights.
"""),
    code(SETUP_CODE.replace("LABELS", repr(LABELS["en"]), 1).replace("FIGLANG", "en")),
    code(SETTINGS_CODE.replace("SETTING_NAMES_HERE", repr(SETTING_NAMES["en"])), "figure",
         label="tab:settings",
         caption=r"Settings of the training run and of the tests of \cref{sec:experiments}, "
                 r"as the code uses them; one seed, one thread."),
    code(FIGURE_CODE, "experiment", label="fig:dynamics", kind="controlled",
         validates=["thm:concentration", "eq:attn"],
         caption=r"Training dynamics against \cref{thm:concentration} (steps 0--500 of the run): "
                 r"the margin and the reach of the trained weights with their thresholds "
                 r"$\log 2$ (dotted) and $\log(n-3)$ (dashed, left); copy accuracy on held-out "
                 r"contexts and the attention on $j^\star$, measured (dots) and from "
                 r"\eqref{eq:attn} (line), with the predicted switch steps (dashed, right)."),
    md(r"""
Training sits on a plateau for about 200 steps, with $\pi$ near $\tfrac12$ and the loss near
$\log V$, and then leaves it within a few dozen steps (\cref{fig:dynamics}). The copy on ordinary
contexts switches on at step 250, the first evaluated step at which the margin of the trained
weights exceeds $\log 2$; on worst-case contexts, which the model never saw, it switches on at
step 280, the first step at which the reach also exceeds $\log(n-3)\approx 3.37$ — both exactly as
predicted at the resolution of the evaluation (every 5 steps). Over the whole run the measured
attention on $j^\star$ stays within $0.017$ of the closed form, slightly below it because the
random embeddings are not exactly orthonormal. At the end of training $\pi=0.968$ and
$\beta=7.69$.
""", "result"),
    code(INTERVENTION_CODE, "experiment", label="fig:intervention", kind="intervention",
         validates=["mech:chain", "thm:concentration"],
         caption=r"Intervention on the trained model (\cref{mech:chain}): the previous-token "
                 r"weight (left) or the query scale (right) is set to each value on the axis, "
                 r"everything else kept as trained; dashed lines are the thresholds that "
                 r"\cref{thm:concentration} predicts from the other, trained quantity."),
    md(r"""
Each learned quantity matters only through its threshold (\cref{fig:intervention}). Setting
$\pi$ of the trained model lower, with its trained $\beta$ and $\gamma$, leaves the copy intact
down to the predicted $\pi=0.545$ and removes it below; the first grid value with a majority of
correct copies is $0.550$. Setting $\beta$ with the trained $\pi$ separates the two thresholds:
ordinary contexts are copied from $\beta=0.8$ on (predicted $0.74$), worst-case contexts only
from $\beta=3.6$ on (predicted $3.48$). The two quantities were learned, not set by hand, and the
thresholds were computed before the sweep from the other, trained quantity, so the intervention
could have failed.
""", "result"),
    md(r"""
# Discussion

For induction heads in real LLMs this suggests a way to predict, rather than only observe, when a
head starts to copy: estimate the weight its keys put on the previous token and the scale of its
queries, and watch the margin and the reach cross $\log 2$ and $\log(n-3)$. The logarithmic
dependence on the context length suggests why such heads stay reliable over long prompts.
""", "implication"),
    md(r"""
Our analysis assumes orthonormal embeddings, a single earlier occurrence of the query token and a
first layer that chooses only between the current and the previous token; real models have
superposed features, repeated tokens and previous-token heads spread over several positions. The
trained model has three learned scalars and frozen embeddings, so the experiment tests when
training crosses the boundary, not how a full transformer learns its embeddings. One seed is
reported; the switch steps move with the seed, the match between predicted and observed steps is
what we claim.
""", "limitations"),
    md(r"""
# Conclusion

In a two-layer attention model whose first layer mixes each token with its predecessor, the
attention on the matching position has the closed form $p(\beta,\pi)$, and the copy is correct
exactly when the margin $\beta(2\pi-1)$ exceeds $\log 2$ and, against a repeated distractor, the
reach $\beta\pi$ exceeds $\log(n-3)$. Gradient descent starts to copy at the step at which its
weights cross this boundary, also on contexts it never saw, and moving either learned quantity
of the trained model below its threshold removes the copy.
""", "conclusion"),
    md(r"""
# Proof of the copy boundary
\label{app:proof}

Let $Z=e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3$. Since $q$ occurs only at $i$ and $T-1$ and
$1\le i\le T-3$, the key of $j^\star=i+1$ is $\pi e_q+(1-\pi)e_{y^\star}$ with $y^\star\neq q$,
the keys of $i$ and $T-1$ are $\pi e_{x_{i-1}}+(1-\pi)e_q$ and $\pi e_{x_{T-2}}+(1-\pi)e_q$ with
$x_{i-1},x_{T-2}\neq q$, and every other key has no component along $e_q$. Hence
$$a_{j^\star}=\frac{e^{\beta\pi}}{Z},\qquad a_i=a_{T-1}=\frac{e^{\beta(1-\pi)}}{Z},\qquad
a_j=\frac1Z\ \text{otherwise}.$$
The logit of token $v$ is $\gamma\langle o,e_v\rangle=\gamma\sum_j a_j\mathbf{1}[x_j=v]$, and
$\gamma>0$ does not change the argmax. On distinct contexts the target $y^\star$ occurs only at
$j^\star$, the query token at $i$ and $T-1$, and every other token at most once, so the target
has the largest logit when $e^{\beta\pi}>2e^{\beta(1-\pi)}$, i.e. $\beta(2\pi-1)>\log 2$ (which
gives $e^{\beta\pi}>1$), and the query token has it when $\beta(2\pi-1)<\log 2$ and
$2e^{\beta(1-\pi)}>1$, which holds since $\beta(1-\pi)\ge 0$. On contexts whose other positions
hold one distractor $r$, that token occurs at the $n-3$ remaining positions and collects
$(n-3)/Z$, so the target wins if and only if $e^{\beta\pi}>\max\{2e^{\beta(1-\pi)},\,n-3\}$.
""", "appendix", label="app:proof"),
]



CELLS_ZH = [
    md(r"""
归纳头让 Transformer 能够延续上下文中的模式，并且在训练中突然形成；但训练后权重中的哪些量决定了这样的头
何时开始复制，目前尚不清楚。我们研究一个两层纯注意力模型：第一层以权重 $\pi$ 把每个词元与其前一个词元
混合，第二层以查询尺度 $\beta$ 从末尾词元发出注意力。对单位正交的嵌入，我们证明匹配位置上的注意力有闭式
$p(\beta,\pi)=e^{\beta\pi}/(e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3)$，且模型恰在裕度 $\beta(2\pi-1)$ 超过
$\log 2$ 时复制正确的词元；对由同一个干扰词元填满的上下文，还需要 $\beta\pi>\log(n-3)$。我们在冻结的随机
嵌入上用梯度下降训练该模型：经过一段平台期后，复制恰在训练权重越过预测边界的那一步开始，无论是普通上下文
还是训练中从未出现的最坏情形上下文；在整个训练过程中，闭式与实测注意力之差不超过 $0.02$。把训练后模型中
学到的前一词元权重或查询尺度设到预测阈值以下，复制随即消失。这些结果表明，在该模型中，归纳头的突然形成
可以从训练权重的两个标量读出。
""", "abstract"),
    md(r"""
# 引言

归纳头让 Transformer 延续上下文中出现过的模式：看到 `A B … A` 之后预测 `B`。它们在训练中突然出现，
并与大模型的上下文学习密切相关 [@olsson2022context]；弄清它们*何时*、*为何*开始起作用，是理解大语言
模型能从提示中学到什么的一步。

本文所说的*归纳头*，是指这样一个注意力头：在遇到此前出现过的词元时，它关注该词元上一次出现位置的下一个
位置，并复制那里的词元——例如读到 `哈利 波特 … 哈利` 时，它把大部分注意力放在第一个 `波特` 上。这个定义
是功能性的：它说明头做了什么，而不规定由哪些权重来实现。
""", "context", label="sec:intro"),
    md(r"""
电路视角把归纳头拆成两部分：一个把前一词元写入每个位置的前词元头，以及一个用当前词元去匹配这些键的头
[@olsson2022context]。注意力机制本身源自 \citet{vaswani2017attention}。关于此类头为何突然形成，已有工作
在上下文分类的极简模型中 [@reddy2024mechanistic; @chan2022data]、从 Transformer 权重中存储的联想记忆
[@bietti2023birth]、在上下文马尔可夫链上 [@edelman2024evolution]、针对梯度下降习得的因果结构
[@nichani2024causal]，以及通过追踪形成中的头的子电路 [@singh2024needs] 进行了研究。在训练过程中追踪机制的
进展度量 [@nanda2023progress] 和隔离单个组件的因果干预 [@meng2022locating; @wang2023interpretability]
是这些解释所依赖的证据。
""", "prior"),
    md(r"""
缺少的是*以训练权重表达的闭式边界*：只凭少数几个学到的量的当前取值，就能说明有多少注意力落在正确位置、
复制是否正确——从而能够预测而不只是观察训练越过该边界的时刻。
""", "gap"),
    md(r"""
我们**从 softmax 集中的视角**考察这个头：在（近似）正交的词元嵌入下，每个注意力分数只取三个值之一，
由前一词元权重和查询尺度决定；这样的分数向量的 softmax 在训练的每一时刻都可以精确写出。
""", "lens"),
    md(r"""
前一词元权重和查询尺度取哪些值时，两层注意力模型会复制紧跟在当前词元上一次出现之后的那个词元？梯度下降
是否恰在其权重达到这些值时开始复制？
""", "question", label="q:main"),
    md(r"""
- 匹配位置注意力的闭式（\cref{eq:attn}），以及以前一词元权重和查询尺度表达的正确复制的精确边界
  （\cref{thm:concentration}）。
- 一次训练：复制恰在由训练权重预测的那一步开始，对训练中未出现的最坏情形上下文同样如此
  （\cref{fig:dynamics}）。
- 对训练后模型的干预：每次只把一个学到的量移过其预测阈值（\cref{fig:intervention}）。
""", "contributions"),
    md(r"""
# 设定

设词表有 $V$ 个词元，其嵌入为 $e_1,\dots,e_V\in\mathbb{R}^d$。理论部分假设它们单位正交，即
$\langle e_u, e_v\rangle = \mathbf{1}[u=v]$；实验中它们是方差为 $1/d$ 的随机高斯向量，只是近似正交。
上下文是序列 $x_0,\dots,x_{T-1}$，其末尾词元 $q = x_{T-1}$ 此前恰好出现过一次，位置 $1\le i\le T-3$；
*归纳目标*是 $y^\star = x_{i+1}$，*匹配位置*是 $j^\star=i+1$。第二层关注 $n=T-1$ 个位置 $j=1,\dots,T-1$。
""", "setup", label="sec:setup"),
    md(r"""
前一词元权重为 $\pi\in[0,1]$、查询尺度为 $\beta>0$、输出尺度为 $\gamma>0$ 的*两层归纳模型*在每个位置
$j\ge 1$ 构造键 $k_j = \pi e_{x_{j-1}} + (1-\pi) e_{x_j}$（第一层），计算分数
$s_j = \beta\langle e_q, k_j\rangle$，以 $a = \operatorname{softmax}(s)$ 分配注意力，并预测
$\hat y = \arg\max_v \gamma\,\langle o, e_v\rangle$，其中 $o=\sum_j a_j e_{x_j}$（第二层）。训练时
$\pi=\sigma(\alpha)$，$\alpha$ 为门控 logit，$\alpha$、$\beta$、$\gamma$ 均为可学习参数。
""", "definition", label="def:model"),
    md(r"""
# 理论

为了看清第二层关注何处，我们写出其分数与注意力的闭式。在单位正交嵌入下，$j^\star$ 的键以权重 $\pi$ 含有
$e_q$，$q$ 的两次出现（位置 $i$ 与 $T-1$）的键以权重 $1-\pi$ 含有它，其他键都不含它，因此
$$
s_{j^\star} = \beta\pi,\qquad s_i = s_{T-1} = \beta(1-\pi),\qquad
a_{j^\star} = \frac{e^{\beta\pi}}{e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3} =: p(\beta,\pi).
\label{eq:attn}
$$
其中，$n-3$ 是分数为零的位置数，$p(\beta,\pi)$ 是落在 $j^\star$ 上的注意力。直观地说，第一层决定*哪个*
位置与查询匹配——是后继位置还是查询词元自身的出现位置——而查询尺度决定第二层选择得*多坚决*。
""", "formula", label="eq:attn"),
    md(r"""
在 \cref{sec:setup} 的设定下，\cref{def:model} 中的模型在 $j^\star$ 上的注意力为 \eqref{eq:attn} 中的
$p(\beta,\pi)$。在其余词元互不相同的上下文中，若 $\beta(2\pi-1) > \log 2$，模型预测出目标，即
$\hat y = y^\star$；若 $\beta(2\pi-1) < \log 2$，则预测出查询词元。在其余位置都是同一个干扰词元的上下文中，
模型预测出目标当且仅当还满足 $\beta\pi > \log(n-3)$。
""", "theorem", label="thm:concentration", title="复制边界"),
    md(r"""
决定模型是否复制的是训练权重中的两个数：*裕度* $\beta(2\pi-1)$，即匹配位置的分数超出查询词元两次出现的
分数的部分；以及*匹配分数* $\beta\pi$，即匹配位置的分数超出 $n-3$ 个相同干扰词元的部分。第一个阈值与
上下文长度无关，第二个只随其对数增长。这一边界也解释了训练初期的“平台期”：当 $\pi=\tfrac12$ 时，匹配位置与
查询词元的出现位置分数相同，单靠增大 $\beta$ 无法把它们区分开；而损失对门控 logit $\alpha$ 的梯度含有因子
$\beta$，只要 $\beta$ 还小，这个梯度就小。
""", "interpretation"),
    md(r"""
分数由正交性直接得到，从而得到 \eqref{eq:attn}。在单位正交的值向量下，词元 $v$ 的 logit 等于 $\gamma$
乘以持有 $v$ 的位置上的注意力之和。在词元互不相同的上下文中（以归一化常数为单位），目标获得
$e^{\beta\pi}$，查询词元获得 $2e^{\beta(1-\pi)}$，其他每个词元获得 $1$，因此目标胜出当且仅当
$e^{\beta\pi} > 2e^{\beta(1-\pi)}$，这也蕴含 $e^{\beta\pi}>1$。在含同一个重复干扰词元的上下文中，该词元
获得 $n-3$，于是增加条件 $e^{\beta\pi}>n-3$。完整推导见 \cref{app:proof}。
""", "proof", kind="sketch"),
    md(r"""
# 机制

该机制是一条三步因果链：(i) 第一层以权重 $\pi$ 把前一词元写入每个键；(ii) 因而查询 $e_q$ 给匹配位置的
分数为 $\beta\pi$，给查询词元自身出现位置的分数为 $\beta(1-\pi)$；(iii) 当裕度与匹配分数越过各自的阈值时，
softmax 选定 $j^\star$，而该处的值正是目标。这条因果链预测：把训练后模型中*任一*学到的量移到其阈值以下，
其余一切不变，复制就会消失。
""", "mechanism", label="mech:chain"),
    md(r"""
# 实验
\label{sec:experiments}

我们在词元互不相同的归纳上下文上训练 \cref{def:model} 中的模型：以目标的交叉熵为损失，用普通随机梯度下降
及其关于 $(\alpha,\beta,\gamma)$ 的精确梯度，嵌入随机且冻结；每隔几步在两类留出上下文上评估，最坏情形的
上下文从不出现在训练中。\cref{tab:settings}列出了全部设置。每次评估时，我们把 $j^\star$ 上实测的注意力与
由当前权重计算的 $p(\beta,\pi)$ 进行比较。
"""),
    code(SETUP_CODE.replace("LABELS", repr(LABELS["zh"]), 1).replace("FIGLANG", "zh")),
    code(SETTINGS_CODE.replace("SETTING_NAMES_HERE", repr(SETTING_NAMES["zh"])), "figure",
         label="tab:settings",
         caption=r"\cref{sec:experiments}中训练与测试的设置，取自代码实际使用的值；单一随机种子，"
                 r"单线程。"),
    code(FIGURE_CODE, "experiment", label="fig:dynamics", kind="controlled",
         validates=["thm:concentration", "eq:attn"],
         caption=r"训练动力学与\cref{thm:concentration}的对照（训练的第 0--500 步）：左图为训练权重的裕度"
                 r"与匹配分数及其阈值 $\log 2$（点线）和 $\log(n-3)$（虚线）；右图为留出上下文上的复制"
                 r"准确率，以及 $j^\star$ 上的注意力的实测值（点）与 \eqref{eq:attn} 的闭式（线），"
                 r"虚线为预测的转折步。"),
    md(r"""
训练先在平台期停留约 200 步，此时 $\pi$ 接近 $\tfrac12$，损失接近 $\log V$；随后在几十步之内离开平台期
（\cref{fig:dynamics}）。普通上下文上的复制在第 250 步开始，这正是训练权重的裕度首次超过 $\log 2$ 的评估
步；模型从未见过的最坏情形上下文在第 280 步开始被正确复制，这正是匹配分数也首次超过
$\log(n-3)\approx 3.37$ 的那一步——在评估的分辨率（每 5 步）下两者都与预测完全一致。在整个训练过程中，
$j^\star$ 上实测的注意力与闭式之差不超过 $0.017$，且因随机嵌入并非严格正交而略低于闭式。训练结束时
$\pi=0.968$，$\beta=7.69$。
""", "result"),
    code(INTERVENTION_CODE, "experiment", label="fig:intervention", kind="intervention",
         validates=["mech:chain", "thm:concentration"],
         caption=r"对训练后模型的干预（\cref{mech:chain}）：把前一词元权重（左）或查询尺度（右）设为横轴上"
                 r"的各个值，其余一切保持训练所得；虚线是\cref{thm:concentration}根据另一个训练所得的量"
                 r"预测的阈值。"),
    md(r"""
每个学到的量只通过其阈值起作用（\cref{fig:intervention}）。在保持训练所得的 $\beta$ 与 $\gamma$ 的同时
降低训练后模型的 $\pi$，复制一直保持到预测的 $\pi=0.545$，低于它就消失；多数复制正确的第一个网格值是
$0.550$。在保持训练所得的 $\pi$ 的同时设定 $\beta$，则把两个阈值分开：普通上下文从 $\beta=0.8$ 起被正确
复制（预测为 $0.74$），最坏情形的上下文要到 $\beta=3.6$ 才被正确复制（预测为 $3.48$）。这两个量都是学到
的而非人为设定的，阈值也是在扫描之前由另一个训练所得的量算出的，因此这一干预本可能失败。
""", "result"),
    md(r"""
# 讨论

对真实大模型中的归纳头，这提示了一种预测（而不只是观察）头何时开始复制的方法：估计其键放在前一词元上的
权重与其查询的尺度，观察裕度与匹配分数何时越过 $\log 2$ 和 $\log(n-3)$。对上下文长度的对数依赖也提示了
此类头为何在长提示中依然可靠。
""", "implication"),
    md(r"""
我们的分析假设嵌入正交、查询词元此前只出现一次，并且第一层只在当前词元与前一词元之间选择；真实模型存在
特征叠加、重复词元，以及分散在多个位置上的前词元头。训练的模型只有三个可学习标量且嵌入冻结，因此实验检验
的是训练何时越过边界，而不是完整的 Transformer 如何学习其嵌入。文中只报告了一个随机种子；转折步会随种子
变化，我们所断言的是预测步与实测步的一致。
""", "limitations"),
    md(r"""
# 结论

在第一层把每个词元与其前一词元混合的两层注意力模型中，匹配位置上的注意力有闭式 $p(\beta,\pi)$；复制正确
当且仅当裕度 $\beta(2\pi-1)$ 超过 $\log 2$，并且（面对重复干扰词元时）匹配分数 $\beta\pi$ 超过
$\log(n-3)$。梯度下降恰在其权重越过这一边界的那一步开始复制，对从未见过的上下文也是如此；而把训练后模型中
任一学到的量移到其阈值以下，复制就会消失。
""", "conclusion"),
    md(r"""
# 复制边界的证明
\label{app:proof}

记 $Z=e^{\beta\pi}+2e^{\beta(1-\pi)}+n-3$。由于 $q$ 只出现在 $i$ 与 $T-1$，且 $1\le i\le T-3$，
$j^\star=i+1$ 的键为 $\pi e_q+(1-\pi)e_{y^\star}$，其中 $y^\star\neq q$；$i$ 与 $T-1$ 的键分别为
$\pi e_{x_{i-1}}+(1-\pi)e_q$ 与 $\pi e_{x_{T-2}}+(1-\pi)e_q$，其中 $x_{i-1},x_{T-2}\neq q$；其余的键在
$e_q$ 方向上没有分量。因此
$$a_{j^\star}=\frac{e^{\beta\pi}}{Z},\qquad a_i=a_{T-1}=\frac{e^{\beta(1-\pi)}}{Z},\qquad
a_j=\frac1Z\ \text{（其余位置）}.$$
词元 $v$ 的 logit 为 $\gamma\langle o,e_v\rangle=\gamma\sum_j a_j\mathbf{1}[x_j=v]$，而 $\gamma>0$ 不改变
argmax。在词元互不相同的上下文中，目标 $y^\star$ 只出现在 $j^\star$，查询词元出现在 $i$ 与 $T-1$，其他词元
至多出现一次；因此当 $e^{\beta\pi}>2e^{\beta(1-\pi)}$，即 $\beta(2\pi-1)>\log 2$ 时目标的 logit 最大
（此时 $e^{\beta\pi}>1$），而当 $\beta(2\pi-1)<\log 2$ 时查询词元的 logit 最大，因为
$2e^{\beta(1-\pi)}\ge 2>1$。在其余位置都是同一个干扰词元 $r$ 的上下文中，$r$ 出现在剩下的 $n-3$ 个位置上，
获得 $(n-3)/Z$，因此目标胜出当且仅当 $e^{\beta\pi}>\max\{2e^{\beta(1-\pi)},\,n-3\}$。
""", "appendix", label="app:proof"),
]

META = {
    "en": {"title": "When Does an Induction Head Start to Copy? A Closed-Form Boundary in the "
                    "Trained Weights",
           "authors": ["A. Researcher", "B. Theorist"]},
    "zh": {"title": "归纳头何时开始复制？训练权重中的闭式边界",
           "authors": ["王研究", "李理论"],
           "keywords": ["归纳头", "训练动力学", "注意力机制", "上下文学习", "可解释性"],
           "title_en": "When Does an Induction Head Start to Copy? A Closed-Form Boundary in the "
                       "Trained Weights",
           "abstract_en": "In a two-layer attention model whose first layer mixes each token "
                          "with its predecessor (weight $\\pi$) and whose second layer has "
                          "query scale $\\beta$, the copy of the induction target is correct "
                          "exactly when $\\beta(2\\pi-1)>\\log 2$, and against a repeated "
                          "distractor also $\\beta\\pi>\\log(n-3)$. Trained by gradient "
                          "descent, the model starts to copy at the step at which its weights "
                          "cross this boundary, and setting either learned quantity below its "
                          "threshold removes the copy."},
}


def build(lang: str = "en") -> nbformat.NotebookNode:
    return notebook(CELLS if lang == "en" else CELLS_ZH,
                    {**META[lang], "lang": lang, "paper_type": "dynamics",
                     "bibliography": "example_paper.bib"})


if __name__ == "__main__":
    folder = output_dir("Build and execute example_paper.ipynb and example_paper_zh.ipynb.")
    for lang, name in (("en", OUT.name), ("zh", "example_paper_zh.ipynb")):
        execute_and_write(build(lang), folder / name, timeout=300)
        print(f"wrote {folder / name}")
