"""The findings the exporter itself produces (codes MECH8xx), described by one table."""

from __future__ import annotations

from ..findings import Finding, Severity

EXPORT_FINDINGS: dict[str, tuple[str, Severity]] = {
    "output-dropped": ("MECH801", Severity.INFO),
    "svg-not-converted": ("MECH802", Severity.WARNING),
    "raw-html-dropped": ("MECH803", Severity.INFO),
    "image-not-found": ("MECH804", Severity.WARNING),
    "remote-image": ("MECH805", Severity.WARNING),
    "unsupported-image": ("MECH806", Severity.WARNING),
    "error-output": ("MECH807", Severity.WARNING),
    "bibliography-not-found": ("MECH808", Severity.WARNING),
    "citations-without-bibliography": ("MECH809", Severity.WARNING),
    "tex-error": ("MECH810", Severity.ERROR),
    "undefined-reference": ("MECH811", Severity.ERROR),
    "undefined-citation": ("MECH812", Severity.ERROR),
    "checks-failed": ("MECH813", Severity.WARNING),
    "invalid-label": ("MECH814", Severity.WARNING),
    "resource-outside-paper": ("MECH815", Severity.ERROR),
    "invalid-path": ("MECH816", Severity.WARNING),
    "invalid-citation-key": ("MECH817", Severity.WARNING),
    "engine-fallback": ("MECH820", Severity.INFO),
    "missing-glyph": ("MECH821", Severity.WARNING),
    "pdflatex-unsupported-character": ("MECH825", Severity.ERROR),
    "invalid-style": ("MECH826", Severity.ERROR),
    "style-not-found": ("MECH827", Severity.ERROR),
    "style-outside-notebook-folder": ("MECH828", Severity.ERROR),
    "bundle-check-failed": ("MECH829", Severity.ERROR),
    "bundle-absolute-path": ("MECH830", Severity.ERROR),
    "bundle-without-bbl": ("MECH831", Severity.ERROR),
    "lualatex-without-luatexja": ("MECH832", Severity.ERROR),
    "no-font-for-script": ("MECH833", Severity.ERROR),
    "formula-as-code": ("MECH834", Severity.WARNING),
    "no-font-for-character": ("MECH835", Severity.WARNING),
    "raw-cell-without-format": ("MECH836", Severity.INFO),
}
"""slug → (code, severity); documented in ``docs/guide/export.md`` (Exporter findings)."""


def export_finding(slug: str, message: str, cell: int | None = None, *,
                   line: int | None = None, labels: tuple[str, ...] = (),
                   cell_id: str | None = None) -> Finding:
    """A ``Finding`` for the exporter rule ``slug``."""
    code, severity = EXPORT_FINDINGS[slug]
    return Finding(code=code, name=slug, severity=severity, message=message, cell=cell,
                   line=line, labels=labels, cell_id=cell_id)
