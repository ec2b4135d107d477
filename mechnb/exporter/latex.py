"""Document model → LaTeX text: the template, environments from the role registry, the body.

Templates are data files (``mechnb/data/latex/*.tex``) with ``((( name )))`` placeholders;
``environments.tex`` holds the one-line formats from which the ``\\newtheorem`` and box
definitions are generated for every role of the registry. Every block is preceded by a
``% mechnb:cell N`` marker, which is how TeX errors are mapped back to notebook cells.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path

from ..errors import ExportError
from ..findings import Finding
from ..lazyre import lazy
from ..notebook import CJK_RE, script_region
from ..paper_paths import read_regular
from ..roles import Role, registry
from ..tex.escape import escape_latex, unicode_declarations
from ..tex.fontplan import font_plan, plan_preamble
from ..tex.gate import BUILTIN_TEMPLATES as BUILTIN_TEMPLATE_NAMES
from ..tex.gate import Region
from ..tex.markers import MARKER, line_cells
from ..tex.symbols import symbol_declarations
from .context import VERBATIM_BEGIN
from .document import Block, Document
from .styles import Style, apply_style, numeric_bibliography

PLACEHOLDER_RE = lazy(r"\(\(\(\s*([a-z_]+)\s*\)\)\)")
BUILTIN_TEMPLATES = {name: f"{name}.tex" for name in BUILTIN_TEMPLATE_NAMES}
TEMPLATE_FIELDS = ("generated_by", "extra_packages", "environments", "title", "authors",
                   "abstract", "body", "bibliography", "appendix")
"""Placeholders a template may use; ``body`` is required."""
BIBLIOGRAPHY_STYLE = "plainnat"
BIBLIOGRAPHY_STYLE_ZH = "gbt7714-numerical"
"""Chinese papers (the ``ctexart`` template): GB/T 7714-2015, numbered in order of citation."""
CJK_SUPPORT_RE = lazy(r"^[ \t]*\\(?:documentclass|usepackage|RequirePackage)(?:\[[^\]\n]*\])?"
                            r"\{(?:ctexart|ctexrep|ctexbook|ctex|xeCJK|CJKutf8)\}", re.M)
"""A line loading CJK support (a ctex class or package, xeCJK, CJKutf8)."""
_SECTION_LINE_RE = lazy(r"\A\\(?:section|subsection|subsubsection|paragraph)\*?\{.*\}\n?")


class TemplateError(ExportError):
    """A LaTeX template is missing or uses placeholders mechnb does not know."""


@dataclass(frozen=True)
class RenderedTex:
    """The ``.tex`` text and, for each of its lines, the notebook cell that produced it."""

    text: str
    line_cells: tuple[int | None, ...]
    regions: tuple[Region, ...] = ()
    """Where each part of ``text`` came from (``mechnb.tex.gate.Region``): what the gate
    judges, and mechnb's own text it need not."""

    def cell_at(self, line: int) -> int | None:
        """The cell that produced 1-based ``line`` of the ``.tex`` (``None`` in the preamble)."""
        if 1 <= line <= len(self.line_cells):
            return self.line_cells[line - 1]
        return None


@cache
def data_text(name: str) -> str:
    """A file of ``mechnb/data/latex``."""
    return resources.files("mechnb").joinpath(f"data/latex/{name}").read_text("utf-8")


def fill(template: str, values: Mapping[str, str], where: str = "template") -> str:
    """Replace every ``((( name )))`` in ``template``; unknown names are an error."""
    return fill_spans(template, values, where)[0]


def fill_spans(template: str, values: Mapping[str, str], where: str = "template"
               ) -> tuple[str, list[tuple[str | None, int, int]]]:
    """``fill`` and the spans of the result: ``(name, start, end)`` for each placeholder's
    value, ``(None, start, end)`` for the template's own text between them."""
    unknown = sorted({m for m in PLACEHOLDER_RE.findall(template) if m not in values})
    if unknown:
        raise TemplateError(f"{where} uses unknown placeholder(s) {', '.join(unknown)}; "
                            f"known: {', '.join(sorted(values))}")
    out: list[str] = []
    spans: list[tuple[str | None, int, int]] = []
    pos = length = 0
    for m in PLACEHOLDER_RE.finditer(template):
        own = template[pos:m.start()]
        value = values[m.group(1)]
        spans.append((None, length, length + len(own)))
        length += len(own)
        spans.append((m.group(1), length, length + len(value)))
        length += len(value)
        out += (own, value)
        pos = m.end()
    spans.append((None, length, length + len(template) - pos))
    out.append(template[pos:])
    return "".join(out), spans


def load_template(name: str | None, lang: str, base_dir: Path | None = None) -> tuple[str, str]:
    """(template text, display name) for a built-in name, a path, or the language default."""
    if not name:
        name = "ctexart" if lang == "zh" else "article"
    if name in BUILTIN_TEMPLATES:
        return data_text(BUILTIN_TEMPLATES[name]), name
    path = Path(name).expanduser()
    if not path.is_absolute() and base_dir is not None and not path.exists():
        path = base_dir / path
    try:
        text = read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        raise TemplateError(
            f"template {name!r} is neither a built-in ({', '.join(BUILTIN_TEMPLATES)}) nor a "
            f"readable file") from None
    if not PLACEHOLDER_RE.search(text) or "body" not in PLACEHOLDER_RE.findall(text):
        raise TemplateError(f"template {path} has no ((( body ))) placeholder; start from "
                            "mechnb/data/latex/article.tex")
    return text, str(path)


@cache
def _formats() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in data_text("environments.tex").splitlines():
        if line.strip() and not line.startswith("%"):
            key, _, fmt = line.partition(": ")
            out[key.strip()] = fmt
    return out


def box_env(role: Role) -> str:
    """LaTeX environment name of a ``box`` role (``question`` → ``mechquestion``)."""
    return "mech" + re.sub(r"[^a-zA-Z]", "", role.name)


def _plural(display: str, lang: str) -> str:
    if lang == "zh":
        return display
    return display[:-1] + "ies" if display.endswith("y") else display + "s"


@cache
def environment_definitions(lang: str, guarded: bool = False, boxes: bool = True) -> str:
    """``\\newtheorem`` and box definitions for every role of the registry, in ``lang``.

    ``guarded``: each ``\\newtheorem`` only if the class (a venue's) did not define it already.
    ``boxes``: the box environments too (they need tcolorbox, which only a paper that uses a box
    loads: ``uses_boxes``).
    """
    fmts = _formats()

    def define(key: str, fields: dict[str, str]) -> str:
        line = fill(fmts[key], fields, "environments.tex")
        if guarded:
            line = fill(fmts["guarded"], {"env": fields["env"], "definition": line},
                        "environments.tex")
        return line

    lines: list[str] = []
    counter: str | None = None
    style: str | None = None
    for role in registry().values():
        display = role.display(lang)
        fields = {"display": display, "plural": _plural(display, lang)}
        if role.latex_kind == "environment":
            fields |= {"env": role.latex["env"], "style": role.latex.get("style", "plain"),
                       "counter": counter or ""}
            if fields["style"] != style:
                style = fields["style"]
                lines.append(fill(fmts["theoremstyle"], fields, "environments.tex"))
            key = "environment-first" if counter is None else "environment"
            lines.append(define(key, fields))
            if guarded and counter is None:
                lines.append(fill(fmts["guarded-counter"], fields, "environments.tex"))
            lines.append(fill(fmts["environment-crefname"], fields, "environments.tex"))
            counter = counter or role.latex["env"]
        elif role.latex_kind == "box" and boxes:
            lines.append(fill(fmts["box"], fields | {"env": box_env(role)}, "environments.tex"))
    return "\n".join(lines)


@cache
def _box_environments() -> tuple[str, ...]:
    return tuple("{" + box_env(r) + "}" for r in registry().values() if r.latex_kind == "box")


def uses_boxes(doc: Document, *texts: str) -> bool:
    """Whether the paper needs tcolorbox: a box cell (research question…), or tcolorbox or a
    box environment named in its text or preamble. Loading it costs every compile about an
    eighth of a second (it loads PGF), so a paper without a box does without it."""
    if any(b.role is not None and b.role.latex_kind == "box" for b in doc.blocks):
        return True
    text = "".join(texts) + (doc.preamble or "")
    return "tcolorbox" in text or "tcb" in text or any(n in text for n in _box_environments())


# --------------------------------------------------------------------------- body


def _label(label: str | None) -> str:
    return "\\label{" + label + "}" if label else ""


def _anchor(label: str | None) -> str:
    return "\\phantomsection\\label{" + label + "}" if label else ""


def _wrap_text(b: Block, lang: str) -> str:
    body = b.body
    if b.title:
        body = "\\paragraph{" + b.title + "}" + _anchor(b.label) + "\n" + body
    elif b.label:
        m = _SECTION_LINE_RE.match(body)
        if m:  # the label names the cell's leading section
            head = m.group(0).rstrip("\n")
            body = head + _label(b.label) + "\n" + body[m.end():]
        else:
            body = _anchor(b.label) + "\n" + body
    return body


def _runin_heading(b: Block, lang: str) -> str:
    heading = b.title or (b.role.display(lang) if b.role else "")
    if lang != "zh" and heading and heading[-1] not in ".?!:":
        heading += "."
    return heading


def _wrap_runin(b: Block, lang: str) -> str:
    if b.title == "":  # no heading: the paragraph continues the text (imported from LaTeX)
        return (_anchor(b.label) + "\n" if b.label else "") + b.body
    return "\\paragraph{" + _runin_heading(b, lang) + "}" + _anchor(b.label) + "\n" + b.body


def _wrap_box(b: Block, lang: str) -> str:
    assert b.role is not None
    options = []
    if b.title:
        options.append("title={" + b.role.display(lang) + "~\\thetcbcounter: " + b.title + "}")
    if b.label:
        options.append("label={" + b.label + "}")
    env = box_env(b.role)
    opt = "[" + ",".join(options) + "]" if options else ""
    return "\\begin{" + env + "}" + opt + "\n" + b.body + "\n\\end{" + env + "}"


def _wrap_box_unnumbered(b: Block, lang: str) -> str:
    """The same box without a number (and without stepping the numbered boxes' counter)."""
    assert b.role is not None
    heading = b.role.display(lang) + (": " + b.title if b.title else "")
    return ("\\begin{tcolorbox}[colback=white,colframe=black!55,fonttitle=\\bfseries,title={"
            + heading + "}]" + _anchor(b.label) + "\n" + b.body + "\n\\end{tcolorbox}")


def _wrap_environment(b: Block, lang: str) -> str:
    assert b.role is not None
    env = str(b.role.latex["env"])
    opt = "[{" + b.title + "}]" if b.title else ""
    return "\\begin{" + env + "}" + opt + _label(b.label) + "\n" + b.body + "\n\\end{" + env + "}"


def _wrap_proof(b: Block, lang: str) -> str:
    opt = "[{" + b.title + "}]" if b.title else ""
    return "\\begin{proof}" + opt + _anchor(b.label) + "\n" + b.body + "\n\\end{proof}"


def _wrap_figure(b: Block, lang: str) -> str:
    images = [line.split(" ", 1) for line in b.body.split("\n")]  # "<width> <path>"
    lines = ["\\begin{figure}[htbp]", "\\centering"]
    for width, path in images:
        w = width if len(images) == 1 else f"{min(float(width), 0.48):.2f}"
        lines.append("\\includegraphics[width=" + w + "\\linewidth,height=0.4\\textheight,"
                     "keepaspectratio]{" + path + "}")
    if b.title is not None or b.label:
        lines.append("\\caption{" + (b.title or "") + "}" + _label(b.label))
    lines.append("\\end{figure}")
    return "\n".join(lines)


TABLE_CAPTION_SKIP = "\\vspace{0.6\\abovecaptionskip}"
"""Space between a table's caption (above it, as papers set tables) and its first rule: LaTeX's
classes put the caption skip above a caption only, so a top caption sits flush on the rule."""


def _wrap_table(b: Block, lang: str) -> str:
    return ("\\begin{table}[htbp]\n\\centering\n\\caption{" + (b.title or "") + "}"
            + _label(b.label) + "\n" + TABLE_CAPTION_SKIP + "\n" + b.body + "\n\\end{table}")


def _wrap_raw(b: Block, lang: str) -> str:
    return b.body


BLOCK_WRAPPERS: dict[str, Callable[[Block, str], str]] = {
    "text": _wrap_text,
    "runin": _wrap_runin,
    "box": _wrap_box,
    "box-unnumbered": _wrap_box_unnumbered,
    "environment": _wrap_environment,
    "proof": _wrap_proof,
    "figure": _wrap_figure,
    "table": _wrap_table,
    "latex": _wrap_raw,
    "code": _wrap_raw,
    "abstract": _wrap_raw,
}
"""Block kind → how it is wrapped in LaTeX."""


NOTES_PER_BLOCK = 3
"""At most this many findings are spelled out in one margin note (the rest are counted)."""


def todo(findings: Sequence[Finding]) -> str:
    """One todonotes margin note for the findings of one block.

    One note per block, not per finding: a fresh scaffold has hundreds of findings, and that many
    margin floats make TeX give up ("100 consecutive dead cycles").
    """
    lines = [f"{f.code}: {f.message}" for f in findings[:NOTES_PER_BLOCK]]
    if len(findings) > NOTES_PER_BLOCK:
        lines.append(f"... and {len(findings) - NOTES_PER_BLOCK} more (mechnb check)")
    return "\\todo{" + "\\newline{}".join(escape_latex(line) for line in lines) + "}"


def _annotations_by_block(blocks: Sequence[Block],
                          annotations: Iterable[Finding]) -> tuple[dict[int, list[Finding]],
                                                                   list[Finding]]:
    """Block position → findings placed there (at the first block at or after their cell)."""
    cells = [b.cell if b.cell is not None else -1 for b in blocks]  # ascending: notebook order
    placed: dict[int, list[Finding]] = {}
    front: list[Finding] = []
    for f in annotations:
        pos = bisect.bisect_left(cells, f.cell) if f.cell is not None else len(cells)
        if pos >= len(cells):
            front.append(f)
        else:
            placed.setdefault(pos, []).append(f)
    return placed, front


def _render_blocks(blocks: Sequence[Block], lang: str, notes: Mapping[int, list[Finding]],
                   markers: Mapping[int, str], offset: int = 0,
                   spans: list[Region] | None = None) -> str:
    """The blocks' LaTeX; with ``spans``, each block's wrapped text is recorded there as a
    ``block`` region (offsets in the returned text)."""
    out: list[str] = []
    length = 0
    for n, b in enumerate(blocks):
        piece = MARKER + markers.get(b.cell, f"#{b.cell}") + "\n" if b.cell is not None else ""
        if notes.get(n + offset):
            piece += todo(notes[n + offset]) + "\n"
        wrapped = BLOCK_WRAPPERS[b.kind](b, lang)
        if n:
            length += 2
        if spans is not None:
            start = length + len(piece)
            spans.append(Region(start, start + len(wrapped), "block", b.cell, b.kind))
        length += len(piece) + len(wrapped)
        out.append(piece + wrapped)
    return "\n\n".join(out)


def _macros(doc: Document) -> str:
    if not doc.macros:
        return ""
    return "\n% Macros the notebook defines in its math\n" + "\n".join(doc.macros)


INLINE_LIST_RE = lazy(r"\\begin\{(?:enumerate|itemize|description)\*\}")
"""The inline lists of an R kernel's ``text/latex`` (a vector prints as ``enumerate*``)."""
MATHJAX_ONLY_RE = lazy(r"\\(?:gt|lt|bbox|class|cssId|style|require)(?![A-Za-z])")
"""A MathJax-only macro that ``mathjax.tex`` defines for LaTeX."""


def _extra_packages(doc: Document, template: str, body: str,
                    annotations: Sequence[Finding], boxes: bool = False) -> str:
    parts = ["% research-question and other boxes\n\\usepackage{tcolorbox}\n"] if boxes else []
    has_cjk_support = CJK_SUPPORT_RE.search(template)
    if not has_cjk_support and (CJK_RE.search(body) or CJK_RE.search(doc.title)):
        parts.append(data_text("cjk.tex"))
    symbols = unicode_declarations(body)
    drawn = symbol_declarations(body + doc.title)
    if drawn:
        parts.append(data_text("symbols.tex") + "\n".join(drawn) + "\n")
    if symbols:
        parts.append("% Unicode symbols written inside math\n\\usepackage{iftex}\n"
                     "\\usepackage{newunicodechar}\n"
                     + "\n".join(symbols) + "\n")
    region = script_region(body + doc.title)
    if region is not None and (has_cjk_support or CJK_RE.search(body + doc.title)):
        parts.append(data_text("scripts.tex").replace("((( region )))", region).replace(
            "((( korean_spaces )))",
            "\\ifdefined\\xeCJKsetup\\xeCJKsetup{CJKspace=true}\\fi" if region == "KR" else ""))
    # characters made active by a declaration above never reach a font as characters; a Greek
    # letter's declaration prints the letter itself in text (\symbol), which the plan sets
    active = {line[len("\\newunicodechar{")] for line in [*symbols, *drawn]
              if line.startswith("\\newunicodechar{") and "\\symbol{" not in line}
    text = body + doc.title
    plan = font_plan(text.translate({ord(ch): None for ch in active}) if active else text)
    if plan.families or plan.cyrillic:
        parts.append(plan_preamble(plan))
    if INLINE_LIST_RE.search(body):
        parts.append(data_text("inline-lists.tex"))
    if VERBATIM_BEGIN in body:
        parts.append(data_text("verbatim.tex"))
    if MATHJAX_ONLY_RE.search(body):
        parts.append(data_text("mathjax.tex"))
    if annotations:
        parts.append(data_text("annotate.tex"))
    return "".join(parts).rstrip("\n")


_CLASS_LINE_RE = re.compile(r"^\\documentclass\b", re.M)


def _numeric_citations(template: str) -> str:
    """``template`` with natbib told, before any class or package loads it, to number the
    citations: the references are ``\\bibitem{key}`` without an author-year label, which
    natbib's default author-year mode refuses (``plain``, ``unsrt``, ``IEEEtran``…)."""
    m = _CLASS_LINE_RE.search(template)
    if m is None:
        return template
    return (template[:m.start()] + "\\PassOptionsToPackage{numbers,square}{natbib}% numeric "
            "references\n" + template[m.start():])


def keywords_line(keywords: Sequence[str], lang: str) -> str:
    """``关键词：甲；乙`` (GB/T 7713: full-width semicolons) or ``Keywords: a, b``."""
    if not keywords:
        return ""
    if lang == "zh":
        return "\n\n\\noindent\\textbf{关键词：}" + "；".join(keywords)
    return "\n\n\\noindent\\textbf{Keywords:} " + ", ".join(keywords)


def front_matter_en(doc: Document) -> str:
    """A Chinese paper's English title and abstract, after its own abstract, as Chinese
    journals print them (both optional)."""
    out = ""
    if doc.title_en:
        out += "\n\n\\begin{center}\\large\\bfseries " + doc.title_en + "\\end{center}"
    if doc.abstract_en:
        out += ("\n{\\renewcommand{\\abstractname}{Abstract}\n\\begin{abstract}\n"
                + doc.abstract_en + "\n\\end{abstract}}")
    return out


def render_latex(doc: Document, template: str | None = None, *,
                 annotations: Sequence[Finding] = (), template_name: str = "template",
                 base_dir: Path | None = None, style: Style | None = None) -> RenderedTex:
    """The complete ``.tex`` for ``doc`` (``template``: a built-in name, a path, or default;
    ``style``: a venue's class and package in place of the template's)."""
    text, tname = load_template(template, doc.lang, base_dir)
    if style is not None:
        text = apply_style(text, style)
    if doc.preamble and "((( preamble )))" not in text:
        # the paper's own preamble (metadata.mechnb.preamble): after mechnb's packages and
        # environments, else (a template of the user's own) right before \begin{document}
        slot = "((( environments )))\n"
        if slot in text:
            text = text.replace(slot, slot + "((( preamble )))", 1)
        elif "\\begin{document}" in text:
            text = text.replace("\\begin{document}", "((( preamble )))\\begin{document}", 1)
    main = [b for b in doc.blocks if b.part == "main"]
    appendix = [b for b in doc.blocks if b.part == "appendix"]
    notes, front = _annotations_by_block(main + appendix, annotations)
    inner: dict[str, list[Region]] = {"abstract": [], "body": [], "appendix": []}
    """Regions inside a placeholder's value, offsets relative to the value."""
    abstract = ""
    if doc.abstract:
        head = "\\begin{abstract}\n"
        blocks = _render_blocks(doc.abstract, doc.lang, {}, doc.markers,
                                spans=inner["abstract"])
        inner["abstract"] = [_shift(r, len(head)) for r in inner["abstract"]]
        abstract = head + blocks
        keywords = keywords_line(doc.keywords, doc.lang)
        inner["abstract"].append(Region(len(abstract), len(abstract) + len(keywords), "block",
                                        None, "keywords"))
        abstract += keywords + "\n\\end{abstract}"
    english = front_matter_en(doc)
    inner["abstract"].append(Region(len(abstract), len(abstract) + len(english), "block", None,
                                    "title_en/abstract_en"))
    abstract += english
    if front:
        abstract += "\n" + todo(front)
    body = _render_blocks(main, doc.lang, notes, doc.markers, spans=inner["body"])
    bibliography = ""
    if doc.bibliography:
        own = BIBLIOGRAPHY_STYLE_ZH if doc.lang == "zh" and "{gbt7714}" in text \
            else BIBLIOGRAPHY_STYLE
        bibstyle = (style.bibliography_style if style else None) or own
        bibliography = ("\\bibliographystyle{" + bibstyle + "}\n\\bibliography{"
                        + doc.bibliography + "}")
        if doc.bibliography.endswith(".bbl"):  # already formatted: read as it is
            bibliography = "\\input{" + doc.bibliography + "}"
        if (bibstyle != own or doc.bibliography.endswith(".bbl")) and numeric_bibliography(
                doc.bibliography, bibstyle, base_dir):
            text = _numeric_citations(text)
    macros = _macros(doc)
    appendix_tex = ""
    if appendix:
        head = "\\appendix\n\n"
        appendix_tex = head + _render_blocks(appendix, doc.lang, notes, doc.markers, len(main),
                                             spans=inner["appendix"])
        inner["appendix"] = [_shift(r, len(head)) for r in inner["appendix"]]
    boxes = uses_boxes(doc, abstract, body, appendix_tex, macros)
    environments = environment_definitions(doc.lang, style is not None, boxes)
    if boxes and "((( extra_packages )))" not in text:  # a template of the user's own
        environments = "\\usepackage{tcolorbox}\n" + environments
    if macros:  # an error inside a notebook macro shows the macro: its cell is found by it
        environments += "\n\\errorcontextlines=8\\relax"
    values = {
        "generated_by": f"Generated by mechnb from {doc.source_name}.",
        "extra_packages": _extra_packages(doc, text, body, annotations, boxes),
        "environments": environments + macros,
        "title": doc.title,
        "authors": author_block(doc.authors, doc.affiliations),
        "abstract": abstract,
        "body": body,
        "bibliography": bibliography,
        "zh_typesetting": data_text("zh-typesetting.tex").rstrip("\n"),
        "appendix": appendix_tex,
    }
    if "((( preamble )))" in text:
        values["preamble"] = doc.preamble
    tex, spans = fill_spans(text, values, tname)
    own_template = not template or template in BUILTIN_TEMPLATES
    regions: list[Region] = []
    for name, start, end in spans:
        if name is None:
            regions.append(Region(start, end, "template" if own_template else "template-file",
                                  None, tname if own_template else f"file {Path(tname).name}"))
        elif name in OWN_FIELDS:
            regions.append(Region(start, end, "own", None, name))
        elif name == "preamble":  # the paper's own: judged as a template, reviewed whole
            regions.append(Region(start, end, "preamble", None, "preamble"))
        elif name == "environments":
            regions.append(Region(start, start + len(environments), "own", None, name))
            regions.append(Region(start + len(environments), end, "definitions", None, "macros"))
        else:
            regions.append(Region(start, end, "field", None, name))
            regions += [_shift(r, start) for r in inner.get(name, ())]
    return RenderedTex(tex, line_cells(tex, doc.marker_index), tuple(regions))


OWN_FIELDS = frozenset({"extra_packages", "zh_typesetting"})
"""Placeholders whose value is mechnb's own text alone (data files and declarations generated
from tables): every other value carries something of the notebook and is judged."""


def _shift(region: Region, by: int) -> Region:
    return replace(region, start=region.start + by, end=region.end + by)


def author_block(names: Sequence[str], lines: Sequence[Sequence[str]] = ()) -> str:
    """``\\author`` content: each name with its affiliation and e-mail on the lines under it
    (the form article-based venue styles expect), authors separated by ``\\and``."""
    out = []
    for n, name in enumerate(names):
        extra = lines[n] if n < len(lines) else ()
        out.append("\\\\ ".join([escape_latex(name), *(
            "\\texttt{" + escape_latex(x) + "}" if "@" in x else escape_latex(x)
            for x in extra)]))
    return " \\and ".join(out)
