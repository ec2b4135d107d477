"""The argument map: which boxes and arrows it draws, open ends, and a golden SVG."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from mechnb.checker import check
from mechnb.checker.argmap import argument_map_svg, build_graph
from mechnb.notebook import read_paper

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "checker"
SVG = "{http://www.w3.org/2000/svg}"


def _graph(path: Path) -> tuple[dict[str, tuple[str, str, bool]], set[tuple[str, str, bool]]]:
    paper = read_paper(path)
    nodes, edges = build_graph(paper, check(paper))
    titles = {n.key: (n.title, n.label, n.open_end) for n in nodes}
    return titles, {(titles[e.source][1] or e.source, titles[e.target][1] or e.target,
                     e.open_end) for e in edges}


def test_a_closed_paper_flows_from_gap_to_implication() -> None:
    nodes, edges = _graph(FIXTURES / "clean.ipynb")
    assert not any(open_end for _, _, open_end in nodes.values())
    assert ("cell 4", "cell 5", False) in edges                  # gap -> lens
    assert ("def:induction", "thm:main", False) in edges        # used definition -> theorem
    assert ("thm:main", "cell 13", False) in edges              # theorem -> interpretation
    assert ("thm:main", "cell 12", False) in edges              # theorem -> its proof
    assert ("thm:main", "fig:scores", False) in edges           # ... -> experiment validating it
    assert ("clm:remove", "exp:ablate", False) in edges         # claim -> its test
    assert ("fig:scores", "cell 20", False) in edges            # validation -> implication
    # an interpretation reads its statement; it closes nothing itself (issue 38)
    assert not any(a in ("cell 13", "cell 15") and b in ("cell 12", "fig:scores", "exp:ablate")
                   for a, b, _ in edges)


def test_open_ends_are_marked_and_missing_moves_get_ghost_boxes() -> None:
    nodes, edges = _graph(FIXTURES / "rules" / "MECH004-unclosed-statement" / "fires.ipynb")
    assert nodes["c10"] == ("theorem", "thm:main", True)
    assert ("no validation", "", True) in nodes.values()
    assert ("thm:main", "no-closure-c10", True) in edges
    nodes, _ = _graph(FIXTURES / "rules" / "MECH001-missing-required-role" / "fires.ipynb")
    ghosts = {title for title, label, open_end in nodes.values() if open_end and not label}
    assert ghosts == {"no gap", "no limitations"}
    nodes, _ = _graph(FIXTURES / "rules" / "MECH006-missing-intervention" / "fires.ipynb")
    assert ("no intervention", "", True) in nodes.values()


def test_svg_matches_the_golden_file() -> None:
    paper = read_paper(FIXTURES / "rules" / "MECH004-unclosed-statement" / "fires.ipynb")
    svg = argument_map_svg(paper, check(paper))
    golden = FIXTURES / "argmap" / "unclosed.svg"
    if os.environ.get("MECHNB_UPDATE_GOLDEN"):
        golden.write_text(svg, "utf-8")
    assert svg == golden.read_text("utf-8"), "regenerate with MECHNB_UPDATE_GOLDEN=1"
    root = ET.fromstring(svg)
    boxes = [g for g in root.iter(f"{SVG}g") if "node" in g.get("class", "")]
    clickable = [g for g in boxes if g.get("data-mechnb-cell-id")]
    assert len(clickable) == len([g for g in boxes if "ghost" not in g.get("class", "")])
    dashed = [p for p in root.iter(f"{SVG}path") if p.get("class") == "edge open"]
    assert len(dashed) == 1


def test_styles_are_scoped_to_the_report() -> None:
    # an SVG or HTML <style> inside notebook output applies to the whole JupyterLab page
    import re
    from importlib import resources

    for name, scope in (("argmap.css", ".mechnb-argmap"), ("report.css", ".mechnb-check")):
        css = re.sub(r"/\*.*?\*/", "", resources.files("mechnb.checker").joinpath(name)
                     .read_text("utf-8"), flags=re.S)
        for rule in re.findall(r"([^{}]+)\{", css):
            for selector in rule.split(","):
                assert selector.strip().startswith(scope), (name, selector)
