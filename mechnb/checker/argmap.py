"""The argument map: an SVG picture of gap → lens → definitions → theorems → interpretations →
validations → implication, with the open ends drawn red and dashed.

Hand-written SVG (no graphviz): one column per stage, nodes in notebook order, edges from the
relations the checker already knows (references, interpretation, closure). All text is escaped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from ..findings import Finding, Severity
from ..notebook import Paper
from ..roles import get_role
from .document import Document

STAGES: tuple[tuple[str, frozenset[str]], ...] = (
    ("gap", frozenset({"gap", "question"})),
    ("lens", frozenset({"lens"})),
    ("definitions & formulas", frozenset({"setup", "definition", "assumption", "formula",
                                          "mechanism"})),
    ("theorems & claims", frozenset({"theorem", "lemma", "proposition", "corollary", "claim"})),
    ("interpretations", frozenset({"interpretation"})),
    ("validations", frozenset({"proof", "experiment", "figure", "result"})),
    ("implication", frozenset({"implication", "limitations"})),
)
STAGE_OF = {role: i for i, (_, roles) in enumerate(STAGES) for role in roles}
# Findings that mark the cell as an open end of the argument.
OPEN_CODES = frozenset({"MECH003", "MECH004", "MECH007", "MECH008", "MECH009", "MECH010",
                        "MECH011", "MECH012", "MECH018", "MECH019", "MECH020"})
WIDTH, HEIGHT, COL_GAP, ROW_GAP, TOP, LEFT = 176, 58, 44, 12, 44, 12


@dataclass
class Node:
    """One box of the map."""

    key: str
    stage: int
    title: str
    subtitle: str
    label: str = ""
    cell: int | None = None
    cell_id: str | None = None
    open_end: bool = False
    ghost: bool = False
    notes: list[str] = field(default_factory=list)
    x: float = 0
    y: float = 0


@dataclass(frozen=True)
class Edge:
    """An arrow between two nodes; ``open_end`` draws it red and dashed."""

    source: str
    target: str
    open_end: bool = False


_REF = re.compile(r"\\(?:c|C|eq|auto|page)?ref\*?\{([^{}]*)\}")


_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ",
    "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Sigma": "Σ",
    "Phi": "Φ", "Omega": "Ω", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠",
    "ne": "≠", "approx": "≈", "sim": "∼", "to": "→", "rightarrow": "→", "infty": "∞",
    "in": "∈", "times": "×", "cdot": "·", "sum": "Σ", "prod": "∏", "partial": "∂",
    "nabla": "∇", "ll": "≪", "gg": "≫", "log": "log", "exp": "exp", "%": "%", "&": "&",
    "_": "_", "#": "#", "$": "$",
}
_WRAPPER = re.compile(r"\\(?:text(?:bf|it|tt|rm|sf)?|emph|math(?:bf|rm|it|cal|bb|sf|tt|frak)|"
                      r"operatorname|boldsymbol|bm|mbox|hat|bar|tilde|vec|widehat|overline)"
                      r"\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+|[%&_#$])")


def plain_text(text: str) -> str:
    """Markdown with LaTeX as a person reads it in a tooltip: math typeset as text
    (``$\\gamma \\le 1$`` → ``γ ≤ 1``), references by their label, no markup. Light on
    purpose (no parser): the check path stays fast."""
    text = _REF.sub(lambda m: m.group(1), text)
    for _ in range(4):  # nested wrappers, innermost first
        text, n = _WRAPPER.subn(lambda m: m.group(1), text)
        if not n:
            break
    text = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), text)
    text = text.replace("$", "").replace("`", "").replace("**", "").replace("{", "") \
        .replace("}", "")
    return " ".join(text.split())


def _snippet(text: str, limit: int = 28) -> str:
    line = plain_text(text.replace("#", " "))
    return line if len(line) <= limit else line[:limit - 1] + "…"


def build_graph(paper: Paper, findings: Sequence[Finding]) -> tuple[list[Node], list[Edge]]:
    """The nodes and edges of the map (layout not yet applied)."""
    doc = Document(paper)
    by_cell: dict[int, list[Finding]] = {}
    for f in findings:
        if f.cell is not None and f.severity != Severity.INFO:
            by_cell.setdefault(f.cell, []).append(f)
    nodes: dict[str, Node] = {}
    for c in paper.cells:
        stage = STAGE_OF.get(c.role or "")
        if stage is None:
            continue
        head = c.role or ""
        if c.role == "experiment" and c.kind:
            head = f"experiment · {c.kind}"
        own = by_cell.get(c.index, [])
        nodes[f"c{c.index}"] = Node(
            key=f"c{c.index}", stage=stage, title=head, label=c.label or f"cell {c.index + 1}",
            subtitle=_snippet(c.title or c.caption or c.source) or "(empty)",
            cell=c.index, cell_id=c.id, open_end=any(f.code in OPEN_CODES for f in own),
            notes=[f"{f.code} {plain_text(f.message)}" for f in own])
    edges: list[Edge] = []

    def keys(stage: int) -> list[str]:
        return [k for k, n in nodes.items() if n.stage == stage]

    def ghost(key: str, stage: int, title: str, note: str) -> str:
        nodes[key] = Node(key=key, stage=stage, title=title, subtitle="missing", label="",
                          open_end=True, ghost=True, notes=[note])
        return key

    present = doc.roles_present()
    for role, stage in (("gap", 0), ("lens", 1)):
        if role not in present:
            ghost(f"missing-{role}", stage, f"no {role}", f"the paper states no {role}")
    for g in keys(0):
        for lens in keys(1):
            edges.append(Edge(g, lens, nodes[g].ghost or nodes[lens].ghost))
    statements = [n for n in nodes.values() if n.stage == 3]
    formal = keys(2)
    for lens in keys(1):
        for k in formal or [s.key for s in statements]:
            edges.append(Edge(lens, k, nodes[lens].ghost))
    label_node = {paper.cells[n.cell].label: n.key for n in nodes.values()
                  if n.cell is not None and paper.cells[n.cell].label}
    for k in formal:
        node = nodes[k]
        assert node.cell is not None
        label = paper.cells[node.cell].label
        users = [s for s in statements if label and s.cell in doc.referenced.get(label, ())]
        if not users:  # positional: the next statement uses what came before it
            users = [s for s in statements if s.cell is not None and s.cell > node.cell][:1]
        edges += [Edge(k, s.key) for s in users]
    for s in statements:
        assert s.cell is not None
        cell = paper.cells[s.cell]
        role_record = get_role(cell.role or "")
        obligations = set(role_record.obligations) if role_record is not None else set()
        interp = doc.interpretation_of(cell)
        if interp is not None and f"c{interp.index}" in nodes:
            edges.append(Edge(s.key, f"c{interp.index}"))
        elif "needs-interpretation" in obligations and doc.in_main_text(cell):
            edges.append(Edge(s.key, ghost(f"no-interp-{s.key}", 4, "no interpretation",
                                           f"{s.title} is never interpreted"), True))
        # each validation hangs off the statement it closes (not off its interpretation: with
        # several statements that drew every interpretation to every validation)
        origin = s.key
        closers = doc.closure_of(cell)
        for closer in closers:
            key = f"c{closer.index}"
            if key in nodes and key not in (s.key, origin):
                edges.append(Edge(origin, key))
        if not closers and "needs-closure" in obligations:
            edges.append(Edge(origin, ghost(f"no-closure-{s.key}", 5, "no validation",
                                            f"{s.title} has no proof or experiment"), True))
    for k in formal:  # e.g. an intervention that validates the mechanism itself
        node = nodes[k]
        assert node.cell is not None
        label = paper.cells[node.cell].label
        for v in doc.validated_by.get(label or "", []):
            if f"c{v.index}" in nodes:
                edges.append(Edge(k, f"c{v.index}"))
    last_experiment: str | None = None
    for c in paper.cells:  # a result reads the experiment before it
        if c.role == "experiment" and f"c{c.index}" in nodes:
            last_experiment = f"c{c.index}"
        elif c.role == "result" and last_experiment and f"c{c.index}" in nodes:
            edges.append(Edge(last_experiment, f"c{c.index}"))
    for c in paper.cells:  # validations of labels whose statement is not a node
        for label in c.validates:
            if label not in label_node and label not in doc.labels and f"c{c.index}" in nodes:
                nodes[f"c{c.index}"].open_end = True
    implications = keys(6)
    validations = {e.target for e in edges if nodes[e.target].stage == 5
                   and not nodes[e.target].ghost}
    if implications:
        edges += [Edge(v, implications[0]) for v in sorted(validations, key=_order(nodes))]
    else:
        ghost("missing-implication", 6, "no implication", "the paper states no implication")
    if "MECH006" in {f.code for f in findings}:
        ghost("missing-intervention", 5, "no intervention",
              "a mechanism paper should change only the mechanism and watch the effect")
    if "limitations" not in present:
        ghost("missing-limitations", 6, "no limitations", "the paper states no limitations")
    edges = _merge_experiments(paper, nodes, edges)
    unique = list(dict.fromkeys(edges))
    return sorted(nodes.values(), key=lambda n: (n.stage, _order(nodes)(n.key))), unique


def _merge_experiments(paper: Paper, nodes: dict[str, Node], edges: list[Edge]) -> list[Edge]:
    """One node per validation: an experiment's text cell and its code cell (consecutive
    ``experiment``/``figure`` cells validating the same labels with the same kind, as
    ``%mech validate`` inserts them) become one box — the code cell's, which carries the
    figure's label — so a statement gets one edge per experiment, not one per cell."""
    alias: dict[str, str] = {}
    group: list[int] = []

    def close() -> None:
        if len(group) > 1:
            keep = next((i for i in group if not paper.cells[i].is_markdown), group[-1])
            for i in group:
                if i != keep:
                    alias[f"c{i}"] = f"c{keep}"
        group.clear()

    for c in paper.cells:
        if c.role in ("experiment", "figure") and f"c{c.index}" in nodes and c.validates:
            if group:
                first = paper.cells[group[0]]
                has_code = any(not paper.cells[i].is_markdown for i in group)
                if (first.validates, first.kind) != (c.validates, c.kind) or has_code:
                    close()  # another validation, or the text of the next experiment
            group.append(c.index)
        elif c.is_markdown:
            close()  # a result or any other text ends the experiment
        # a code cell that validates nothing (a settings table, a helper) lies in between
    close()
    for old, new in alias.items():
        gone = nodes.pop(old)
        kept = nodes[new]
        kept.open_end = kept.open_end or gone.open_end
        kept.notes = [*gone.notes, *kept.notes]
        if kept.subtitle in ("(empty)", "") or kept.subtitle.startswith("#"):
            kept.subtitle = gone.subtitle
    out = []
    for e in edges:
        e2 = Edge(alias.get(e.source, e.source), alias.get(e.target, e.target), e.open_end)
        if e2.source != e2.target:
            out.append(e2)
    return out


def _order(nodes: dict[str, Node]) -> Callable[[str], tuple[int, int]]:
    def key(k: str) -> tuple[int, int]:
        n = nodes[k]
        return (1, 0) if n.cell is None else (0, n.cell)
    return key


def render_svg(nodes: list[Node], edges: list[Edge], title: str = "") -> str:
    """The SVG document for laid-out ``nodes`` and ``edges``."""
    from importlib import resources

    rows: dict[int, int] = {}
    for n in nodes:
        row = rows.get(n.stage, 0)
        rows[n.stage] = row + 1
        n.x = LEFT + n.stage * (WIDTH + COL_GAP)
        n.y = TOP + row * (HEIGHT + ROW_GAP)
    width = LEFT * 2 + len(STAGES) * WIDTH + (len(STAGES) - 1) * COL_GAP
    height = TOP + max(rows.values(), default=1) * (HEIGHT + ROW_GAP) + 24
    css = resources.files("mechnb.checker").joinpath("argmap.css").read_text("utf-8")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="mechnb-argmap" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{escape(title or "argument map", quote=True)}">',
           f"<title>{escape(title or 'argument map')}</title>",
           f"<style><![CDATA[\n{css.replace(']]>', '')}]]></style>",
           '<defs><marker id="mechnb-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
           'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>']
    for i, (name, _) in enumerate(STAGES):
        x = LEFT + i * (WIDTH + COL_GAP) + WIDTH / 2
        out.append(f'<text class="stage" x="{x:.0f}" y="22" text-anchor="middle">'
                   f"{escape(name)}</text>")
    where = {n.key: n for n in nodes}
    for e in edges:
        a, b = where.get(e.source), where.get(e.target)
        if a is None or b is None:
            continue
        x1, y1 = a.x + WIDTH, a.y + HEIGHT / 2
        x2, y2 = b.x, b.y + HEIGHT / 2
        if b.stage <= a.stage:  # same or earlier column: loop around the right-hand side
            x2 = b.x + WIDTH
            bend = 40.0
            d = f"M{x1:.0f},{y1:.0f} C{x1 + bend:.0f},{y1:.0f} {x2 + bend:.0f},{y2:.0f} " \
                f"{x2:.0f},{y2:.0f}"
        else:
            dx = (x2 - x1) / 2
            d = f"M{x1:.0f},{y1:.0f} C{x1 + dx:.0f},{y1:.0f} {x2 - dx:.0f},{y2:.0f} " \
                f"{x2:.0f},{y2:.0f}"
        cls = "edge open" if e.open_end else "edge"
        out.append(f'<path class="{cls}" d="{d}" marker-end="url(#mechnb-arrow)"/>')
    for n in nodes:
        cls = "node" + (" open" if n.open_end else "") + (" ghost" if n.ghost else "")
        attrs = f' data-mechnb-cell-index="{n.cell}"' if n.cell is not None else ""
        if n.cell_id:  # the extension selects the cell when the box is clicked
            attrs += f' data-mechnb-cell-id="{escape(n.cell_id, quote=True)}"'

        tip = "\n".join([f"cell {n.cell + 1}" if n.cell is not None else "missing", *n.notes])
        out.append(f'<g class="{cls}"{attrs}><title>{escape(tip)}</title>'
                   f'<rect x="{n.x:.0f}" y="{n.y:.0f}" width="{WIDTH}" height="{HEIGHT}" '
                   f'rx="6"/>'
                   f'<text class="head" x="{n.x + 8:.0f}" y="{n.y + 16:.0f}">'
                   f"{escape(_snippet(n.title, 28))}</text>"
                   f'<text class="label" x="{n.x + 8:.0f}" y="{n.y + 32:.0f}">'
                   f"{escape(_snippet(n.label, 30))}</text>"
                   f'<text class="sub" x="{n.x + 8:.0f}" y="{n.y + 48:.0f}">'
                   f"{escape(n.subtitle)}</text></g>")
    legend_y = height - 8
    out.append(f'<text class="legend" x="{LEFT}" y="{legend_y}">red dashed = open end of the '
               f"argument (hover a box for the finding)</text>")
    out.append("</svg>")
    return "\n".join(out)


def argument_map_json(paper: Paper, findings: Sequence[Finding]) -> dict[str, object]:
    """The map as data for a frontend that draws it itself (``GET /mechnb/argmap?format=json``)::

        {"stages": ["gap", "lens", …],
         "nodes": [{"key", "stage", "title", "subtitle", "label", "cell", "cell_id",
                    "open_end", "ghost", "notes", "x", "y", "width", "height"}],
         "edges": [{"source", "target", "open_end"}]}

    ``x``/``y`` are the SVG's layout (top-left of each box, ``width``×``height`` px); one edge
    per relation: a statement to each validation that closes it (an experiment's text and
    code cells are one node), a statement to its interpretation."""
    nodes, edges = build_graph(paper, findings)
    render_svg(nodes, edges)  # lays the nodes out
    return {"stages": [name for name, _ in STAGES],
            "nodes": [{"key": n.key, "stage": n.stage, "title": n.title,
                       "subtitle": plain_text(n.subtitle), "label": n.label, "cell": n.cell,
                       "cell_id": n.cell_id, "open_end": n.open_end, "ghost": n.ghost,
                       "notes": list(n.notes), "x": n.x, "y": n.y, "width": WIDTH,
                       "height": HEIGHT} for n in nodes],
            "edges": [{"source": e.source, "target": e.target, "open_end": e.open_end}
                      for e in edges]}


def argument_map_svg(paper: Paper, findings: Sequence[Finding]) -> str:
    """The argument map of ``paper`` as an SVG string (``findings`` mark the open ends)."""
    nodes, edges = build_graph(paper, findings)
    return render_svg(nodes, edges, paper.meta.title or paper.display_name)


def write_argument_map(paper: Paper, findings: Sequence[Finding],
                       path: str | os.PathLike[str]) -> Path:
    """Write the SVG atomically to ``path``; raises ``OSError`` if it cannot."""
    from ..files import atomic_write

    target = Path(path)
    atomic_write(target, argument_map_svg(paper, findings).encode("utf-8"))
    return target
