"""The exporter's Python API: ``export(notebook, ...)`` and ``render(paper, ...)``.

Pipeline: ``read_paper`` → ``build_document`` (blocks remembering cells) → ``render_latex``
(template + environments from the role registry) → ``write_export`` (atomic, hand edits kept)
→ optionally ``compile_pdf``. The notebook is only read, never written.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ExportError, MechnbError
from ..findings import Finding, Severity
from ..notebook import Paper, paper_from_dict, read_paper
from ..paper_paths import resolve_in_folder
from ..tex.markers import line_cells, token_index
from .codes import export_finding
from .context import RenderCache, cache_disabled
from .document import ExportOptions, build_document, safe_stem
from .engines import (
    LUATEXJA_MISSING,
    NO_FONT,
    after_fallback,
    choose_engine,
    fallback_engine,
    lualatex_findings,
    missing_font_findings,
    outline_fallback,
    pdftex_findings,
    script_font_findings,
)
from .fallback import (
    MAX_FORMULAS_AS_CODE,
    definition_as_code,
    error_line,
    formula_as_code,
)
from .judged import rebase
from .latex import RenderedTex, render_latex
from .styles import Style, parse_style, resolve_style
from .writer import write_export

if TYPE_CHECKING:
    from ..tex.gate import Assessment
    from .pdf import PdfResult


@dataclass
class ExportResult:
    """The LaTeX draft and everything that came with it."""

    latex: str
    """The complete ``.tex`` text."""
    resources: dict[str, bytes]
    """Files the ``.tex`` needs, by path relative to it (figures, the ``.bib`` copy)."""
    findings: list[Finding]
    """Exporter findings (dropped outputs, missing files, TeX errors with ``pdf=True``)."""
    paper: Paper
    rendered: RenderedTex
    tex_path: Path | None = None
    """Where the ``.tex`` was written (``None`` when ``write=False``)."""
    pdf_path: Path | None = None
    """The compiled PDF (``pdf=True`` and TeX succeeded)."""
    log_path: Path | None = None
    citations: set[str] = field(default_factory=set)
    cache: RenderCache | None = None
    """The render cache used (saved next to the ``.tex`` by ``write_result``)."""
    engine: str = "pdflatex"
    """The TeX engine ``--pdf`` compiles with (``--engine``, metadata, or by language)."""
    style: Style | None = None
    """The venue style in use, if any."""
    trust_options: tuple[str, ...] = ()
    """The ``mechnb trust`` options that judge this same document (``--include-code`` …)."""

    @property
    def errors(self) -> list[Finding]:
        """The findings of severity ``error``."""
        return [f for f in self.findings if f.severity is Severity.ERROR]


def as_paper(notebook: str | os.PathLike[str] | Paper | Mapping[str, Any]) -> Paper:
    """Read ``notebook`` (a path, a ``Paper`` or notebook JSON already loaded)."""
    if isinstance(notebook, Paper):
        return notebook
    if isinstance(notebook, Mapping):
        return paper_from_dict(notebook)
    return read_paper(notebook)


def default_output_dir(paper: Paper) -> Path:
    """``build/<stem>/`` next to the notebook (``build/paper/`` for a stem of dots only:
    ``...ipynb`` would make it ``build/..``, the notebook's own folder)."""
    base = paper.path.parent if paper.path else Path.cwd()
    stem = paper.path.stem if paper.path else "paper"
    if not stem.strip("."):
        stem = safe_stem(stem)
    return base / "build" / stem


def output_directory(paper: Paper, output_dir: str | os.PathLike[str] | None) -> Path:
    """``output_dir``, or the default ``build/<stem>/`` next to the notebook."""
    return Path(output_dir) if output_dir is not None else default_output_dir(paper)


def notebook_files(names: Sequence[str], base: Path | None,
                   findings: list[Finding]) -> dict[str, bytes]:
    """The files ``metadata.mechnb.files`` names, read from the notebook's folder (inside it,
    regular files only) to go into the build folder; one that cannot be read is a finding."""
    from ..paper_paths import read_regular

    out: dict[str, bytes] = {}
    for name in names:
        rel = Path(name)
        path = None
        if base is not None and not rel.is_absolute() and ".." not in rel.parts:
            path, _why = resolve_in_folder(base, name)
        if path is None or not path.is_file():
            findings.append(export_finding("style-not-found", f"metadata.mechnb.files names "
                                           f"{name}, which is not a file in the notebook's "
                                           "folder; TeX will stop where the paper reads it"))
            continue
        try:
            out[rel.as_posix()] = read_regular(path)
        except OSError as exc:
            findings.append(export_finding("style-not-found",
                                           f"cannot read {name}: {exc.strerror or exc}"))
    return out


def render(paper: Paper, *, template: str | None = None, include_code: bool = False,
           annotations: Sequence[Finding] = (), cache: RenderCache | None = None,
           engine: str | None = None, style: Style | None = None) -> ExportResult:
    """Render ``paper`` to LaTeX in memory (nothing is written).

    ``cache`` (see ``RenderCache.load``) skips re-rendering markdown seen in an earlier export.
    ``engine`` and ``style`` override ``metadata.mechnb.engine`` / ``.style``. With pdfLaTeX,
    every character it cannot typeset is a finding at its cell; when nobody chose pdfLaTeX
    (no ``engine``, no metadata) the paper then compiles with XeLaTeX (``fallback_engine``).
    """
    requested_style, template_arg = style, template
    stem = paper.path.stem if paper.path else "paper"
    options = ExportOptions(include_code=include_code, files_dir=f"{safe_stem(stem)}_files")
    chosen = choose_engine(paper, engine)
    doc = build_document(paper, options, cache)
    base = paper.path.parent if paper.path else None
    findings = doc.findings
    resources = doc.resources
    if style is None:
        style, problems = parse_style(paper.meta.style)
        findings += [export_finding("invalid-style", f"metadata.mechnb.style: {p}")
                     for p in problems]
    if style is not None:
        found = resolve_style(style, base)
        findings += found.findings
        resources = {**found.files, **resources}
    if paper.meta.files:
        resources = {**notebook_files(paper.meta.files, base, findings), **resources}
    if template is None:  # the notebook's own choice: a built-in, or a file inside its folder
        template = notebook_template(paper, findings)
    rendered = render_latex(doc, template, annotations=annotations, base_dir=base, style=style)
    if chosen.name == "pdflatex":
        unsupported = pdftex_findings(rendered, {c.index: c.source for c in paper.cells})
        findings += unsupported
        chosen, note = fallback_engine(paper, engine, chosen, unsupported)
        if note is not None:
            findings[-len(unsupported):] = after_fallback(unsupported)
            findings.append(note)
        else:  # Cyrillic pdfLaTeX would draw as bitmaps here: outline fonts with XeLaTeX
            chosen, note = outline_fallback(paper, engine, chosen, rendered)
            if note is not None:
                findings.append(note)
    elif chosen.name == "lualatex":
        findings += lualatex_findings(rendered)
    if chosen.name != "pdflatex":
        findings += script_font_findings(rendered, {c.index: c.source for c in paper.cells})
        findings += missing_font_findings(rendered, {c.index: c.source for c in paper.cells})
    trust_options = (*(["--include-code"] if include_code else []),
                     *(["--template", template_arg] if template_arg else []),
                     *(["--engine", engine] if engine else []),
                     *(["--style", requested_style.spec] if requested_style is not None
                       and requested_style.spec else []))
    result = ExportResult(latex=rendered.text, resources=resources, findings=findings,
                          paper=paper, rendered=rendered, citations=doc.citations, cache=cache,
                          engine=chosen.name, style=style, trust_options=trust_options)
    if not annotations:
        from .judged import _options_key, remember

        remember(result, _options_key(requested_style, include_code, template_arg, engine))
    return result


def notebook_template(paper: Paper, findings: list[Finding]) -> str | None:
    """``metadata.mechnb.template`` when it is a built-in or a file inside the notebook's folder;
    otherwise a finding and ``None`` (the default template). A template given by the user
    (``--template``) is trusted as typed."""
    from .codes import export_finding
    from .latex import BUILTIN_TEMPLATES

    name = paper.meta.template
    if not name or name in BUILTIN_TEMPLATES:
        return name
    path, why = resolve_in_folder(paper.path.parent if paper.path else None, name)
    if path is None:
        slug = "invalid-path" if "valid path" in (why or "") else "resource-outside-paper"
        findings.append(export_finding(slug, f"template {name[:80]!r} {why}; the default "
                                       "template is used — put the template next to the notebook"))
        return None
    if not path.is_file():  # missing, a folder, a pipe: never opened
        findings.append(export_finding("invalid-path", f"template {name[:80]!r} is not a file "
                                       "next to the notebook; the default template is used"))
        return None
    return str(path)


class UntrustedTexError(ExportError):
    """``pdf=True`` on a notebook whose TeX could reach outside the paper, without ``trust``."""


def refuse_untrusted(result: ExportResult, *, engine: str) -> Assessment:
    """Raise ``UntrustedTexError`` unless the TeX gate lets ``result`` compile (DESIGN §2a).

    The gate judges ``result.latex`` and ``result.resources`` — exactly the text and the files
    the compile gets (``judged.judge_result``). Refused TeX (MECH022) never compiles; content
    that needs review (MECH079) compiles once this user approved it with ``mechnb trust``;
    LuaLaTeX (``engine``, required of every caller) never runs without a sandbox, approved or
    not (its Lua file functions ignore TeX's own limits). ``--trust`` is the one caller that
    skips this. Returns the verdict.
    """
    from ..tex.trust import describe, unapproved
    from .judged import judge_result

    paper = result.paper
    verdict = judge_result(result)
    if verdict.refused:
        first = verdict.refused[0]
        where = "the notebook" if first.cell is None else f"cell {first.cell + 1}"
        if first.cell is not None and first.offset is not None:
            line = paper.cells[first.cell].source.count("\n", 0, first.offset) + 1
            where += f" line {line}"
        if first.where:
            where += f" ({first.where})"
        more = f" (and {len(verdict.refused) - 1} more)" if len(verdict.refused) > 1 else ""
        raise UntrustedTexError(
            f"not compiled: {where} has TeX that could reach outside the paper{more}: "
            f"`{first.snippet}` {first.reason}; see `mechnb check`, or pass --trust if you "
            "wrote this TeX yourself")
    pending = unapproved(verdict)
    if pending:
        name = paper.path.name if paper.path else "the notebook"
        more = f" (and {len(pending) - 1} more)" if len(pending) > 1 else ""
        raise UntrustedTexError(
            f"not compiled: {describe(pending[0])}{more}; read it, then approve it with "
            f"`{shlex.join(['mechnb', 'trust', name, *result.trust_options])}` (or pass "
            "--trust once)")
    refuse_unsandboxed_lua(engine)
    return verdict


def refuse_unsandboxed_lua(engine: str) -> None:
    """``UntrustedTexError`` for LuaLaTeX where no sandbox runs it (approval does not lift this:
    Lua's ``io.open`` reads and writes anywhere whatever kpathsea's settings say)."""
    from .sandbox import use_sandbox

    if engine == "lualatex":
        boxed, how = use_sandbox()
        if not boxed:
            raise UntrustedTexError(
                f"not compiled: LuaLaTeX would run {how}, and its Lua file functions read and "
                "write anywhere whatever TeX's own limits say; compile with --engine pdflatex "
                "or xelatex, enable the sandbox (bubblewrap), or pass --trust")


def export(notebook: str | os.PathLike[str] | Paper | Mapping[str, Any],
           output_dir: str | os.PathLike[str] | None = None, *, pdf: bool = False,
           force: bool = False, template: str | None = None, include_code: bool = False,
           annotations: Sequence[Finding] = (), write: bool = True,
           progress: Callable[[str], None] | None = None, engine: str | None = None,
           style: Style | None = None, trust: bool = False) -> ExportResult:
    """Export a notebook to ``<output_dir>/<stem>.tex`` (+ figures, + PDF with ``pdf=True``).

    ``output_dir`` defaults to ``build/<stem>/`` next to the notebook; ``engine`` (``pdflatex``,
    ``xelatex``, ``lualatex``; default: metadata, else by language) compiles the PDF and
    ``style`` overrides ``metadata.mechnb.style``. A ``.tex`` edited by hand
    since the last export raises ``HandEditedError`` unless ``force``. With ``write=False``
    nothing touches the disk and the result carries the LaTeX text and resources only.
    With ``pdf=True`` the TeX gate (``mechnb.tex.gate``) must let the paper compile (nothing
    refused, needs-review content approved with ``mechnb trust``), else ``UntrustedTexError``
    is raised before anything is written — unless ``trust=True`` (say so only for a notebook
    whose TeX you wrote or reviewed).
    """
    paper = as_paper(notebook)
    cache = None
    if write and not cache_disabled():
        cache = RenderCache.load(output_directory(paper, output_dir))
    result = render(paper, template=template, include_code=include_code,
                    annotations=annotations, cache=cache, engine=engine, style=style)
    if write:
        write_result(result, output_dir, pdf=pdf, force=force, progress=progress,
                     engine=engine, trust=trust)
    return result


def write_result(result: ExportResult, output_dir: str | os.PathLike[str] | None = None, *,
                 pdf: bool = False, force: bool = False,
                 progress: Callable[[str], None] | None = None,
                 engine: str | None = None, trust: bool = False) -> ExportResult:
    """Write a rendered result (and compile it with ``pdf=True``); fills in the paths.

    ``pdf=True`` without ``trust`` first runs the TeX gate and raises ``UntrustedTexError``
    (nothing written) when it refuses something, when needs-review content is not approved
    (``mechnb trust``), or for LuaLaTeX without a sandbox.
    The ``.tex`` is named after the notebook's stem made safe (``safe_stem``). Compiling happens
    in a private temporary directory (``pdf.compile_pdf``); only the PDF and log come back.
    """
    paper = result.paper
    if pdf:
        from .processes import limit_seconds

        limit_seconds()  # a bad MECHNB_TEX_TIMEOUT is an error before anything is written
    if pdf and not trust:
        refuse_untrusted(result, engine=engine or result.engine)
    out_dir = output_directory(paper, output_dir)
    stem = safe_stem(paper.path.stem) if paper.path else "paper"
    if output_dir is None:
        confined_default(paper, out_dir)
    try:
        result.tex_path = write_export(out_dir, stem + ".tex", result.latex, result.resources,
                                       force)
        if result.cache is not None:
            result.cache.save(out_dir)
    except OSError as exc:
        where = exc.filename or out_dir
        raise ExportError(f"cannot write {where}: {exc.strerror or exc}; choose another "
                          "directory with -o DIR") from None
    if progress:
        progress(f"wrote {result.tex_path}")
    compiles = not any(f.name == NO_FONT for f in result.findings) and (
        (engine or result.engine) != "lualatex"
        or not any(f.name == LUATEXJA_MISSING for f in result.findings))
    # not started: a LuaLaTeX run that cannot load ctex (MECH832), text without a font (MECH833)
    if pdf and compiles:
        from .pdf import compile_pdf

        sources = {c.index: c.source for c in paper.cells}
        tokens = token_index(paper.cells)
        compiled = compile_pdf(result.tex_path, progress, engine=engine or result.engine,
                               latex=result.latex, resources=result.resources, sources=sources,
                               cells=tokens)
        failed_in_use: set[str] = set()
        for _ in range(MAX_FORMULAS_AS_CODE):  # a formula TeX rejects: printed as code, again
            failed = None if compiled.pdf is not None or _stopped(compiled) else next(
                (f for f in compiled.findings if f.name == "tex-error"), None)
            # a definition of the notebook TeX fails in, or one that failed in a second use:
            # its uses print the macro's name, however many there are; else (a first failing
            # use: the fault may be in what it was given) the formula at the error line
            name = (failed.labels[0] if failed is not None and len(failed.labels) == 2
                    and failed.cell is not None else None)
            renamed = None
            if name is not None and failed is not None and (
                    failed.labels[1] == "at-definition" or name in failed_in_use
                    or "already defined" in failed.message):
                renamed = definition_as_code(result.latex, name[1:],
                                             "already defined" in failed.message)
            elif name is not None:
                failed_in_use.add(name)
            patched = renamed or (None if compiled.pdf is not None or _stopped(compiled)
                                  else formula_as_code(result.latex,
                                                       error_line(_log_text(compiled.log)) or 0))
            if patched is None:
                break
            before, (result.latex, replaced) = result.latex, patched
            result.rendered = replace(result.rendered, text=result.latex, regions=rebase(
                result.rendered.regions, before, result.latex))
            if not trust:  # the rewritten document is judged again before it compiles
                refuse_untrusted(result, engine=engine or result.engine)
            if renamed is not None and failed is not None:
                what = (f"it is exported as \\renewcommand (MathJax lets a definition replace "
                        f"the old meaning of {failed.labels[0]})"
                        if "already defined" in failed.message else
                        f"where it is used the PDF prints {failed.labels[0]} in typewriter, as "
                        "MathJax marks such a macro, so the PDF builds; fix the definition")
                result.findings.append(replace(export_finding(
                    "formula-as-code", f"TeX rejects the definition of {failed.labels[0]} "
                    f"({_tex_error(compiled)}): {what}", failed.cell),
                    line=failed.line, column=failed.column))
            else:
                cell = line_cells(result.latex, tokens)[replaced.first_line - 1]
                result.findings.append(export_finding(
                    "formula-as-code", f"TeX rejects this formula "
                    f"({_tex_error(compiled)}); it is printed as code so the PDF builds: "
                    f"{replaced.formula[:80]!r}", cell))
                definition = _failed_definition(compiled, cell)
                if definition is not None and definition not in result.findings:
                    result.findings.append(definition)
            result.tex_path = write_export(out_dir, stem + ".tex", result.latex,
                                           result.resources, True)
            compiled = compile_pdf(result.tex_path, progress, engine=engine or result.engine,
                                   latex=result.latex, resources=result.resources,
                                   sources=sources, cells=tokens)
        result.pdf_path = compiled.pdf
        result.log_path = compiled.log
        result.findings.extend(f for f in compiled.findings if not _already_found(f, result))
    if paper.path is not None:
        from .cleanup import clean_after_build, remember_source

        try:
            remember_source(out_dir, paper.path, (c.id for c in paper.cells), result.resources)
            if output_dir is None and (not pdf or result.pdf_path is not None):
                clean_after_build(out_dir, (c.id for c in paper.cells))
        except OSError:
            pass  # tidying is best effort: the export itself succeeded
    return result


def confined_default(paper: Paper, out_dir: Path) -> None:
    """Refuse a default ``build/<stem>/`` that a symlink leads outside the notebook's folder
    (a folder received from someone else may ship such a link); ``-o DIR`` is the user's call."""
    if paper.path is None:
        return
    base = paper.path.parent.resolve()
    real = out_dir.resolve()
    if real != base and base not in real.parents:
        raise ExportError(f"{out_dir} leads outside the notebook's folder (to {real}, through a "
                          "symlink); not written. Choose the output directory with -o DIR")


def _already_found(finding: Finding, result: ExportResult) -> bool:
    """A TeX log finding the pdfLaTeX pre-check reported already (same rule and cell)."""
    return finding.name == "pdflatex-unsupported-character" and any(
        f.name == finding.name and f.cell == finding.cell for f in result.findings)


def paper_findings(paper: Paper) -> list[Finding]:
    """Findings of the closing-loop checks (``mechnb.checker``, reading findings included)."""
    from ..checker import check

    try:
        return check(paper)
    except MechnbError:
        raise
    except Exception as exc:  # a bug in one rule must not stop the export
        return [*paper.findings, export_finding(
            "checks-failed", f"the closing-loop checks crashed ({type(exc).__name__}: {exc}); "
            "the draft is exported without them — please report this")]


def _stopped(compiled: PdfResult) -> bool:
    """Whether the compile was stopped (time limit, signal) rather than failing on an error."""
    from . import processes

    return processes.describe_stop(compiled.returncode, processes.limit_seconds()) is not None


def _log_text(log: Path) -> str:
    from .pdf import read_log

    return (read_log(log) or b"").decode("utf-8", "replace")


def _failed_definition(compiled: PdfResult, use: int | None) -> Finding | None:
    """When TeX failed inside a macro the notebook defines (``pdf.parse_log`` blames the
    defining cell and names the macro), a warning at the definition's own cell: the formula
    printed as code is only where it was used."""
    error = next((f for f in compiled.findings if f.name == "tex-error"), None)
    if error is None or error.cell is None or error.cell == use or not error.labels:
        return None
    where = "" if use is None else f" in cell {use + 1}"
    return replace(export_finding(
        "formula-as-code", f"the definition of {error.labels[0]} in this cell fails where it is "
        f"used{where} (that formula is printed as code): {_tex_error(compiled)}", error.cell),
        line=error.line, column=error.column)


def _tex_error(compiled: PdfResult) -> str:
    """TeX's message of the failed compile, shortened."""
    first = next((f.message for f in compiled.findings if f.name == "tex-error"), "a TeX error")
    return first.split(" (.tex line")[0].split(";")[0][:160]
