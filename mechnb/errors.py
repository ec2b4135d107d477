"""The exception family of mechnb: every error the user can cause is a ``MechnbError``."""

from __future__ import annotations


class MechnbError(Exception):
    """Base class; the message says what went wrong and what to do next."""


class NotebookReadError(MechnbError):
    """The notebook file cannot be read as an nbformat-4 notebook."""


class UsageError(MechnbError):
    """A magic or command was called with arguments it cannot use."""


class ExportError(MechnbError):
    """The LaTeX draft (or PDF) could not be produced."""
