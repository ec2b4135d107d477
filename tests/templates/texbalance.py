"""A small TeX balance check for template text: braces, ``$``/``$$`` and environments.

Deliberately independent of the checker's scanner, so the templates are checked by a second,
simple reading of the rules in DESIGN.md §4 (balanced braces, ``$`` and environments).
"""

from __future__ import annotations

import re

_ESCAPED = re.compile(r"\\[\\{}$]")
_ENV = re.compile(r"\\(begin|end)\{([^}]*)\}")
_LINK_DEFINITION = re.compile(r"(?m)^ {0,3}\[[^\]]+\]:")


def tex_problems(text: str) -> list[str]:
    """What is unbalanced in ``text`` (empty when braces, dollars and environments balance)."""
    problems: list[str] = []
    plain = _ESCAPED.sub("", text)
    depth = 0
    for n, ch in enumerate(plain):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                problems.append(f"unmatched '}}' at offset {n}")
                depth = 0
    if depth:
        problems.append(f"{depth} unclosed '{{'")
    if plain.count("$$") % 2:
        problems.append("odd number of '$$'")
    if plain.replace("$$", "").count("$") % 2:
        problems.append("odd number of '$'")
    stack: list[str] = []
    for m in _ENV.finditer(plain):
        kind, name = m.groups()
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            problems.append(f"\\end{{{name}}} without matching \\begin")
    problems += [f"\\begin{{{name}}} never ended" for name in stack]
    if plain.count("\\left") != plain.count("\\right"):
        problems.append("\\left and \\right do not pair up")
    if _LINK_DEFINITION.search(text):
        problems.append("a line starting with '[slot]:' would be read as a markdown link "
                        "definition and vanish")
    return problems
