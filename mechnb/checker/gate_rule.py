"""The TeX gate's rule, MECH022, on its own: ``mechnb export`` runs it beside its rendering
(the rendering it judges) without importing the registry (``rules.py`` lists it like any other).
"""

from __future__ import annotations

from ..findings import Severity
from .rule import Rule
from .text import check_dangerous

GATE = Rule(
    "MECH022", "dangerous-tex", Severity.ERROR,
    "Remove the command; keep the paper self-contained (or export with --trust).",
    "A gate, not a hint (`mechnb/tex/gate.py`): TeX that runs commands, reads or writes "
    "files, or builds command names. Markdown math, the TeX markdown-it finds outside it, "
    "captions, titles, `text/latex` and `text/markdown` outputs are judged token by token, "
    "the way TeX reads them, against an allow-list (see \"Security model\"); raw cells, "
    "other `text/latex` outputs, the template, venue style files and the .bib against the "
    "deny-list. Refused: `\\write`/`\\immediate`/`\\openout`, `\\openin`/`\\read`, "
    "`\\input`/`\\include`/`\\verbatiminput`/`\\lstinputlisting`, `\\includegraphics` "
    "of an absolute, `..`, `~`, piped or macro-built path, `\\special`, `\\XeTeX…file`, "
    "pdfTeX file primitives, `\\directlua`, `\\usepackage`, font loading, `file=` options; "
    "every command that builds, takes or renames a command name (`\\csname`, `\\catcode`, "
    "`\\scantokens`, etoolbox's `\\csuse`/`\\letcs`…, expl3 switches, "
    "`\\NewDocumentCommand`, `\\newenvironment`…) and case mapping (`\\lowercase`), apart "
    "from `\\newcommand`/`\\renewcommand`/`\\DeclareMathOperator`/parameterless `\\def` "
    "of a plain new name; `\\let` onto anything off the allow-list or onto a command that "
    "takes a name (`\\let\\B\\begin`); an environment name built from macros; `^^`. "
    "It cannot be disabled, re-leveled or silenced by `mech-ignore` tags; `mechnb export "
    "--pdf` refuses to compile while it fires unless run with `--trust`, and no approval "
    "covers it.",
    check_dangerous, group="tex")
"""The TeX gate (``mechnb.tex.gate``): nothing disables or silences it."""
