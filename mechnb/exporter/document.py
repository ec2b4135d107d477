"""Paper → document model: ``Block`` records that remember the cell they come from.

Each cell becomes zero or more blocks; how a cell is read depends on its role's LaTeX kind
(``Role.latex`` in the registry) through the ``CELL_READERS`` table, never on role names.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from dataclasses import replace as replace_block
from typing import Literal

from ..findings import Finding
from ..notebook import Cell, Paper
from ..paper_paths import UnsafeFileError, read_regular, resolve_in_folder
from ..roles import Role, get_role
from ..tex.comments import mask_comments
from ..tex.escape import escape_latex, is_safe_label
from ..tex.gate import is_latex_raw, raw_format
from ..tex.markers import cell_tokens, token_index
from .codes import export_finding
from .context import (
    RenderCache,
    RenderContext,
    markdown_block,
    markdown_inline,
    markdown_titled,
    verbatim,
)
from .outputs import image_outputs, rich_outputs

Part = Literal["main", "appendix"]

SHOW_CODE_TAGS = frozenset({"mech-show-code"})
"""Cell tags that print a code cell's source even without ``--include-code``."""

_SAFE_STEM_RE = re.compile(r"[^A-Za-z0-9_-]+")
# the heading line; its trailing spaces and closing #s are stripped in Python (a lazy group
# followed by `[ \t#]*` is quadratic on a heading padded with spaces)
_REF_RE = re.compile(r"\\(?:[cC]ref|ref|eqref|autoref|pageref)\*?\{([^{}\\]*)\}")
"""A reference command as the markdown renderer passes it through (``\\cref{thm:a,thm:b}``)."""
_YAML_HEADER_RE = re.compile(r"\A\s*---[ \t]*\n(?:.*\n)*?(?:---|\.\.\.)[ \t]*\s*\Z")
"""A raw cell that is only a YAML front-matter block (``---`` … ``---``)."""
_SLOT_NAME_RE = re.compile(r"\[[^\[\]]+\]")
"""A template slot inside a label name (``asm:[name]``)."""

_ATX_TITLE_RE = re.compile(r"\A\s*#(?!#)[ \t]+([^\n]*[^\s#][^\n]*)(?:\n|\Z)")


@dataclass(frozen=True)
class ExportOptions:
    """What to export and how."""

    include_code: bool = False
    """Print the source of code cells (``--include-code``)."""
    files_dir: str = "paper_files"
    """Directory (relative to the ``.tex``) for figures and the copied ``.bib``."""


@dataclass(frozen=True)
class Block:
    """One piece of the paper body, rendered to LaTeX, remembering its source cell."""

    cell: int | None
    """Index of the notebook cell it comes from."""
    kind: str
    """How it is wrapped: a role LaTeX kind (``environment``, ``runin``…) or ``figure``,
    ``latex``, ``code``."""
    body: str
    """The LaTeX content (already rendered from markdown)."""
    role: Role | None = None
    title: str | None = None
    """LaTeX of the environment title / run-in heading, if any."""
    label: str | None = None
    """Label to attach (only when the body does not already define it)."""
    part: Part = "main"


@dataclass
class Document:
    """The whole paper as blocks plus front matter, ready for ``render_latex``."""

    title: str
    authors: tuple[str, ...]
    lang: str
    affiliations: tuple[tuple[str, ...], ...] = ()
    """Per author, the lines under the name (affiliation, e-mail)."""
    blocks: list[Block] = field(default_factory=list)
    abstract: list[Block] = field(default_factory=list)
    citations: set[str] = field(default_factory=set)
    macros: list[str] = field(default_factory=list)
    """Macro definitions written as math in the notebook, for the preamble (in order)."""
    bibliography: str | None = None
    """Path (relative to the ``.tex``, without ``.bib``) of the bibliography, if any."""
    resources: dict[str, bytes] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    source_name: str = "notebook"
    markers: dict[int, str] = field(default_factory=dict)
    """Cell index → the token of its ``% mechnb:cell`` marker (the cell id, else ``#index``)."""
    marker_index: dict[str, int] = field(default_factory=dict)
    """Marker token → cell index."""
    keywords: tuple[str, ...] = ()
    """LaTeX of each keyword (metadata ``keywords``)."""
    title_en: str | None = None
    """LaTeX of the English title of a Chinese paper (metadata ``title_en``)."""
    abstract_en: str | None = None
    """LaTeX of the English abstract of a Chinese paper (metadata ``abstract_en``)."""
    preamble: str = ""
    """The paper's own preamble (metadata ``preamble``), as written: TeX, judged as a template."""


def _kind(cell: Cell) -> str | None:
    """The LaTeX kind of the cell's role (``None`` without a role)."""
    role = get_role(cell.role) if cell.role else None
    return role.latex_kind if role else None


_RAW_IMAGE_RE = re.compile(r"\\includegraphics\*?(?:\[[^\]]*\]){0,2}\s*\{([^{}]+)\}")
_LINE_BREAKING_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(name: str) -> str:
    """``name`` (a notebook's file name) safe inside a one-line comment of the ``.tex`` or the
    ``latexmkrc``: a line break there would end the comment and the rest would run as TeX or
    Perl, so control characters become ``?``."""
    return _LINE_BREAKING_RE.sub("?", name)


def safe_stem(name: str) -> str:
    """A file-name stem TeX tools accept everywhere (letters, digits, ``_`` and ``-``)."""
    return _SAFE_STEM_RE.sub("-", name).strip("-") or "paper"


class _Builder:
    def __init__(self, paper: Paper, options: ExportOptions,
                 cache: RenderCache | None = None) -> None:
        self.paper = paper
        self.options = options
        self.lang = paper.lang
        self.doc = Document(title="", authors=paper.meta.authors, lang=self.lang,
                            affiliations=paper.meta.affiliations)
        self.part: Part = "main"
        base = paper.path.parent if paper.path else None
        self.ctx = RenderContext(base_dir=base, files_dir=options.files_dir, cache=cache)
        self.title_cell: int | None = None
        self.dropped: dict[int, list[str]] = {}
        """Cell index → what JupyterLab shows of its outputs, for role-less cells not shown."""
        self.text_dropped: dict[int, list[str]] = {}
        """Cell index → the streams and plain text of a role cell left out of the draft."""

    def context_for(self, cell: Cell) -> RenderContext:
        self.ctx.cell = cell.index
        self.ctx.cell_id = cell.id
        self.ctx.attachments = cell.attachments
        return self.ctx

    def add(self, cell: Cell, kind: str, body: str, role: Role | None = None,
            title: str | None = None, label: str | None = None) -> None:
        if label is not None and label in self.ctx.labels:
            label = None  # the cell's text already places this \label
        elif label is not None and not is_safe_label(label):
            self.ctx.add_finding("invalid-label", f"label {label!r} contains characters TeX "
                                 "cannot use in \\label (spaces, # % \\ { } $ & ~ ^); it is "
                                 "left out — rename it, e.g. thm:main")
            label = None
        self.doc.blocks.append(Block(cell.index, kind, body, role, title, label, self.part))

    def front_matter(self) -> None:
        """Keywords, English title and abstract from the notebook metadata."""
        meta = self.paper.meta
        self.ctx.cell = self.ctx.cell_id = None
        self.doc.keywords = tuple(markdown_inline(self.ctx, k) for k in meta.keywords)
        if meta.title_en:
            self.doc.title_en = markdown_inline(self.ctx, meta.title_en)
        if meta.abstract_en:
            self.doc.abstract_en = markdown_block(self.ctx, meta.abstract_en)
        if meta.preamble and meta.preamble.strip():
            self.doc.preamble = meta.preamble.strip("\n") + "\n"

    def build(self) -> Document:
        self.doc.title = self.find_title()
        self.front_matter()
        for cell in self.paper.cells:
            if cell.index == self.title_cell and not cell.source.strip():
                continue
            role = get_role(cell.role) if cell.role else None
            if role is not None and role.latex_kind == "appendix":
                self.part = "appendix"
            if cell.cell_type == "code":
                self.read_code(cell, role)
            elif cell.cell_type == "raw":
                if role is None or role.latex_kind != "omit":
                    self.read_raw(cell)
            else:
                kind = role.latex_kind if role else "text"
                CELL_READERS[kind](self, cell, role)
        self.mark_pending_references()
        if self.dropped or self.text_dropped:
            self.ctx.findings.append(dropped_outputs(self.dropped, self.text_dropped))
        self.doc.citations = set(self.ctx.citations)
        self.doc.macros = list(dict.fromkeys(self.ctx.macros))
        self.doc.resources = self.ctx.resources
        self.doc.findings = self.ctx.findings
        self.find_bibliography()
        return self.doc

    def mark_pending_references(self) -> None:
        """A reference that would print ``??`` because its label is still a template slot
        (``\\cref{asm:[name]}``) or belongs to a code cell whose figure is not placed yet (an
        experiment not run: ``\\cref{exp:controlled}`` from ``%mech validate``) prints as a
        visible placeholder instead, ``[asm:[name]]`` / ``[exp:controlled]`` in typewriter type
        (``check`` reports both: MECH025, MECH007/MECH045). Any other unknown label stays a
        reference, so LaTeX's ``??`` and MECH015 still show a typo."""
        placed = set(self.ctx.labels) | {b.label for b in self.doc.blocks if b.label}
        pending = {c.label for c in self.paper.cells if c.cell_type == "code" and c.label
                   and c.label not in placed}

        def is_pending(name: str) -> bool:
            return name in pending or _SLOT_NAME_RE.search(name) is not None

        def replace(m: re.Match[str]) -> str:
            names = [n.strip() for n in m.group(1).split(",") if n.strip()]
            if not names or not any(is_pending(n) for n in names):
                return m.group(0)
            return ", ".join("[\\texttt{" + escape_latex(n) + "}]" if is_pending(n)
                             else m.group(0).replace(m.group(1), n) for n in names)

        if not pending and not any("[" in b.body for b in self.doc.blocks):
            return
        for blocks in (self.doc.blocks, self.doc.abstract):
            for k, b in enumerate(blocks):
                body = _REF_RE.sub(replace, b.body) if "ref" in b.body else b.body
                title = _REF_RE.sub(replace, b.title) if b.title and "ref" in b.title \
                    else b.title
                if body != b.body or title != b.title:
                    blocks[k] = replace_block(b, body=body, title=title)

    # ---- title and bibliography

    def find_title(self) -> str:
        ctx = RenderContext(base_dir=self.ctx.base_dir, cache=self.ctx.cache)
        if self.paper.meta.title:
            return markdown_inline(ctx, self.paper.meta.title)
        for cell in self.paper.cells:
            if _kind(cell) == "title" and cell.is_markdown:
                first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
                return markdown_inline(ctx, first.lstrip("#").strip())
        first_cell = self.paper.cells[0] if self.paper.cells else None
        if first_cell is not None and first_cell.is_markdown and _kind(first_cell) in (
                None, "title"):
            m = _ATX_TITLE_RE.match(first_cell.source)
            if m:
                self.title_cell = first_cell.index
                return markdown_inline(ctx, m.group(1).rstrip(" \t#"))
        stem = self.paper.path.stem if self.paper.path else "Untitled paper"
        return escape_latex(stem)

    def find_bibliography(self) -> None:
        bib = self.paper.meta.bibliography
        if not self.doc.citations:
            return
        if not bib:
            self.doc.findings.append(export_finding(
                "citations-without-bibliography",
                "the paper cites " + ", ".join(sorted(self.doc.citations)[:5])
                + " but names no bibliography; set notebook metadata mechnb.bibliography to "
                "your .bib file"))
            return
        base = self.paper.path.parent if self.paper.path else None
        name = bib if bib.endswith((".bib", ".bbl")) else bib + ".bib"
        resolved, why = resolve_in_folder(base, name)
        if resolved is None:
            slug = "invalid-path" if "NUL" in (why or "") or "valid path" in (why or "") \
                else "resource-outside-paper"
            self.doc.findings.append(export_finding(
                slug, f"bibliography {bib!r} {why}; it is not copied — put the .bib next to the "
                "notebook and name it by a relative path"))
            return
        path = resolved
        try:
            data = read_regular(path)
        except UnsafeFileError as exc:
            self.doc.findings.append(export_finding(
                "bibliography-not-found", f"bibliography {bib!r}: {exc}; it is not copied"))
            return
        except OSError:
            self.doc.findings.append(export_finding(
                "bibliography-not-found",
                f"bibliography {bib!r} was not found at {path}; citations will print as [?] "
                "— fix metadata mechnb.bibliography"))
            return
        name = safe_stem(path.stem)
        if path.suffix == ".bbl":  # a formatted bibliography (a LaTeX paper without its .bib)
            self.ctx.resources[f"{self.options.files_dir}/{name}.bbl"] = data
            self.doc.bibliography = f"{self.options.files_dir}/{name}.bbl"
            return
        self.ctx.resources[f"{self.options.files_dir}/{name}.bib"] = ordinal_editions(data)
        self.doc.bibliography = f"{self.options.files_dir}/{name}"

    # ---- readers

    def read_text(self, cell: Cell, role: Role | None) -> None:
        source = cell.source
        if cell.index == self.title_cell:
            source = _ATX_TITLE_RE.sub("", source, count=1)
        ctx = self.context_for(cell)
        if role is not None and role.latex_kind == "evidence":
            # a figure/experiment cell's caption and label go to its first image
            ctx.figure_caption = markdown_inline(ctx, cell.caption) if cell.caption else None
            ctx.figure_label = cell.label if cell.label and is_safe_label(cell.label) else None
        body = markdown_block(ctx, source)
        ctx.figure_caption = ctx.figure_label = None
        title = markdown_inline(ctx, cell.title) if cell.title and role else None
        kind = "text" if role is None or role.latex_kind in ("text", "appendix", "evidence") \
            else role.latex_kind
        self.add(cell, kind, body, role, title, cell.label)

    def read_titled(self, cell: Cell, role: Role | None) -> None:
        """Environments, boxes, proofs and run-in paragraphs: a leading heading is the title."""
        ctx = self.context_for(cell)
        heading, body = markdown_titled(ctx, cell.source)
        title = None
        if cell.title == "" and role is not None and role.latex_kind == "runin":
            title = ""  # an empty title: the paragraph runs on with no heading of its own
        elif cell.title:
            title = markdown_inline(ctx, cell.title)
        elif heading is not None:
            title = heading
        elif cell.kind == "sketch" and role is not None and "sketch" in role.latex:
            title = escape_latex(role.latex["sketch"]["zh" if self.lang == "zh" else "en"])
        assert role is not None
        kind: str = role.latex_kind
        if kind == "box" and cell.kind == "unnumbered":
            kind = "box-unnumbered"  # a box without a number (kind: unnumbered)
        self.add(cell, kind, body, role, title, cell.label)

    def read_abstract(self, cell: Cell, role: Role | None) -> None:
        ctx = self.context_for(cell)
        _, body = markdown_titled(ctx, cell.source)  # "# Abstract" is implied by the environment
        self.doc.abstract.append(Block(cell.index, "abstract", body, role, None, None, "main"))

    def read_omitted(self, cell: Cell, role: Role | None) -> None:
        """``note`` cells and title cells already used for the title are not exported."""

    def read_title(self, cell: Cell, role: Role | None) -> None:
        """A ``title`` cell feeds ``\\title``; it has no body of its own."""

    def read_code(self, cell: Cell, role: Role | None) -> None:
        kind = role.latex_kind if role else None
        if kind == "omit":
            return
        ctx = self.context_for(cell)
        show_code = self.options.include_code or bool(SHOW_CODE_TAGS.intersection(cell.tags))
        if show_code and cell.source.strip():
            self.add(cell, "code", verbatim(cell.source), role)
        if role is None and not show_code:
            # a working cell: its outputs stay in the notebook, counted in one finding
            magic = bool(_MECH_MAGIC_RE.search(cell.source))  # its status line is no output
            kinds = [k for o in cell.outputs
                     if (k := shown_kind(o)) and not (magic and _is_mech_status(o))]
            if kinds:
                self.dropped[cell.index] = kinds
            return
        evidence = kind == "evidence"
        # shown code prints its outputs beside it, as a notebook reader sees them: images too,
        # inline and unnumbered (a figure number belongs to a `figure`/`experiment` cell)
        images = image_outputs(cell, ctx) if evidence or show_code else []
        text_dropped: list[str] = []
        rich = rich_outputs(cell, ctx, include_text=show_code,
                            report_images=not (evidence or show_code), text_dropped=text_dropped)
        if text_dropped:
            self.text_dropped[cell.index] = text_dropped
        if images and not evidence:
            self.add(cell, "latex", "\n".join(
                "\\begin{center}\\includegraphics[width=" + f"{width:.2f}" + "\\linewidth,"
                "height=0.4\\textheight,keepaspectratio]{" + path + "}\\end{center}"
                for path, width in images), role)
            images = []
        caption = markdown_inline(ctx, cell.caption) if cell.caption else None
        if images:
            body = "\n".join(f"{width:.2f} {path}" for path, width in images)
            self.add(cell, "figure", body, role, caption, cell.label)
            caption = None
        for n, (rkind, latex) in enumerate(rich):
            if rkind == "latex" and caption is not None and n == 0 and "\\begin{tabular" in latex:
                self.add(cell, "table", latex, role, caption, cell.label)
                caption = None
            else:
                self.add(cell, "latex", latex, role)

    def read_raw(self, cell: Cell) -> None:
        if not cell.source.strip():
            return
        if is_latex_raw(cell.metadata):
            self.context_for(cell)
            self.raw_images(cell.source)
            self.add(cell, "latex", cell.source.strip("\n"))
        elif not raw_format(cell.metadata):
            # no format: JupyterLab shows the text as it is (nbconvert would paste it into
            # every output unread); the PDF prints what the notebook shows, and says so once
            ctx = self.context_for(cell)
            if _YAML_HEADER_RE.match(cell.source):
                ctx.add_finding("raw-cell-without-format", f"raw cell {cell.index + 1} is a YAML "
                                "header (Quarto, Jupyter Book); it is not printed — the paper's "
                                "title and authors come from Paper Settings (metadata.mechnb)")
                return
            self.add(cell, "code", verbatim(cell.source.strip("\n")))
            ctx.add_finding("raw-cell-without-format", f"raw cell {cell.index + 1} has no "
                            "format, so it is printed as plain text, as JupyterLab shows it; "
                            "to typeset it as LaTeX choose Raw NBConvert Format › LaTeX "
                            "(property inspector), to keep it out of the paper give it the "
                            "role `note`")

    def raw_images(self, source: str) -> None:
        """The images a raw cell's ``\\includegraphics`` names by a relative path inside the
        notebook's folder, copied next to the ``.tex`` under the same path (a paper imported
        from LaTeX keeps its figures in raw cells)."""
        base = self.ctx.base_dir
        if base is None or "includegraphics" not in source:
            return
        for m in _RAW_IMAGE_RE.finditer(mask_comments(source)):
            name = m.group(1).strip()
            if not name or name in self.ctx.resources:
                continue
            for ext in ("", ".pdf", ".png", ".jpg", ".jpeg", ".eps"):
                path, _why = resolve_in_folder(base, name + ext)
                if path is None or not path.is_file():
                    continue
                if name + ext not in self.ctx.resources:
                    with contextlib.suppress(OSError):  # a FIFO or an outsize file: left out
                        self.ctx.resources[name + ext] = read_regular(path)
                break
            else:
                self.ctx.add_finding("image-not-found", f"image {name!r} of this raw cell is not "
                                     "next to the notebook; TeX will stop at it — copy it there")


def shown_kind(output: Mapping[str, object]) -> str | None:
    """What JupyterLab shows for one output, in words (``None``: nothing)."""
    otype = output.get("output_type")
    if otype == "stream":
        return "text" if str(output.get("text") or "").strip() else None
    if otype == "error":
        return "error"
    data = output.get("data")
    if not isinstance(data, Mapping) or not data:
        return None
    if any(k.startswith("application/vnd.jupyter.widget") for k in data):
        return "widget"
    if "text/html" in data:
        return "HTML/table"
    if "text/latex" in data or "text/markdown" in data:
        return "LaTeX/markdown"
    if any(k.startswith("image/") for k in data):
        return "image"
    return "text" if "text/plain" in data else next(iter(data))


def _cells(indices: Iterable[int]) -> str:
    cells = [str(n + 1) for n in sorted(indices)]  # 1-based, as JupyterLab numbers cells
    listed = ", ".join(cells[:8]) + (f" and {len(cells) - 8} more" if len(cells) > 8 else "")
    return f"cell{'s' if len(cells) > 1 else ''} {listed}"


_MECH_MAGIC_RE = re.compile(r"^[ \t]*%mech[ \t]", re.M)


def _is_mech_status(output: Mapping[str, object]) -> bool:
    """The plain-text status a ``%mech`` line magic displays (``mechnb figures: 6.5 in wide
    …``): mechnb talking to the author, not a result of the paper."""
    data = output.get("data")
    if output.get("output_type") not in ("display_data", "execute_result") \
            or not isinstance(data, Mapping) or set(data) != {"text/plain"}:
        return False
    text = data["text/plain"]
    text = "".join(text) if isinstance(text, list) else str(text)
    return text.startswith("mechnb ")


def dropped_outputs(dropped: Mapping[int, list[str]],
                    text_dropped: Mapping[int, list[str]] | None = None) -> Finding:
    """One finding for the notebook: the outputs JupyterLab shows and the PDF does not — of
    cells without a role (``--include-code`` prints them; a role exports a cell's figures and
    tables), and the printed text (streams, plain results) of role cells."""
    parts = []
    if dropped:
        count = sum(len(k) for k in dropped.values())
        kinds: dict[str, int] = {}
        for ks in dropped.values():
            for k in ks:
                kinds[k] = kinds.get(k, 0) + 1
        what = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        parts.append(
            f"{count} output{'s' if count > 1 else ''} of {len(dropped)} code cell"
            f"{'s' if len(dropped) > 1 else ''} without a role ({what}; {_cells(dropped)}) "
            f"{'are' if count > 1 else 'is'} shown by Jupyter and not printed in the PDF: give "
            "a cell the role `figure`, `experiment` or `result` to export its figures and tables")
    if text_dropped:
        count = sum(len(k) for k in text_dropped.values())
        parts.append(
            f"{count} printed output{'s' if count > 1 else ''} (streams, plain-text results) of "
            f"{len(text_dropped)} role cell{'s' if len(text_dropped) > 1 else ''} "
            f"({_cells(text_dropped)}) {'are' if count > 1 else 'is'} left out of the draft, as "
            "a paper states the numbers in its text")
    return export_finding(
        "output-dropped", "; ".join(parts) + "; export with --include-code to print every cell "
        "with its outputs")


CellReader = Callable[[_Builder, Cell, "Role | None"], None]

CELL_READERS: dict[str, CellReader] = {
    "title": _Builder.read_title,
    "abstract": _Builder.read_abstract,
    "text": _Builder.read_text,
    "evidence": _Builder.read_text,
    "appendix": _Builder.read_text,
    "box": _Builder.read_titled,
    "runin": _Builder.read_titled,
    "environment": _Builder.read_titled,
    "proof": _Builder.read_titled,
    "omit": _Builder.read_omitted,
}
"""Role LaTeX kind → how a markdown cell of that kind is read."""


def build_document(paper: Paper, options: ExportOptions | None = None,
                   cache: RenderCache | None = None) -> Document:
    """The document model of ``paper`` (pure: reads files only for images and the .bib)."""
    doc = _Builder(paper, options or ExportOptions(), cache).build()
    doc.source_name = one_line(paper.path.name) if paper.path else "notebook"
    doc.markers = cell_tokens(paper.cells)
    doc.marker_index = token_index(paper.cells)
    return doc


_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth",
             "Ninth", "Tenth", "Eleventh", "Twelfth")
_EDITION_RE = re.compile(rb"(?im)(\bedition\s*=\s*)"
                         rb"(?:\{\s*(\d{1,3})\s*\}|\"\s*(\d{1,3})\s*\"|(\d{1,3})\b)")


def ordinal_editions(bib: bytes) -> bytes:
    """``edition = {2}`` → ``edition = {Second}`` in the copy of the .bib the export makes
    (BibTeX styles print the field as written, followed by "edition": "2 edition" reads wrong;
    the user's file is never changed)."""
    def ordinal(m: re.Match[bytes]) -> bytes:
        n = int(next(g for g in m.groups()[1:] if g is not None))
        if 1 <= n <= len(_ORDINALS):
            word = _ORDINALS[n - 1]
        else:
            suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
            word = f"{n}{suffix}"
        return m.group(1) + b"{" + word.encode() + b"}"
    return _EDITION_RE.sub(ordinal, bib) if b"dition" in bib.lower() else bib
