"""Files a notebook names (images, the .bib, a template) must lie inside the notebook's folder.

A notebook is data anyone can send; the paths it names are resolved the way the operating system
would open them (``..`` and symlinks followed) and refused when they lead outside its folder, so
an export never copies ``/etc/passwd`` or ``../../secret.pdf`` into ``build/`` or the PDF.
"""

from __future__ import annotations

import os
from pathlib import Path


def resolve_in_folder(folder: Path | None, name: str) -> tuple[Path | None, str | None]:
    """``(path, None)`` when ``name`` (relative to ``folder``) lies inside it, else ``(None, why)``.

    ``folder`` None means the current directory (a notebook built from a dict). ``why`` is a
    phrase that completes "… `name` …": ``lies outside the notebook's folder`` or
    ``is not a valid path (…)``.
    """
    if "\x00" in name:
        return None, "is not a valid path (it contains a NUL byte)"
    try:
        base = Path(os.path.realpath(folder if folder is not None else Path.cwd()))
        p = Path(name)
        if name.startswith("~"):
            p = p.expanduser()
        target = Path(os.path.realpath(base / p))  # an absolute name replaces base
    except (OSError, ValueError, RuntimeError) as exc:
        return None, f"is not a valid path ({exc})"
    if target != base and base not in target.parents:
        return None, (f"lies outside the notebook's folder ({target}); mechnb only uses files "
                      f"inside {base}")
    return target, None


def inside_folder(folder: Path | None, name: str) -> bool:
    """True if ``name`` resolves to a place inside ``folder``."""
    return resolve_in_folder(folder, name)[0] is not None
