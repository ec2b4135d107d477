"""Errors of the exporter (all ``ExportError``, so the CLI prints them as one line)."""

from __future__ import annotations

from ..errors import ExportError


class HandEditedError(ExportError):
    """The target ``.tex`` was edited by hand since the last export; nothing was written."""


class LatexmkMissingError(ExportError):
    """``--pdf`` was asked for but ``latexmk``/``xelatex`` is not installed."""


class SandboxUnavailableError(ExportError):
    """``MECHNB_SANDBOX=require`` but bubblewrap is missing or cannot start here."""
