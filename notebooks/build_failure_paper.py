"""Build and execute ``failure_paper.ipynb``, the numerical-failure example paper (English).

Run with the project's venv: ``.venv/bin/python notebooks/build_failure_paper.py``. Every
quantitative result is computed over five seeds (about 10 s on one core for all of them).
"""

from __future__ import annotations

from nbbuild import HERE, code, execute_and_write, md, notebook, output_dir

OUT = HERE / "failure_paper.ipynb"

SIM_CODE = r'''
%load_ext mechnb
%mech figures --lang en
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Latex, Markdown, display


def to_bf16(x):
    # Round float32 to the nearest bfloat16 (ties to even) on the bit pattern; the result is a
    # float32 whose low 16 bits are zero, i.e. exactly a bfloat16 value.
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    bits = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits & np.uint32(0xFFFF0000)).view(np.float32)


def to_bf16_stochastic(x, rng):
    # Stochastic rounding: add uniform random low bits, then truncate; E[result] = x.
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    bits = bits + rng.integers(0, 1 << 16, size=bits.shape, dtype=np.uint32)
    return (bits & np.uint32(0xFFFF0000)).view(np.float32)


def gap(w):
    # s(w): distance from each bfloat16 entry to its nearest other bfloat16 number.
    bits = np.asarray(w, dtype=np.float32).view(np.uint32)
    up = (bits + np.uint32(0x10000)).view(np.float32)
    down = (bits - np.uint32(0x10000)).view(np.float32)
    return np.minimum(np.abs(up - w), np.abs(w - down))


assert to_bf16(np.float32(1 + 2**-8)) == 1.0           # a tie rounds to the even neighbor
assert to_bf16(np.float32(1 + 3 * 2**-8)) == 1 + 2**-6   # ... in both directions
# significant bits p (7 stored + the implicit one): the smallest p for which 1 + 2^-p rounds to 1
P_BITS = next(p for p in range(1, 25) if to_bf16(np.float32(1 + 2.0**-p)) == 1)
assert gap(np.float32(1.5)) == 2.0 ** (1 - P_BITS)      # spacing in [1, 2) is 2^(1-p)

m = n = 32                    # shape of the weight matrix
T = 2000                      # update steps per run
SEEDS = (0, 1, 2, 3, 4)       # seed s draws U, c_t, N_t and the initial weights of run s
C_LOW, C_HIGH = 0.5, 1.5      # step sizes c_t are uniform in [C_LOW, C_HIGH)
ETA_CONTROLLED = 2e-4         # learning rate of the controlled runs (asm:swamped holds surely)
SIGMA_CONTROLLED = 1.0        # noise level of the controlled runs
ETA = 1e-3                    # learning rate of the partial-regime runs and the intervention
SIGMAS = (0.0, 1.0, 4.0)      # noise levels of the partial-regime runs
SIGMA_INTERVENTION = 1.0      # noise level of the intervention
FIT_FROM = T // 10            # growth slopes are fitted on steps t >= FIT_FROM
TOLERANCE = 1e-9              # largest allowed gap between simulation and derivation
steps = np.arange(1, T + 1)
late = steps >= FIT_FROM


def problem(seed):
    # Direction U, step sizes c_t, bounded noise N_t (entries uniform on [-sqrt 3, sqrt 3]:
    # mean 0, variance 1) and the generator for the initial weights, all from one seed.
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(m), rng.standard_normal(n)
    U = np.outer(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    c = C_LOW + (C_HIGH - C_LOW) * rng.random(T)
    N = rng.uniform(-np.sqrt(3), np.sqrt(3), (T, m, n))
    return rng, U, c, N


def updates(U, c, N, eta, sigma, aligned=True):
    # The exact updates of def:updates (float64); the isotropic control has the same expected
    # squared norm per step and no direction U.
    if aligned:
        return eta * (c[:, None, None] * np.sqrt(m * n) * U + sigma * N)
    return eta * np.sqrt(c**2 + sigma**2)[:, None, None] * N


def accumulate(W0, deltas, U, rule="nearest", seed=0):
    # bfloat16 training of one weight: the update itself is rounded to bfloat16, the sum is
    # formed in float32 and rounded again; the reference adds the exact updates in float64.
    # Only the rounding of the weight update differs between rules.
    rounding = np.random.default_rng(seed)
    W = to_bf16(W0)
    exact = W.astype(np.float64)
    comp = np.zeros_like(W)
    drift = np.empty((len(deltas), 2))
    for t, delta in enumerate(deltas):
        exact += delta
        d16 = to_bf16(delta)
        if rule == "nearest":
            W = to_bf16(W + d16)
        elif rule == "stochastic":
            W = to_bf16_stochastic(W + d16, rounding)
        elif rule == "kahan":
            y = d16 - comp                   # re-add what earlier updates lost
            new = to_bf16(W + y)
            comp = to_bf16((new - W) - y)    # what this update lost, kept in bfloat16
            W = new
        D = W - exact
        along = np.sum(D * U)
        drift[t] = along, np.sqrt(max(np.sum(D * D) - along**2, 0.0))
    return drift


def slope(values):
    # log-log growth exponent of |values| over the steps t >= FIT_FROM
    return np.polyfit(np.log(steps[late]), np.log(np.abs(values[late])), 1)[0]


def pm(values, digits=2):
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"
'''

TF_CODE = r'''
VOCAB, CONTEXT, WIDTH, BATCH = 16, 12, 32, 16   # tokens, positions, residual width, sequences
LAG = 2                      # the target at position i is the token at position i - LAG
TF_STEPS = 250               # Adam steps per run
TF_LR = 3e-4                 # Adam learning rate (constant)
BETA1, BETA2, ADAM_EPS = 0.9, 0.999, 1e-8
TF_SEEDS = (0, 1, 2, 3, 4)   # seed s: initial weights; 10000 + s: batches; 20000 + s: rounding
ARMS = ("float32", "nearest", "kahan", "stochastic")
LAST = 25                    # the final loss is the mean over the last LAST steps
CAUSAL = np.triu(np.full((CONTEXT, CONTEXT), -1e9, dtype=np.float32), 1)
SCORED = np.arange(CONTEXT) >= LAG


def init_params(seed):
    # token and position embeddings N(0, 1); projections N(0, 1/WIDTH)
    rng = np.random.default_rng(seed)
    s = 1 / np.sqrt(WIDTH)
    shapes = {"E": (VOCAB, WIDTH, 1.0), "P": (CONTEXT, WIDTH, 1.0), "Wq": (WIDTH, WIDTH, s),
              "Wk": (WIDTH, WIDTH, s), "Wv": (WIDTH, WIDTH, s), "Wo": (WIDTH, WIDTH, s),
              "Wu": (WIDTH, VOCAB, s)}
    return {k: (rng.standard_normal((r, c)) * scale).astype(np.float32)
            for k, (r, c, scale) in shapes.items()}


def loss_and_grads(W, x, y, R):
    # One causal attention layer with a residual stream and an unembedding; R rounds every
    # activation and gradient (to bfloat16, or not at all in the float32 run).
    h0 = R(W["E"][x] + W["P"])
    q, k, v = R(h0 @ W["Wq"]), R(h0 @ W["Wk"]), R(h0 @ W["Wv"])
    s = R(q @ k.transpose(0, 2, 1) / np.sqrt(WIDTH)) + CAUSAL
    e = np.exp(s - s.max(-1, keepdims=True))
    A = R(e / e.sum(-1, keepdims=True))
    z = R(A @ v)
    h1 = R(h0 + R(z @ W["Wo"]))
    logits = R(h1 @ W["Wu"])
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    picked = np.take_along_axis(p, y[..., None], -1)[..., 0]
    loss = -np.mean(np.log(picked[:, SCORED]))
    g = p.copy()
    np.put_along_axis(g, y[..., None], (picked - 1)[..., None], -1)
    g[:, ~SCORED] = 0
    g = R(g / (len(x) * SCORED.sum()))
    G = {"Wu": np.einsum("bld,blv->dv", h1, g)}
    dh1 = R(g @ W["Wu"].T)
    G["Wo"] = np.einsum("bld,ble->de", z, dh1)
    dz = R(dh1 @ W["Wo"].T)
    dA = dz @ v.transpose(0, 2, 1)
    dS = R(A * (dA - (dA * A).sum(-1, keepdims=True)) / np.sqrt(WIDTH))
    dq, dk, dv = R(dS @ k), R(dS.transpose(0, 2, 1) @ q), R(A.transpose(0, 2, 1) @ dz)
    for name, grad in (("Wq", dq), ("Wk", dk), ("Wv", dv)):
        G[name] = np.einsum("bld,ble->de", h0, grad)
    dh0 = dh1 + dq @ W["Wq"].T + dk @ W["Wk"].T + dv @ W["Wv"].T
    G["P"] = dh0.sum(0)
    G["E"] = np.zeros_like(W["E"])
    np.add.at(G["E"], x, dh0)
    return loss, {name: R(grad) for name, grad in G.items()}


def train(seed, arm):
    # Adam on every weight; in the bfloat16 arms the weights, activations, gradients and the
    # update are bfloat16 (Adam's moments stay float32); only the weight update's rounding differs.
    R = (lambda a: a) if arm == "float32" else to_bf16
    W = {k: R(w) for k, w in init_params(seed).items()}
    W0 = {k: w.copy() for k, w in W.items()}
    m1 = {k: np.zeros_like(w) for k, w in W.items()}
    m2 = {k: np.zeros_like(w) for k, w in W.items()}
    comp = {k: np.zeros_like(w) for k, w in W.items()}
    sent = {k: np.zeros(w.shape) for k, w in W.items()}
    moved = {k: np.zeros(w.shape, bool) for k, w in W.items()}
    data = np.random.default_rng(10_000 + seed)      # the same batches in every arm
    rounding = np.random.default_rng(20_000 + seed)
    losses, still, frozen = [], [], []
    for t in range(1, TF_STEPS + 1):
        x = data.integers(0, VOCAB, (BATCH, CONTEXT))
        loss, G = loss_and_grads(W, x, np.roll(x, LAG, axis=1), R)
        losses.append(loss)
        unchanged = 0
        for k in W:
            m1[k] = BETA1 * m1[k] + (1 - BETA1) * G[k]
            m2[k] = BETA2 * m2[k] + (1 - BETA2) * G[k] ** 2
            delta = R(-TF_LR * (m1[k] / (1 - BETA1**t))
                      / (np.sqrt(m2[k] / (1 - BETA2**t)) + ADAM_EPS))
            sent[k] += delta
            if arm in ("float32", "nearest"):
                new = R(W[k] + delta)
            elif arm == "stochastic":
                new = to_bf16_stochastic(W[k] + delta, rounding)
            else:                                    # kahan
                y = delta - comp[k]
                new = to_bf16(W[k] + y)
                comp[k] = to_bf16((new - W[k]) - y)
            unchanged += np.sum(new == W[k])
            moved[k] |= new != W[k]
            W[k] = new
        still.append(unchanged / sum(w.size for w in W.values()))
        frozen.append(1 - sum(mv.sum() for mv in moved.values()) / still_size(moved))
    kept = (sum(np.sum((W[k] - W0[k]) * sent[k]) for k in W)
            / sum(np.sum(sent[k] ** 2) for k in W))
    return np.array(losses), np.array(still), np.array(frozen), kept, frozen[-1]


def still_size(arrays):
    return sum(a.size for a in arrays.values())


def adam_bound(beta1, beta2, horizon=10_000):
    # K of cor:adam: the largest |Adam step| / learning rate any gradient sequence can produce
    t = np.arange(1, horizon + 1)
    series = np.sqrt(np.cumsum((beta1**2 / beta2) ** (t - 1)))
    return float(np.max((1 - beta1) / (1 - beta1**t) * np.sqrt((1 - beta2**t) / (1 - beta2))
                        * series))


K_ADAM = adam_bound(BETA1, BETA2)
n_params = sum(w.size for w in init_params(0).values())
'''

SETTINGS_CODE = r"""
def sci(x):
    # A positive number in LaTeX, e.g. 2\cdot 10^{-4}; mantissa 1 is left out.
    mantissa, exponent = f"{x:e}".split("e")
    head = "" if float(mantissa) == 1 else f"{float(mantissa):g}\\cdot "
    return f"${head}10^{{{int(exponent)}}}$"


def nums(values):
    return ", ".join(f"${v:g}$" for v in values)


seeds = f"${SEEDS[0]},\\dots,{SEEDS[-1]}$"
shared = [   # one value for the three bit-level experiments
    ("weight matrix $m\\times n$; steps $T$", f"${m}\\times {n}$; ${T}$"),
    ("weight store, update", f"bfloat16 ($p={P_BITS}$), round to nearest even"),
    ("sum $\\hat W_t+\\hat\\Delta_t$; reference $W_t$", "float32; float64"),
    ("step sizes $c_t$; noise $N_t$",
     f"uniform in $[{C_LOW:g},{C_HIGH:g})$; uniform in $[-\\sqrt3,\\sqrt3]$"),
    ("seeds (one run each)", seeds),
]
per_run = [  # controlled, partial regime, intervention
    ("initial weights", "$\\pm[1,2)$", "$\\mathcal N(0,1)$", "$\\mathcal N(0,1)$"),
    ("learning rate $\\eta$", sci(ETA_CONTROLLED), sci(ETA), sci(ETA)),
    ("noise level $\\sigma$", nums([SIGMA_CONTROLLED]), nums(SIGMAS), nums([SIGMA_INTERVENTION])),
    ("rounding of the update", "nearest", "nearest", "nearest; Kahan; stochastic"),
    ("slopes fitted on steps", "--", f"$t\\ge {FIT_FROM}$", "--"),
    ("tolerance vs.\\ derivation", sci(TOLERANCE), "--", "--"),
]
transformer = [
    ("vocabulary; context; width; batch", f"${VOCAB}$; ${CONTEXT}$; ${WIDTH}$; ${BATCH}$"),
    ("task", f"predict the token ${LAG}$ positions back"),
    ("parameters", f"${n_params}$ (one attention layer, no MLP)"),
    ("optimizer", f"Adam, $\\eta={sci(TF_LR)[1:-1]}$, $\\beta=({BETA1:g},{BETA2:g})$, "
                  f"$\\epsilon={sci(ADAM_EPS)[1:-1]}$, ${TF_STEPS}$ steps"),
    ("bfloat16 arms", "weights, activations, gradients, update"),
    ("seeds", f"${TF_SEEDS[0]},\\dots,{TF_SEEDS[-1]}$ (weights); "
              f"$10^4+s$ (batches); $2\\cdot10^4+s$ (rounding)"),
]
rows = ([f"{name} & \\multicolumn{{3}}{{l}}{{{value}}} \\\\" for name, value in shared]
        + ["\\hline"] + [" & ".join(row) + " \\\\" for row in per_run]
        + ["\\hline", "\\multicolumn{4}{l}{\\emph{Transformer (\\cref{fig:transformer})}} \\\\"]
        + [f"{name} & \\multicolumn{{3}}{{l}}{{{value}}} \\\\" for name, value in transformer])
display(Latex("\\begin{tabular}{llll}\n\\hline\n"
              "setting & controlled & partial regime & intervention \\\\\n\\hline\n"
              + "\n".join(rows) + "\n\\hline\n\\end{tabular}"))
"""

CONTROLLED_CODE = r"""
worst, deviation, finals = [], [], []
for seed in SEEDS:
    rng, U, c, N = problem(seed)
    W_binade = to_bf16(rng.choice([-1.0, 1.0], size=(m, n)) * (1.0 + rng.random((m, n))))
    # asm:swamped, checked as stated (a bound that holds for every draw of the noise)
    bound = (ETA_CONTROLLED * (C_HIGH * np.sqrt(m * n) * np.abs(U) + np.sqrt(3) * SIGMA_CONTROLLED)
             * (1 + 2.0 ** (1 - P_BITS)))
    worst.append(np.max(bound / (gap(W_binade) / 2)))
    assert worst[-1] < 1, "asm:swamped does not hold"
    small = updates(U, c, N, ETA_CONTROLLED, SIGMA_CONTROLLED)
    drift = accumulate(W_binade, small, U)
    total = np.cumsum(small, axis=0)                            # sum of the exact updates so far
    theory_along = -np.einsum("tij,ij->t", total, U)
    theory_across = np.sqrt(np.maximum(np.sum(total**2, axis=(1, 2)) - theory_along**2, 0.0))
    deviation.append(max(np.max(np.abs(drift[:, 0] - theory_along)),
                         np.max(np.abs(drift[:, 1] - theory_across))))
    finals.append(drift[-1])
    if seed == SEEDS[0]:
        shown = drift, theory_along, theory_across

drift, theory_along, theory_across = shown
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.5, 2.6), layout="constrained")
ax1.plot(steps, -drift[:, 0], lw=3, alpha=0.5, label="simulated (seed 0)")
ax1.plot(steps, -theory_along, "k--", label="derivation")
ax1.plot(steps, ETA_CONTROLLED * np.sqrt(m * n) * steps, ":", color="gray",
         label="expectation")
ax1.set_xlabel("update step $t$"); ax1.set_ylabel(r"$-\langle D_t,U\rangle$")
ax2.plot(steps, drift[:, 1], lw=3, alpha=0.5)
ax2.plot(steps, theory_across, "k--")
ax2.plot(steps, ETA_CONTROLLED * SIGMA_CONTROLLED * np.sqrt(steps * (m * n - 1)), ":",
         color="gray")
ax2.set_xlabel("update step $t$"); ax2.set_ylabel(r"$\|P_\perp D_t\|$")
fig.legend(loc="outside upper center", ncols=3)
plt.show()
finals = np.array(finals)
assert max(deviation) < TOLERANCE, deviation
print(f"seeds {SEEDS}: largest sure bound on |update| / (gap/2): {max(worst):.3f}")
print(f"largest deviation from the derivation over all seeds and steps: {max(deviation):.1e}")
print(f"after T={T}: along U {pm(finals[:, 0])}, across U {pm(finals[:, 1], 3)} "
      f"(mean ± std over {len(SEEDS)} seeds)")
"""

GROWTH_CODE = r"""
results = {}
for seed in SEEDS:
    rng, U, c, N = problem(seed)
    W_gauss = to_bf16(rng.standard_normal((m, n)))
    for sigma in SIGMAS:
        for aligned in (True, False):
            drift = accumulate(W_gauss, updates(U, c, N, ETA, sigma, aligned), U)
            norm = np.hypot(drift[-1, 0], drift[-1, 1])
            results.setdefault((sigma, aligned), []).append(
                (drift[-1, 0], drift[-1, 1], -drift[-1, 0] / norm,
                 slope(drift[:, 0]), slope(drift[:, 1])))
rows = []
for (sigma, aligned), runs in results.items():
    r = np.array(runs)
    rows.append(f"| {'persistent $U$' if aligned else 'isotropic'} | {sigma:.0f} | "
                f"{pm(r[:, 0])} | {pm(r[:, 1])} | {pm(r[:, 2])} | {pm(r[:, 3])} | "
                f"{pm(r[:, 4])} |")
display(Markdown(
    "| updates | $\\sigma$ | along $U$ | across $U$ | $\\cos(D_T,-U)$ | slope along | "
    "slope across |\n|:---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows)))
for sigma in SIGMAS:
    r, iso = np.array(results[(sigma, True)]), np.array(results[(sigma, False)])
    ratio = r[:, 0] / iso[:, 0]
    print(f"sigma={sigma:g}: cos > 0.7 in {np.sum(r[:, 2] > 0.7)}/{len(SEEDS)} seeds, "
          f"slope along > 1 in {np.sum(r[:, 3] > 1)}/{len(SEEDS)}, "
          f"slope along > slope across in {np.sum(r[:, 3] > r[:, 4])}/{len(SEEDS)}; "
          f"|along| persistent / isotropic: {np.min(np.abs(ratio)):.0f} to "
          f"{np.max(np.abs(ratio)):.0f} (median {np.median(np.abs(ratio)):.0f})")
"""

INTERVENTION_CODE = r"""
names = {"nearest": "round to nearest", "kahan": "Kahan-compensated update",
         "stochastic": "stochastic rounding"}
runs = {rule: [] for rule in names}
for seed in SEEDS:
    rng, U, c, N = problem(seed)
    W_gauss = to_bf16(rng.standard_normal((m, n)))
    deltas = updates(U, c, N, ETA, SIGMA_INTERVENTION)
    sent = np.einsum("tij,ij->", deltas, U)      # the persistent update sent along U
    for rule in names:
        drift = accumulate(W_gauss, deltas, U, rule, seed=100 + seed)
        runs[rule].append((drift[-1, 0], drift[-1, 1], 1 + drift[-1, 0] / sent))
        if seed == SEEDS[0]:
            runs.setdefault("paths", {})[rule] = drift[:, 0]

fig, ax = plt.subplots(figsize=(6.5, 2.6), layout="constrained")
for rule, path in runs.pop("paths").items():
    ax.plot(steps, np.abs(path) + 1e-6, label=names[rule])
ax.set_yscale("log")
ax.set_xlabel("update step $t$"); ax.set_ylabel(r"$|\langle D_t, U\rangle|$ (seed 0)")
fig.legend(loc="outside right center")
plt.show()
"""

INTERVENTION_TABLE_CODE = r"""
finals = {rule: np.array(r) for rule, r in runs.items()}
rows = [f"| {names[rule]} | {pm(r[:, 0], 3)} | {pm(r[:, 1], 3)} | {pm(r[:, 2], 4)} |"
        for rule, r in finals.items()]
display(Markdown("| weight update | along $U$ | across $U$ | update kept along $U$ |\n"
                 "|:---|---:|---:|---:|\n" + "\n".join(rows)))
reduction = finals["nearest"][:, 0] / finals["kahan"][:, 0]
print(f"|along| nearest / Kahan per seed: {np.min(np.abs(reduction)):.0f} to "
      f"{np.max(np.abs(reduction)):.0f}")
"""

TRANSFORMER_CODE = r"""
half_gaps = {}
curves, tables = {arm: [] for arm in ARMS}, {arm: [] for arm in ARMS}
predicted = []
for seed in TF_SEEDS:
    stored = {k: to_bf16(w) for k, w in init_params(seed).items()}
    half = np.concatenate([gap(w).ravel() / 2 for w in stored.values()])
    # cor:adam, before training: entries that can never move, and those the first step leaves
    predicted.append((np.mean(half > (1 + 2.0 ** (1 - P_BITS)) * K_ADAM * TF_LR),
                      np.mean(half > TF_LR)))
    for arm in ARMS:
        losses, still, frozen, kept, never = train(seed, arm)
        curves[arm].append((losses, still, frozen))
        tables[arm].append((losses[-LAST:].mean(), kept, never))
predicted = np.array(predicted)

names_tf = {"float32": "float32", "nearest": "bfloat16, round to nearest",
            "kahan": "bfloat16, Kahan update", "stochastic": "bfloat16, stochastic rounding"}
styles = {"float32": "k-", "nearest": "C3-", "kahan": "C0--", "stochastic": "C2:"}
tf_steps = np.arange(1, TF_STEPS + 1)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.5, 2.8), layout="constrained")
for arm in ARMS:
    losses = np.array([lc[0] for lc in curves[arm]])
    ax1.plot(tf_steps, losses.mean(0), styles[arm], label=names_tf[arm])
    ax1.fill_between(tf_steps, losses.min(0), losses.max(0), color=styles[arm][:2].strip("-:"),
                     alpha=0.12, lw=0)
for arm in ("nearest", "kahan"):
    frozen = np.array([lc[2] for lc in curves[arm]])
    ax2.plot(tf_steps, frozen.mean(0), styles[arm])
ax2.axhline(predicted[:, 1].mean(), color="gray", lw=0.8)
ax2.axhline(predicted[:, 0].mean(), color="gray", lw=0.8, ls="--")
ax1.set_xlabel("Adam step"); ax1.set_ylabel("training loss (nats)")
ax2.set_xlabel("Adam step"); ax2.set_ylabel("never moved so far")
ax2.set_ylim(0, 1)
fig.legend(loc="outside upper center", ncols=2)
plt.show()
"""

TRANSFORMER_TABLE_CODE = r"""
base = np.array([t[0] for t in tables["float32"]])
rows = []
for arm in ARMS:
    r = np.array(tables[arm])
    rows.append(f"| {names_tf[arm]} | {pm(r[:, 0], 3)} | {pm(r[:, 0] - base, 3)} | "
                f"{pm(r[:, 1], 3)} | {pm(r[:, 2], 3)} |")
display(Markdown("| weights | final loss | minus float32 (same seed) | update kept | "
                 "never moved |\n|:---|---:|---:|---:|---:|\n" + "\n".join(rows)))
never = np.array([t[2] for t in tables["nearest"]])
print(f"K = {K_ADAM:.2f}; predicted never moved (sure bound): {pm(predicted[:, 0], 3)}; "
      f"predicted left by the first step: {pm(predicted[:, 1], 3)}; "
      f"measured never moved (nearest): {pm(never, 3)} over seeds {TF_SEEDS}")
print(f"sure bound <= measured in {np.sum(predicted[:, 0] <= never)}/{len(TF_SEEDS)} seeds; "
      f"largest |measured - first-step prediction|: {np.max(np.abs(never - predicted[:, 1])):.4f}")
still = {arm: np.mean([lc[1].mean() for lc in curves[arm]]) for arm in ("nearest", "kahan")}
print(f"mean fraction of weights a step leaves unchanged: nearest {still['nearest']:.3f}, "
      f"Kahan {still['kahan']:.3f}")
print(f"initial loss {pm([lc[0][0] for lc in curves['float32']], 3)}; "
      f"log {VOCAB} = {np.log(VOCAB):.3f}")
"""

CELLS = [
    md(r"""
Weights stored in bfloat16 and updated with round-to-nearest lose every update entry that is
smaller than half the spacing of bfloat16 numbers around the weight. This stagnation is known
from the analysis of floating-point summation and from low-precision training. However, it
has remained unclear how to predict, before training, which weights a given optimizer setting
will freeze, and in which direction the lost updates move the weights. We make the stagnation
precise and predictive. We state, per sample path, which entries an update leaves
unchanged and what the weights then lose; we show that updates with a persistent low-rank
direction lose it along that direction; and for Adam we bound, before training, the fraction of
weights that can never move from the learning rate and the initial weights alone. A bit-level
NumPy simulation matches the derivation to $10^{-9}$ in its regime, and outside it we report the
growth rates as measured over five seeds. In a one-layer Transformer trained with Adam in
bfloat16, with activations, gradients and updates all rounded, round-to-nearest leaves the
weights predicted from the first step frozen for the whole run and the loss stalls; changing only
the weight update to a compensated (Kahan) update recovers the float32 loss in every seed.
""", "abstract"),
    md(r"""
# Introduction

Training large language models in bfloat16 halves the memory traffic of the weights and
activations, and bfloat16 is widely used for it [@kalamkar2019study]. Mixed-precision recipes
keep a float32 copy of the weights for the update; runs that keep the *weights* themselves in
bfloat16 lose accuracy unless the update is done with care [@zamirai2020revisiting]. Some instabilities of large-scale Transformer training reappear in
small models [@wortsman2024small], which makes small, fully controlled models a useful place to
locate a numerical failure in one arithmetic operation.
""", "context", label="sec:intro"),
    md(r"""
The mechanism we study is not new. When a long sum is accumulated in floating point with
round-to-nearest, an addend smaller than half the spacing of the numbers around the running sum
is lost entirely, so the sum can stop growing. This is known as stagnation; the probabilistic
error analysis of stochastic rounding, and why it is immune to stagnation, is in
\citet{connolly2021stochastic} and \citet{croci2022stochastic}. \citet{gupta2015deep} found that
with 16-bit fixed-point arithmetic the rounding scheme decides whether training succeeds, and that
stochastic rounding makes it work; \citet{zamirai2020revisiting} showed for pure bfloat16
training that round-to-nearest cancels small weight updates, and recovered float32 accuracy with
Kahan summation or stochastic rounding in the weight update. Low precision also fails selectively elsewhere in Transformers,
e.g.\ in 8-bit matrix multiplication with outlier features [@dettmers2022llmint8].
""", "prior"),
    md(r"""
What these works leave open is quantitative and predictive: a statement of the stagnation that
holds on every sample path rather than in expectation, the *direction* in weight space that the
lost updates take when the updates keep a low-rank component [@zhao2024galore], a criterion
computable before training that says which weights an optimizer setting will freeze, and a
controlled test of that prediction and of the remedy, in a Transformer in which every other
operation is rounded too, so that both could fail. \citet{zamirai2020revisiting} already showed
that the remedy works in pure bfloat16 training of real models; what we add is the prediction
and its test.
""", "gap"),
    md(r"""
We take the lens of *numerical error propagation*: we write every stored weight as the exact
weight plus the sum of the rounding errors of its updates, and ask which errors are forced by
the size of the update relative to the spacing of bfloat16 numbers, and how they are correlated
with the update that produced them.
""", "lens"),
    md(r"""
Which weights does round-to-nearest freeze in bfloat16 training, can this be predicted from the
optimizer setting before training, in which direction does the resulting drift point, and does
changing only the rounding of the weight update remove the failure in a Transformer?
""", "question", label="q:main"),
    md(r"""
Our contributions are:

- **Statement.** A per-sample-path form of the stagnation of round-to-nearest updates
  (\cref{thm:drift}), its rates for updates with a persistent direction (\cref{cor:rates}), and
  a freeze criterion for Adam computable from the learning rate and the initial weights
  (\cref{cor:adam}).
- **Measurement.** Where the small-update regime holds only in part, the growth of the drift
  along and across the persistent direction as measured over five seeds (\cref{tab:growth}); we
  restate the claim to what the measurements support (\cref{clm:main}).
- **Transformer.** In a one-layer Transformer trained in bfloat16, the predicted weights freeze,
  the loss stalls, and a compensated weight update alone removes the failure
  (\cref{fig:transformer}, \cref{tab:transformer}).
""", "contributions"),
    md(r"""
# Setup and notation

A bfloat16 number has $p=8$ significant bits: $7$ stored fraction bits and the implicit leading
bit. Numbers in $[2^e,2^{e+1})$ are spaced $2^{e+1-p}$ apart, and round-to-nearest has unit
roundoff $u=2^{-p}=2^{-8}$: $\mathrm{fl}(x)=x(1+\delta)$ with $|\delta|\le u$. For a bfloat16
number $w$ let $s(w)$ be the distance from $w$ to the nearest other bfloat16 number (at a power of
two this is the smaller spacing, below it). $\mathrm{fl}(\cdot)$ rounds to the nearest bfloat16
number, ties to even. We follow a weight $\hat W_t\in\mathbb{R}^{m\times n}$ stored in bfloat16.
The optimizer produces an exact update $\Delta_t$; the update is itself rounded,
$\hat\Delta_t=\mathrm{fl}(\Delta_t)$, added in float32 and rounded again:
$$\hat W_{t+1} = \mathrm{fl}(\hat W_t + \hat\Delta_t), \qquad W_{t+1} = W_t + \Delta_t,
\qquad W_0 = \hat W_0,$$
where $W_t$ is the reference in exact arithmetic. We call $D_T = \hat W_T - W_T$ the
*drift* after $T$ steps, and measure it along a unit direction $U$ and across it, with
$\langle A, B\rangle=\sum_{ij}A_{ij}B_{ij}$ and $P_\perp D = D - \langle D,U\rangle U$.
""", "setup", label="sec:setup"),
    md(r"""
The updates have a persistent rank-one part: the unit-norm direction
$U = ab^\top/(\|a\|\|b\|)$ for fixed $a\in\mathbb{R}^m$, $b\in\mathbb{R}^n$, independent step
sizes $c_t$ uniform on $[\tfrac12,\tfrac32)$ and independent noise matrices $N_t$ whose entries
are independent and uniform on $[-\sqrt3,\sqrt3]$ (mean $0$, variance $1$, bounded),
$$\Delta_t = \eta\,\big(c_t\sqrt{mn}\,U + \sigma N_t\big).$$
The first term is the direction the gradient keeps pointing in; the second, of the same size
per entry when $\sigma=1$, is the step-to-step noise. The noise is bounded so that the next
assumption can hold on every sample path.
""", "definition", label="def:updates", title="Updates with a persistent low-rank part"),
    md(r"""
For every entry, the largest update that \cref{def:updates} can produce, rounded, stays below
half the rounding gap of the initial weight:
$\eta\big(\tfrac32\sqrt{mn}\,|U_{ij}| + \sqrt3\,\sigma\big)\,(1+2^{1-p}) < s\big((\hat W_0)_{ij}\big)/2$.
The factor $1+2^{1-p}$ covers the rounding of the update to float32 and to bfloat16.
""", "assumption", label="asm:swamped", title="Small updates"),
    md(r"""
# Diagnosis
""", None),
    md(r"""
Under round-to-nearest, the drift $D_T$ of a bfloat16 weight is caused by the rounding of the
weight update, and when the updates keep a persistent direction $U$ its dominant part lies along
$-U$. Measured from Gaussian initial weights, where the small-update regime holds only for part
of the entries: in every run, $\cos(D_T,-U)>0.7$, the component along $U$ grows with a log-log
slope above $1$ and faster than the component across $U$, and updates of the same size without
a persistent direction drift along $U$ at least $100$ times less.
""", "claim", label="clm:main", title="Root cause"),
    md(r"""
\cref{clm:main} blames one operation and one correlation, and each of its parts is a
measurement that could have come out otherwise. The short mantissa alone would give errors that
largely cancel; it is an update that keeps its direction that makes every step lose the same
thing. The claim makes no statement about $\sqrt T$ growth across $U$: outside the regime of
\cref{thm:drift}, entries that do move have noisy rounding errors that are not independent of
the update, and the measured growth across $U$ is faster than $\sqrt T$ at larger noise levels.
""", "interpretation"),
    md(r"""
To see where the drift comes from, we telescope it into the rounding errors of the individual
updates and write each error entry by entry.
\begin{align}
D_T &= \sum_{t<T}\big(\hat W_{t+1} - \hat W_t - \Delta_t\big) = \sum_{t<T} E_t,
\qquad E_t = \hat W_{t+1} - \hat W_t - \Delta_t, \label{eq:drift}\\
(E_t)_{ij} &= -(\Delta_t)_{ij} \quad\text{whenever } \big|(\hat\Delta_t)_{ij}\big|
< s\big((\hat W_t)_{ij}\big)/2 . \nonumber
\end{align}
Here, $E_t$ denotes the total error of the $t$-th update (of the update's own rounding and of the
weight's) and $s(\cdot)$ the rounding gap of the stored entry. Intuitively, an entry whose
update is below half a gap does not move at all, so its error is the whole update with the
opposite sign: the error inherits the update's direction instead of being independent of it.
\Cref{thm:drift} turns this into a statement about whole runs.
""", "formula", label="eq:drift"),
    md(r"""
# Main result
""", None),
    md(r"""
Fix a horizon $T$ and one realization of the updates. If an entry's applied updates all stay
below half the rounding gap of its initial value, $|(\hat\Delta_t)_{ij}| < s((\hat W_0)_{ij})/2$
for all $t<T$, then that entry never moves, $(\hat W_t)_{ij}=(\hat W_0)_{ij}$ for $t\le T$, and
$(D_T)_{ij} = -\sum_{t<T}(\Delta_t)_{ij}$. If this holds for every entry, then with the updates
of \cref{def:updates}
\begin{align}
\langle D_T, U\rangle &= -\eta\sqrt{mn}\sum_{t<T} c_t - \eta\sigma\sum_{t<T}\langle N_t,U\rangle,
\label{eq:along}\\
P_\perp D_T &= -\eta\sigma\sum_{t<T}P_\perp N_t . \label{eq:across}
\end{align}
""", "theorem", label="thm:drift", title="Stagnation, per sample path"),
    md(r"""
In words: an entry whose updates are all smaller than half the spacing of bfloat16 numbers
around it is never written, and what it loses is exactly the sum of its updates. This is the
stagnation of floating-point sums [@connolly2021stochastic; @croci2022stochastic] applied to a
weight matrix; the theorem
only makes it exact on each run, so that a simulation must reproduce it step by step, not just on
average, and it separates the lost update into a part along the persistent direction and a part
across it.
""", "interpretation"),
    md(r"""
Fix an entry and suppose $(\hat W_t)_{ij}=w$. The update $\delta=(\hat\Delta_t)_{ij}$ has
$|\delta|<s(w)/2$, so $w+\delta$ is nearer to $w$ than to any other bfloat16 number and
$\mathrm{fl}(w+\delta)=w$. Forming the sum in float32 first changes nothing: $w$ and $\delta$ are
bfloat16 numbers, so their float32 sum is exact when their exponents differ by at most $16$;
otherwise $|\delta|<2^{-16}|w|$, and the float32 sum, within half a float32 spacing of
$w+\delta$, stays far from the midpoints $w\pm s(w)/2$, since $s(w)/2>2^{-10}|w|$. By induction the entry never moves, and \eqref{eq:drift} gives
$(E_t)_{ij}=-(\Delta_t)_{ij}$. Taking inner products with $U$ and $P_\perp U=0$ gives
\eqref{eq:along} and \eqref{eq:across}. Details are in \cref{app:derivation}.
""", "proof", kind="sketch"),
    md(r"""
Under \cref{def:updates} and \cref{asm:swamped}, the hypothesis of \cref{thm:drift} holds for
every entry, on every sample path and for every horizon $T$. Hence
$$\mathbb{E}\,\langle D_T, U\rangle = -\eta\sqrt{mn}\,T,
\qquad
\mathbb{E}\,\|P_\perp D_T\|^2 = \eta^2\sigma^2\,T\,(mn-1),$$
and, almost surely, $\langle D_T,U\rangle/T\to-\eta\sqrt{mn}$ and $\|P_\perp D_T\|/T\to0$ as
$T\to\infty$, so $\cos(D_T,-U)\to1$.
""", "corollary", label="cor:rates", title="Rates"),
    md(r"""
The drift along $U$ grows linearly and the drift across $U$ like $\sqrt T$, so the direction of
the lost update converges to $-U$. Because the noise is bounded and the weight never moves,
the assumption is a condition on each step separately, and the limit $T\to\infty$ stays inside
it; with Gaussian noise the assumption would fail on some step of a long enough run.
""", "interpretation"),
    md(r"""
By \cref{asm:swamped}, $|(\Delta_t)_{ij}|\le\eta(\tfrac32\sqrt{mn}|U_{ij}|+\sqrt3\sigma)$ for every
draw, and rounding to float32 and then bfloat16 multiplies it by at most $1+2^{1-p}$, so the
hypothesis of \cref{thm:drift} holds surely. The expectations follow from $\mathbb{E}c_t=1$,
$\mathbb{E}N_t=0$ and $\mathbb{E}\|P_\perp N_t\|^2=mn-1$ for a matrix of independent unit-variance
entries and a unit $U$; the limits from the strong law of large numbers applied to
$c_t$, $\langle N_t,U\rangle$ and each coordinate of $P_\perp N_t$.
""", "proof"),
    md(r"""
For Adam with step size $\eta$ and $\beta_1^2<\beta_2$, and for any sequence of gradients, every
update entry obeys $|(\Delta_t)_{ij}|\le K\eta$ with
$$K=\sup_{t\ge1}\;\frac{1-\beta_1}{1-\beta_1^t}\sqrt{\frac{1-\beta_2^t}{1-\beta_2}}
\Big(\sum_{k<t}\big(\beta_1^2/\beta_2\big)^k\Big)^{1/2}.$$
Hence, under round-to-nearest, every entry with $s((\hat W_0)_{ij})/2>(1+2^{1-p})K\eta$ never
moves, on every sample path.
""", "corollary", label="cor:adam", title="Which weights Adam cannot move"),
    md(r"""
The corollary turns stagnation into a prediction made before training: from the learning rate
and the initial bfloat16 weights alone, it gives a fraction of weights that are certainly frozen.
The bound is worst-case over gradient sequences; a typical Adam step is close to $\eta$ in size
[@kingma2015adam], so we also record the fraction of weights with $s/2>\eta$, the ones that the
first step, of size at most $\eta$, already leaves in place.
""", "interpretation"),
    md(r"""
With $m_t=(1-\beta_1)\sum_{s\le t}\beta_1^{t-s}g_s$ and
$v_t=(1-\beta_2)\sum_{s\le t}\beta_2^{t-s}g_s^2$, the Cauchy--Schwarz inequality applied to
$\beta_1^{t-s}g_s=(\beta_1^{t-s}\beta_2^{-(t-s)/2})(\beta_2^{(t-s)/2}g_s)$ gives
$|m_t|\le(1-\beta_1)\big(\sum_{k<t}(\beta_1^2/\beta_2)^k\big)^{1/2}\sqrt{v_t/(1-\beta_2)}$.
The bias-corrected step is $\eta\,|m_t|(1-\beta_1^t)^{-1}/(\sqrt{v_t/(1-\beta_2^t)}+\epsilon)$,
and $\epsilon>0$ only shrinks it. Then apply \cref{thm:drift} entry by entry.
""", "proof"),
    md(r"""
Without the small-update regime the error of an entry is its rounding gap times
$\operatorname{round}(x)-x$, with $x$ the update in units of the gap. When the noise spreads $x$
over several gaps, round-to-nearest behaves like stochastic rounding and the bias shrinks; when
it does not, the bias has the sign of the persistent part. Which case dominates is an empirical
question, answered for our setting by \cref{tab:growth}.
""", "remark", label="rem:scope", title="Beyond small updates"),
    md(r"""
## The causal chain

The mechanism is a chain of three links, each of which can be broken on its own:

1. **Persistent direction.** The updates share a direction $U$ across steps
   (\cref{def:updates}); without it there is nothing for the errors to align with.
2. **Biased rounding.** Round-to-nearest maps an update that is small relative to the gap to an
   error of the opposite sign (\cref{eq:drift}); with centered rounding the errors average out.
3. **Accumulation.** The weight store keeps no record of what was rounded away, so the errors add
   up for as long as training runs.

Breaking link 1 is the isotropic control of \cref{tab:growth}; breaking link 3 is the Kahan arm
of the interventions (\cref{fig:intervention}, \cref{fig:transformer}), which keeps the
rounded-away part in a compensation buffer; breaking link 2 is their stochastic-rounding arm.
""", "mechanism", label="mech:chain"),
    code(SIM_CODE),
    code(TF_CODE),
    md(r"""
# Experiments

We simulate bfloat16 at the bit level in NumPy: a float32 is rounded to bfloat16 by adding
$2^{15}-1$ plus the last kept bit to its bit pattern and clearing the low $16$ bits, which is
round-to-nearest with ties to even. The update is rounded to bfloat16 before it is added, the
sum is formed in float32 and rounded again, so two operations round in every run, and in the
Transformer also every activation and gradient. A $32\times 32$ weight receives $T=2000$ updates
of \cref{def:updates}; each of five seeds draws its own direction, step sizes, noise and initial
weights. \Cref{tab:settings} lists every setting, read from the variables of the code.
""", "experiment", kind="controlled", validates=["thm:drift"]),
    code(SETTINGS_CODE, "figure", label="tab:settings",
         caption=r"Settings of the controlled runs (\cref{fig:controlled}), the runs where the "
                 r"regime holds only in part (\cref{tab:growth}), the intervention "
                 r"(\cref{fig:intervention}) and the Transformer (\cref{fig:transformer}), as "
                 r"used by the code."),
    md(r"""
**Controlled setting.** To test \cref{thm:drift} and \cref{cor:rates} where the assumption holds,
the initial entries lie in $\pm[1,2)$ and $\eta=2\cdot 10^{-4}$, $\sigma=1$; the code checks
\cref{asm:swamped} as stated, a bound over every possible draw. The theorem predicts the drift
path exactly, not only in expectation: $\langle D_t,U\rangle=-\sum_{s<t}\langle\Delta_s,U\rangle$
at every step, and likewise across $U$.
""", "experiment", kind="controlled", validates=["thm:drift", "cor:rates"]),
    code(CONTROLLED_CODE, "experiment", label="fig:controlled", kind="controlled",
         validates=["thm:drift", "cor:rates"],
         caption=r"Validates \cref{thm:drift} in its regime: the simulated bfloat16 drift "
                 r"follows the derivation $D_t=-\sum_{s<t}\Delta_s$ step by step, along the "
                 r"update direction (left, linear growth) and across it (right, of order "
                 r"$\sqrt t$, with the expectation of \cref{cor:rates} dotted); seed 0 shown."),
    md(r"""
In all five seeds the sure bound of \cref{asm:swamped} stays below half a gap (largest ratio
$0.729$), no stored entry moves, and the simulated drift coincides with the derivation at every
step, along and across $U$, to within the tolerance $10^{-9}$ (the largest deviation is float64
round-off in the reference). After $2000$ steps the drift along $U$ is $-12.79\pm0.03$ and the
drift across it $0.285\pm0.008$ (mean $\pm$ standard deviation over the seeds), both within one
standard deviation of the expectations $-\eta\sqrt{mn}\,T$ and
$\big(\eta^2\sigma^2T(mn-1)\big)^{1/2}$ of \cref{cor:rates}.
""", "result"),
    md(r"""
**Where the regime holds only in part.** \Cref{clm:main} is about the case in which small
weights have fine rounding gaps and do move. We start from Gaussian weights
$(\hat W_0)_{ij}\sim\mathcal N(0,1)$ with $\eta=10^{-3}$ and vary the noise level $\sigma$; the
control replaces the persistent part by noise of the same expected squared norm (no direction
$U$). For each run we report the drift along and across $U$, the cosine between $D_T$ and $-U$,
and the log-log slopes of both components over $t\in[200, 2000]$.
""", "experiment", kind="controlled", validates=["clm:main"]),
    code(GROWTH_CODE, "experiment", label="tab:growth", kind="controlled", validates=["clm:main"],
         caption=r"Tests \cref{clm:main} from Gaussian initial weights (mean $\pm$ standard "
                 r"deviation over five seeds): with a persistent direction the drift points "
                 r"along $-U$ and its component along $U$ grows faster than linearly; with "
                 r"isotropic updates of the same size it has no direction."),
    md(r"""
\Cref{tab:growth} supports each part of \cref{clm:main} in all $15$ runs with a persistent
direction. The cosine with $-U$ is $0.98$, $0.95$ and $0.77$ for $\sigma=0,1,4$; the slope along
$U$ is $1.42$, $1.54$ and $3.45$, above $1$ in every run; the slope across $U$ is $0.48$, $0.73$
and $1.29$, below the slope along $U$ in every run. Only at $\sigma=0$ is the growth across $U$
close to the $\sqrt T$ of \cref{cor:rates}; with noise it is faster, so that part of the
corollary does not extend beyond its regime, and we have not derived the exponents outside it.
The isotropic control drifts along $U$ between $177$ and $5147$ times less than the persistent
run with the same seed and $\sigma$ (medians $2800$, $1624$ and $206$ for $\sigma=0,1,4$), with
cosine near $0$ and a slope across $U$ of $0.50$ to $0.52$, the $\sqrt T$ of independent errors;
its slope along $U$ is erratic (standard deviations near $0.4$), as expected of a
one-dimensional random walk.
""", "result"),
    md(r"""
**Intervention.** To test whether the rounding of the weight update *causes* the drift, we
change only that operation and keep everything else fixed.

- **Changed:** the weight update $\hat W\leftarrow\mathrm{fl}(\hat W+\hat\Delta_t)$ becomes Kahan's
  compensated summation, as \citet{zamirai2020revisiting} use it for bfloat16 weights: $y=\hat\Delta_t-C$, $\hat W'=\mathrm{fl}(\hat W+y)$,
  $C=\mathrm{fl}\big((\hat W'-\hat W)-y\big)$, with the compensation buffer $C$ itself stored in
  bfloat16. A second arm uses stochastic rounding in the same place.
- **Kept fixed:** the bfloat16 weight store, the rounding of the update $\hat\Delta_t$ itself,
  the initial weights, the updates ($\sigma=1$), and the float32 arithmetic of the sum.
- **Prediction:** by \cref{mech:chain}, keeping what is rounded away (link 3) removes the drift
  along $U$; centered rounding (link 2) leaves a random walk. The rounding of the update itself
  is not changed, so if it mattered, neither arm would remove the drift.
""", "experiment", kind="intervention", validates=["clm:main", "mech:chain"]),
    code(INTERVENTION_CODE, "experiment", label="fig:intervention", kind="intervention",
         validates=["clm:main", "mech:chain"],
         caption=r"Validates \cref{clm:main} by intervention (seed 0; all seeds in "
                 r"\cref{tab:intervention}): the same updates on the same bfloat16 weights drift "
                 r"along $U$ with round-to-nearest, stay near the level of a rounding gap with "
                 r"the Kahan-compensated update, and wander with stochastic rounding."),
    code(INTERVENTION_TABLE_CODE, "experiment", label="tab:intervention", kind="intervention",
         validates=["clm:main"],
         caption=r"The intervention of \cref{fig:intervention} after $T=2000$ steps, mean "
                 r"$\pm$ standard deviation over five seeds: changing only the rounding of the "
                 r"weight update removes the drift along $U$."),
    md(r"""
With round-to-nearest the weights keep $32\%$ of the persistent update along $U$ and drift by
$-43.43\pm1.04$. The compensated update keeps $0.9999\pm0.0002$ of it, and its drift along $U$,
$-0.007\pm0.016$, has no consistent sign; per seed it is $1256$ to $13454$ times smaller in
magnitude than with round-to-nearest, and the drift across $U$ falls from $14.17$ to $0.118$.
Stochastic rounding keeps $0.9960\pm0.0079$; its drift along $U$ ($-0.254\pm0.505$) is a random
walk rather than a bias, and across $U$ it is larger ($3.789$), the price of centered but noisy
rounding. The update itself is rounded to bfloat16 in all three arms, so it is the rounding of
the weight update that causes the drift.
""", "result"),
    md(r"""
# A small Transformer

The simulation above draws its updates from a model. We now let a Transformer produce them.
\citet{bahdanau2015neural} introduced attention; we use the causal self-attention of
\citet{vaswani2017attention}: one layer, one head, token and position embeddings, a residual
stream and an unembedding ($5504$ parameters), trained with Adam [@kingma2015adam] to predict
the token two positions back, a task that needs attention. Four arms share the initial weights
and the batches of each seed: float32 throughout; bfloat16 weights, activations, gradients and
updates with a round-to-nearest weight update; the same with the Kahan-compensated weight update;
and the same with stochastic rounding of the weight update. The learning rate
$\eta=3\cdot10^{-4}$ is constant.
""", "experiment", kind="intervention", validates=["cor:adam", "clm:transformer"]),
    md(r"""
In pure-bfloat16 Adam training of this Transformer, the weights that \cref{cor:adam} and the
first step single out before training stay frozen for the whole run under round-to-nearest, and
the training loss stalls well above the float32 loss; replacing only the weight update by a
compensated update, with activations, gradients and the update itself still rounded to bfloat16,
brings the loss back to the float32 loss of the same seed.
""", "claim", label="clm:transformer", title="The failure in a Transformer"),
    md(r"""
This is the mechanism of \cref{clm:main} in a real training loop: here the updates come from
backpropagation, not from a model of the updates, and all other roundings of bfloat16 training
stay in place. The prediction could fail in two ways: Adam's steps could exceed $\eta$ often
enough to move the weights that the first step leaves, or the rounding of activations and
gradients could hurt training by itself, so that fixing the update would not be enough.
""", "interpretation"),
    code(TRANSFORMER_CODE, "experiment", label="fig:transformer", kind="intervention",
         validates=["cor:adam", "clm:transformer"],
         caption=r"Validates \cref{clm:transformer} and \cref{cor:adam}. Left: training loss, "
                 r"mean over five seeds with the range shaded; round-to-nearest stalls, the "
                 r"Kahan and stochastic-rounding arms follow float32. Right: fraction of weights "
                 r"not yet moved, mean over seeds, with the fractions predicted before training "
                 r"(solid: $s/2>\eta$; dashed: the sure bound of \cref{cor:adam})."),
    code(TRANSFORMER_TABLE_CODE, "experiment", label="tab:transformer", kind="intervention",
         validates=["cor:adam", "clm:transformer"],
         caption=r"The Transformer of \cref{fig:transformer} after $250$ Adam steps, mean "
                 r"$\pm$ standard deviation over five seeds: final loss (mean of the last $25$ "
                 r"steps), its difference to the float32 run of the same seed, the fraction of "
                 r"the issued update that reached the weights, and the fraction of weights "
                 r"never changed."),
    md(r"""
Before training, the first-step criterion $s/2>\eta$ predicts that a fraction $0.552\pm0.005$ of
the weights stays where it is; under round-to-nearest the fraction never changed in $250$ steps
is $0.552\pm0.005$, within $0.0009$ of the prediction in every seed, so Adam's steps never
exceeded $\eta$ by enough to move them. The sure bound of \cref{cor:adam} ($K=7.27$) predicts
$0.050\pm0.001$ and holds in all five seeds, but it is loose by a factor of eleven. Frozen, the
bfloat16 weights keep $0.289\pm0.015$ of the issued update, and the loss stalls at
$3.269\pm0.079$ nats, $1.516\pm0.392$ above the float32 run of the same seed (the initial loss,
$3.997\pm0.108$, is above $\log 16$ because embeddings of unit scale give large initial logits).
With the Kahan-compensated weight update the loss ends $0.001\pm0.002$ from float32 in the same
seed, and with stochastic rounding $0.007\pm0.010$. The float32 loss itself varies across seeds
($1.753\pm0.462$): at this learning rate the task is only partly learned after $250$ steps, so we
compare arms within a seed. With the Kahan update, a step still leaves a fraction
$0.710$ of the weights unchanged on average (against $0.831$ with round-to-nearest), yet almost every weight moves at some point:
the buffer carries the lost part until it is large enough to be stored.
""", "result"),
    md(r"""
# Discussion

For Transformer training this locates one failure in one place and makes it predictable. Given
the learning rate and the stored weights, \cref{cor:adam} and the first-step fraction say how
much of a layer round-to-nearest bfloat16 training can move at all; in our Transformer the
first-step fraction predicted the frozen weights of the whole run. The remedy is local: a
compensated or stochastically rounded weight update, not a float32 copy of every tensor, as
\citet{zamirai2020revisiting} found empirically. The same reasoning suggests where to expect the
failure in larger runs: late in a learning-rate schedule, when steps shrink below the gaps of
the larger weights, and first in the weights of largest magnitude, such as embeddings.
""", "implication"),
    md(r"""
The derivation is exact only in the small-update regime; outside it we measure rather than
prove, and the growth exponents we report hold for our setting, not in general. The bit-level
simulation uses one $32\times 32$ matrix with a rank-one persistent direction and bounded noise.
The Transformer is tiny (one attention layer, $5504$ parameters, $250$ steps), uses a
constant learning rate chosen so that most weights sit in the stagnation regime, and keeps
Adam's moments in float32; we did not test schedules, larger models, or bfloat16 optimizer
state. The sure bound of \cref{cor:adam} is loose by an order of magnitude here; the accurate
prediction came from the first-step fraction, whose validity rests on Adam's steps not
exceeding $\eta$, which we measured but did not prove.
""", "limitations"),
    md(r"""
Natural next steps are to predict the freeze fraction along a learning-rate schedule in a larger
bfloat16 run, to measure the alignment between rounding errors and the gradient subspace of a
trained model, and to decide from update statistics alone which layers need a compensated
update.
""", "future"),
    md(r"""
# Conclusion

We asked which weights round-to-nearest freezes in bfloat16 training and whether changing only
the weight update removes the failure. Stagnation, known from floating-point summation and
low-precision training, holds on every sample path (\cref{thm:drift}); with a persistent
update direction the lost update points along it; for Adam a freeze criterion follows from the
learning rate and the initial weights (\cref{cor:adam}). In a small Transformer with every
operation rounded, the predicted weights froze and a compensated weight update alone recovered
the float32 loss in all five seeds (\cref{tab:transformer}).
""", "conclusion"),
    md(r"""
# Derivation of the drift

We prove \cref{thm:drift}. Fix an entry $(i,j)$ and write $w=(\hat W_0)_{ij}$,
$\delta_t=(\hat\Delta_t)_{ij}$. Suppose $(\hat W_t)_{ij}=w$. Since $|\delta_t|<s(w)/2$, the number
$w+\delta_t$ is closer to $w$ than to any other bfloat16 number, so
$\mathrm{fl}(w+\delta_t)=w$ and $(\hat W_{t+1})_{ij}=w$; by induction the stored weight never
changes. If every entry satisfies the hypothesis,
\begin{align}
D_T &= \hat W_0 - \Big(\hat W_0 + \sum_{t<T}\Delta_t\Big) = -\sum_{t<T}\Delta_t , \nonumber\\
\langle D_T, U\rangle &= -\eta\sqrt{mn}\sum_{t<T}c_t - \eta\sigma\sum_{t<T}\langle N_t,U\rangle ,
\nonumber\\
P_\perp D_T &= -\eta\sigma\sum_{t<T}P_\perp N_t , \nonumber
\end{align}
using $\langle U,U\rangle=1$ and $P_\perp U=0$. For \cref{cor:rates}: the $\langle N_t,U\rangle$ are
independent with mean $0$ and variance $\|U\|^2=1$, and
$\mathbb{E}\|P_\perp N_t\|^2=\mathbb{E}\|N_t\|^2-\mathbb{E}\langle N_t,U\rangle^2=mn-1$; the
$P_\perp N_t$ are independent and centered, so their squared norms add. Finally
$\cos(D_T,-U)=-\langle D_T,U\rangle/\|D_T\|$, and dividing numerator and denominator by $T$ and
applying the strong law gives the limit $1$.
""", "appendix", label="app:derivation"),
]

META = {
    "title": "When bfloat16 Weights Stop Learning: Stagnation of Round-to-Nearest Updates, "
             "from a Bit-Level Model to a Small Transformer",
    "authors": ["A. Researcher", "B. Numericist"],
    "lang": "en",
    "paper_type": "failure",
    "bibliography": "failure_paper.bib",
}


def build():  # type: ignore[no-untyped-def]
    """The notebook, not yet executed."""
    return notebook(CELLS, META)


if __name__ == "__main__":
    target = output_dir(f"Build and execute {OUT.name}, the failure example paper.") / OUT.name
    execute_and_write(build(), target)
    print(f"wrote {target}")
