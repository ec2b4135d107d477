"""The generated parts of the documentation site (``make docs``; ``mkdocs.yml`` loads this file).

* ``docs/reference/rules.md``: the rule table between its markers comes from the registry
  (``mechnb.checker.report.rule_table_markdown``) and ``docs/guide/latex-in.md``'s per-rule table
  from ``mechnb.latexin.check.rule_table_markdown``. These pages are committed (they read well on
  GitHub too); ``python scripts/docs_site.py`` rewrites the tables, ``--check`` only says whether
  they are stale (tests/docs/test_docs_site.py keeps them in sync).
* ``reference/cli.md``: the CLI reference, made at build time from ``mechnb.cli``'s argparse
  parsers (every subcommand, every option), so it never goes stale.
* ``changelog.md``: ``CHANGELOG.md`` of the repository, at build time.

As an MkDocs hook (``hooks:`` in ``mkdocs.yml``): ``on_files`` adds the generated pages,
``on_page_markdown`` unescapes pipes in table code spans.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
RULES_PAGE = DOCS / "reference" / "rules.md"
LATEX_PAGE = DOCS / "guide" / "latex-in.md"
LATEX_START = "<!-- latex-rules:start (generated from mechnb.latexin.check.LATEX_RULES) -->"
LATEX_END = "<!-- latex-rules:end -->"
PRECISION = REPO / "benchmarks" / "data" / "precision.json"
PRECISION_START = "<!-- precision:start (generated from benchmarks/data/precision.json) -->"
PRECISION_END = "<!-- precision:end -->"


def _replace_block(text: str, start: str, end: str, block: str) -> str:
    """``text`` with everything from ``start`` to ``end`` (both kept) replaced by ``block``,
    which itself begins with ``start`` and ends with ``end``."""
    i = text.index(start)
    j = text.index(end, i) + len(end)
    return text[:i] + block + text[j:]


def generated_pages() -> dict[Path, str]:
    """The committed pages as they should be: {path: text}."""
    from mechnb.checker.report import RULE_TABLE_END, RULE_TABLE_START, rule_table_markdown
    from mechnb.latexin.check import rule_table_markdown as latex_table

    rules = _replace_block(RULES_PAGE.read_text("utf-8"), RULE_TABLE_START, RULE_TABLE_END,
                           rule_table_markdown())
    rules = _replace_block(rules, PRECISION_START, PRECISION_END,
                           f"{PRECISION_START}\n\n{precision_table()}\n\n{PRECISION_END}")
    latex = _replace_block(LATEX_PAGE.read_text("utf-8"), LATEX_START, LATEX_END,
                           f"{LATEX_START}\n\n{latex_table()}\n\n{LATEX_END}")
    return {RULES_PAGE: rules, LATEX_PAGE: latex}


def precision_table() -> str:
    """Each labelled rule's measured precision (``make bench`` writes the figures), notebook and
    LaTeX input apart."""
    import json

    from mechnb.checker.rules import RULES
    from mechnb.latexin.check import INPUT_FINDINGS

    data = json.loads(PRECISION.read_text("utf-8")) if PRECISION.exists() else {}
    names = {r.code: r.name for r in RULES}
    names.update({code: slug for slug, (code, _) in INPUT_FINDINGS.items()})
    rows = ["| code | name | notebook | LaTeX input |", "|---|---|---|---|"]
    for code in sorted(data):
        cells = []
        for kind in ("notebook", "latex"):
            m = data[code].get(kind)
            cells.append("—" if m is None else
                         f"{m['precision']:.0%} of {m['n']} ({m['severity']})")
        rows.append(f"| {code} | `{names.get(code, '')}` | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def _cell(text: str) -> str:
    """Help text as one table cell: plain text, whatever Markdown would read in it escaped."""
    text = " ".join(text.split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        if action.choices is not None and action.metavar is None:
            metavar = " {" + ",".join(str(c) for c in action.choices) + "}"
        else:
            mv = action.metavar or action.dest.upper()
            metavar = f" {' '.join(mv) if isinstance(mv, tuple) else mv}"
    return ", ".join(f"`{s}{metavar}`" for s in action.option_strings)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    text = action.help
    if "%" in text:
        params = dict(vars(action), prog=parser.prog)
        if params.get("choices") is not None:
            params["choices"] = ", ".join(str(c) for c in params["choices"])
        with contextlib.suppress(KeyError, TypeError, ValueError):
            text = text % params
    return _cell(text)


def cli_markdown() -> str:
    """The CLI reference: each subcommand's description, usage and options, from argparse."""
    from mechnb.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = ["# CLI reference", "",
             "Generated from the command line's own parsers (`mechnb.cli`) when the site is built;",
             "`mechnb COMMAND --help` prints the same. Exit codes: `0` success, `1` the command",
             "failed or (for `check`) found errors, `2` unreadable input or wrong arguments.", "",
             "| command | what it does |", "|---|---|"]
    helps = {c.dest: c.help or "" for c in sub._choices_actions}
    for name in sub.choices:
        lines.append(f"| [`mechnb {name}`](#mechnb-{name}) | {_cell(helps.get(name, ''))} |")
    for name, p in sub.choices.items():
        usage = " ".join(p.format_usage().split())
        usage = usage[len("usage: "):] if usage.startswith("usage: ") else usage
        lines += ["", f"## mechnb {name}", "", _cell(p.description or helps.get(name, "")), "",
                  "```text", usage, "```", ""]
        positionals = [a for a in p._actions if not a.option_strings
                       and a.help != argparse.SUPPRESS]
        options = [a for a in p._actions if a.option_strings and a.help != argparse.SUPPRESS
                   and not isinstance(a, argparse._HelpAction)]
        if positionals or options:
            lines += ["| argument | meaning |", "|---|---|"]
            lines += [f"| {_flags(a)} | {_help(p, a)} |" for a in positionals + options]
    return "\n".join(lines) + "\n"


def on_files(files: Any, config: Any) -> Any:  # MkDocs hook
    from mkdocs.structure.files import File

    files.append(File.generated(config, "reference/cli.md", content=cli_markdown()))
    changelog = (REPO / "CHANGELOG.md").read_text("utf-8")
    files.append(File.generated(config, "changelog.md", content=changelog))
    return files


_CODE_SPAN = re.compile(r"`[^`\n]*`")


def on_page_markdown(markdown: str, **kwargs: Any) -> str:  # MkDocs hook
    """GitHub needs ``\\|`` for a pipe inside code in a table cell; Python-Markdown keeps the
    backslash (and does not split cells at a pipe inside code), so it goes at build time."""
    def unescape(m: re.Match[str]) -> str:
        return m.group().replace("\\|", "|")

    return "\n".join(_CODE_SPAN.sub(unescape, line) if line.startswith("|") else line
                     for line in markdown.split("\n"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="only report stale pages (exit 1)")
    args = parser.parse_args(argv)
    stale = [path for path, text in generated_pages().items()
             if path.read_text("utf-8") != text]
    for path in stale:
        if args.check:
            print(f"{path.relative_to(REPO)} is stale: run python scripts/docs_site.py")
        else:
            path.write_text(generated_pages()[path], "utf-8")
            print(f"rewrote {path.relative_to(REPO)}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
