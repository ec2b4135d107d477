"""``%mech export [DIR] [--pdf] [--engine E] [--style S] [--bundle arxiv|overleaf] …``: export
the notebook the kernel runs in (its saved copy), with the options of ``mechnb export``."""

from __future__ import annotations

import argparse
import html
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import UsageError
from ..findings import Finding

if TYPE_CHECKING:
    from .bundle import BundleResult

USAGE = ("%mech export [DIR] [--pdf] [--engine pdflatex|xelatex|lualatex] [--style SPEC] "
         "[--bundle arxiv|overleaf] [--trust] [--force] [--include-code] [--annotate] "
         "[--template T] [--notebook PATH]")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"%mech export: {message}\nusage: {USAGE}")


def _parser() -> _Parser:
    p = _Parser(prog="%mech export", add_help=False)
    p.add_argument("output_dir", nargs="?")
    p.add_argument("--pdf", action="store_true")
    p.add_argument("--force", action="store_true")
    p.add_argument("--trust", action="store_true")  # typed by the user, never read from metadata
    p.add_argument("--include-code", action="store_true")
    p.add_argument("--annotate", action="store_true")
    p.add_argument("--template")
    p.add_argument("--notebook", help="export this notebook instead of the kernel's own")
    p.add_argument("--engine", choices=("pdflatex", "xelatex", "lualatex"))
    p.add_argument("--style")
    p.add_argument("--bundle", action="append", choices=("arxiv", "overleaf"))
    return p


@dataclass
class ExportReport:
    """What ``%mech export`` shows: the files written and the findings."""

    notebook: Path
    tex: Path | None
    pdf: Path | None
    findings: list[Finding] = field(default_factory=list)
    pdf_wanted: bool = False
    bundles: list[BundleResult] = field(default_factory=list)

    def _bundle_lines(self) -> list[tuple[str, Path | None, str]]:
        """(label, bundle path or None, why it is missing) per bundle asked for."""
        out: list[tuple[str, Path | None, str]] = []
        for b in self.bundles:
            label = "arXiv bundle" if b.kind == "arxiv" else "Overleaf project"
            why = "failed its check, not written — see the findings below" + (
                f" and {b.log}" if b.log else "")
            out.append((label, b.path, why))
        return out

    def summary(self) -> str:
        """``2 errors (1 undefined reference), 5 warnings`` — errors first; or all clear."""
        errors = [f for f in self.findings if f.severity.value == "error"]
        warnings = sum(f.severity.value == "warning" for f in self.findings)
        unresolved = sum(f.name in ("undefined-reference", "undefined-citation")
                         for f in errors)
        parts = []
        if errors:
            parts.append(f"{len(errors)} error{'s' if len(errors) != 1 else ''}" + (
                f" ({unresolved} undefined reference{'s' if unresolved != 1 else ''})"
                if unresolved else ""))
        if warnings:
            parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        return "Summary: " + (", ".join(parts) if parts else "no errors or warnings")

    def lines(self) -> list[str]:
        out = [f"Exported the saved copy of {self.notebook.name} "
               "(save the notebook first to include recent edits).", self.summary()]
        if self.tex:
            out.append(f"LaTeX: {self.tex}")
        if self.pdf:
            out.append(f"PDF: {self.pdf}")
        elif self.pdf_wanted:
            out.append("PDF: not produced — see the TeX findings below")
        out += [f"{label}: {path}" if path else f"{label}: {why}"
                for label, path, why in self._bundle_lines()]
        from ..checker.report import finding_lines

        out += finding_lines(self.findings, self.notebook.name,
                             list_hint="%mech check --verbose lists each")
        return out

    def __repr__(self) -> str:
        return "\n".join(self.lines())

    def _link(self, label: str, path: Path) -> str:
        """A link JupyterLab opens (relative to the notebook), else the plain path."""
        try:
            rel = os.path.relpath(path, self.notebook.parent)
        except ValueError:
            rel = ""
        text = html.escape(str(path))
        if rel and not rel.startswith(".."):
            href = html.escape(Path(rel).as_posix(), quote=True)
            text = f'<a href="{href}" target="_blank">{text}</a>'
        return f"<li>{label}: <code>{text}</code></li>"

    def _repr_html_(self) -> str:
        items = []
        if self.tex:
            items.append(self._link("LaTeX", self.tex))
        if self.pdf:
            items.append(self._link("PDF", self.pdf))
        elif self.pdf_wanted:
            items.append("<li>PDF: not produced — see the TeX findings below</li>")
        for label, path, why in self._bundle_lines():
            items.append(self._link(label, path) if path else
                         f"<li>{html.escape(label)}: {html.escape(why)}</li>")
        from ..checker.report import finding_lines

        items += [f"<li><code>{html.escape(line)}</code></li>"
                  for line in finding_lines(self.findings, self.notebook.name,
                                            list_hint="%mech check --verbose lists each")]
        return (f"<p>{html.escape(self.lines()[0])}<br><b>{html.escape(self.summary())}</b></p>"
                f"<ul>{''.join(items)}</ul>")


def mech_export(shell: Any, argv: list[str]) -> object | None:
    """Export the kernel's notebook; returns an ``ExportReport`` to display."""
    args = _parser().parse_args(argv)
    if args.notebook:
        path: Path | None = Path(args.notebook)
    else:
        from ..kernel.context import notebook_path

        path = notebook_path(shell)
    if path is None:
        raise UsageError(
            "%mech export cannot tell which notebook this kernel runs for (the frontend did not "
            "say, and no saved notebook in this folder holds this cell: save it with Ctrl+S and "
            "run again); or run `%mech export --notebook path/to/paper.ipynb`, or `mechnb export "
            "path/to/paper.ipynb` in a terminal")
    from ..notebook import read_paper
    from .api import export, output_directory, paper_findings
    from .styles import parse_style_argument

    style = parse_style_argument(args.style) if args.style else None
    paper = read_paper(path)
    checks = paper_findings(paper)

    def progress(line: str) -> None:
        """Each step as it happens (a TeX build takes seconds): a stream output of the cell."""
        print(line, flush=True)

    slow = args.pdf or bool(args.bundle)
    if slow:
        progress(f"exporting {path.name} …")
    result = export(paper, args.output_dir, pdf=args.pdf, force=args.force,
                    template=args.template, include_code=args.include_code,
                    annotations=checks if args.annotate else (), trust=args.trust,
                    engine=args.engine, style=style, progress=progress if slow else None)
    bundles: list[BundleResult] = []
    if args.bundle:
        from .bundle import build_bundles

        bundles = build_bundles(result, args.bundle, output_directory(paper, args.output_dir),
                                trust=args.trust, progress=progress)
    return ExportReport(notebook=path, tex=result.tex_path, pdf=result.pdf_path,
                        findings=checks + result.findings, pdf_wanted=args.pdf, bundles=bundles)
