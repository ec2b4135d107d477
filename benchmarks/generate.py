"""Generate benchmark notebooks: half markdown with math, a quarter code with text output, a
quarter code with image outputs (a real PNG), all with mechnb roles and labels.

``python benchmarks/generate.py 400 out.ipynb`` writes one; ``make_notebook(n)`` returns the dict.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

SIZES = (100, 400, 1600, 6400)

_TEXT_ROLES = ("context", "setup", "definition", "formula", "theorem", "interpretation", "proof",
               "result", "mechanism", "remark")


def png(width: int = 320, height: int = 240) -> bytes:
    """A deterministic RGB PNG (a plot-like gradient with curves), about the size of a small
    matplotlib figure."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            on_curve = abs((x * x // 300 + y * 7 // 5) % 97 - 48) < 2
            shade = 255 if not on_curve else 30
            row += bytes((shade, (x * 255 // width + y) % 256 if on_curve else shade,
                          (y * 255 // height) if on_curve else shade))
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def _meta(role: str | None, **fields: Any) -> dict[str, Any]:
    if role is None:
        return {}
    return {"mechnb": {"role": role, **fields}, "tags": [f"mech:{role}"]}


def _markdown(i: int) -> dict[str, Any]:
    role = _TEXT_ROLES[i % len(_TEXT_ROLES)]
    label = f"eq:b{i}"
    source = (
        f"## Step {i}\n\n"
        f"The attention weight $a_{{ij}} = \\operatorname{{softmax}}_j(q_i^\\top k_j/\\sqrt{{d}})$ "
        f"concentrates when the logit gap $\\Delta_{i}$ grows; see \\eqref{{{label}}} and "
        f"**Lemma {i}** with *emphasis*, `code_{i}` and 100% of the mass.\n\n"
        f"$$\n\\sum_{{j=1}}^{{n}} a_{{ij}} = 1, \\qquad a_{{i j^\\star}} \\ge "
        f"\\frac{{e^{{\\Delta_{i}}}}}{{e^{{\\Delta_{i}}} + n - 1}} \\label{{{label}}}\n$$\n\n"
        f"Here, $n$ denotes the context length and $\\Delta_{i}$ the gap.\n\n"
        f"- first point with $x_{i}^2$\n- second point [@ref{i % 7}]\n")
    return {"cell_type": "markdown", "id": f"m{i}", "metadata": _meta(role),
            "source": source}


def _code_text(i: int) -> dict[str, Any]:
    return {"cell_type": "code", "id": f"c{i}", "execution_count": i, "metadata": {},
            "source": f"loss_{i} = train_step(model, batch_{i})\nprint(loss_{i})",
            "outputs": [{"output_type": "stream", "name": "stdout",
                         "text": [f"step {i}: loss = {1.0 / (i + 1):.6f}\n"] * 3}]}


def _code_image(i: int, image: str) -> dict[str, Any]:
    return {"cell_type": "code", "id": f"f{i}", "execution_count": i,
            "metadata": _meta("figure", label=f"fig:b{i}", validates=[f"eq:b{i - 1}"],
                              caption=f"Validates \\eqref{{eq:b{i - 1}}}: attention mass "
                                      f"against the logit gap $\\Delta$ (run {i})."),
            "source": f"fig, ax = plt.subplots()\nax.plot(gaps, mass_{i})\nplt.show()",
            "outputs": [{"output_type": "display_data", "metadata": {},
                         "data": {"image/png": image,
                                  "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}]}


def make_notebook(n_cells: int) -> dict[str, Any]:
    """A notebook of ``n_cells`` cells in the mix of the DESIGN.md §6 benchmark."""
    image = base64.b64encode(png()).decode("ascii")
    cells: list[dict[str, Any]] = []
    for i in range(n_cells):
        slot = i % 4
        if slot in (0, 1):
            cells.append(_markdown(i))
        elif slot == 2:
            cells.append(_code_text(i))
        else:
            cells.append(_code_image(i, image))
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"},
                         "language_info": {"name": "python"},
                         "mechnb": {"title": f"Benchmark paper with {n_cells} cells",
                                    "authors": ["Bench Mark"], "lang": "en",
                                    "bibliography": "bench.bib"}}}


def bib() -> str:
    """The bibliography the benchmark notebooks cite."""
    return "".join(f"@article{{ref{k},\n  title={{Reference {k}}},\n  author={{Author, A.}},\n"
                   f"  journal={{J}},\n  year={{2020}}\n}}\n\n" for k in range(7))


def write(n_cells: int, path: Path) -> Path:
    """Write the ``n_cells`` notebook (and its ``bench.bib``) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_notebook(n_cells), indent=1), "utf-8")
    (path.parent / "bench.bib").write_text(bib(), "utf-8")
    return path


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(f"bench_{n}.ipynb")
    print(write(n, target))
