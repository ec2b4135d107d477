"""Approvals of needs-review content, recorded per user by content hash (DESIGN §2a, "Trust").

``mechnb trust paper.ipynb`` approves what the gate (``mechnb.tex.gate``) says needs review —
raw LaTeX cells, other ``text/latex`` outputs, commands off the allow-list, a template, a venue
style, a ``.bib`` with ``@preamble`` — by the SHA-256 of each piece's kind and content. From then
on every way of compiling (the CLI, ``%mech export``, the Export button, the preview) compiles
that content, with or without a sandbox, until it changes: a changed raw cell has another hash
and needs review again. A venue style is approved once for every notebook that uses it.

The record is one JSON file per user (``$XDG_DATA_HOME/mechnb/approved.json``, 0600), sealed
with the user's key like mechnb's other records (``mechnb.files.seal``): a record another user
or a received folder brings is ignored, and so is one edited by hand. Refused TeX is never
approved (``gate.Assessment.refused``); ``--trust`` stays the one-off override for everything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..files import atomic_write, is_sealed, seal
from .gate import Assessment, ReviewItem

RECORD_NAME = "approved.json"


def record_path() -> Path:
    """Where this user's approvals live."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "mechnb" / RECORD_NAME


def _entries_bytes(entries: dict[str, Any]) -> bytes:
    return json.dumps(entries, sort_keys=True, ensure_ascii=True).encode()


def _load() -> dict[str, Any]:
    """The sealed entries (digest → what was approved); empty when missing or not ours."""
    try:
        data = json.loads(record_path().read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    entries = data.get("approved") if isinstance(data, dict) else None
    if not isinstance(entries, dict) or not is_sealed(_entries_bytes(entries), data.get("seal")):
        return {}
    return entries


def approved_digests() -> frozenset[str]:
    """The digests this user has approved."""
    return frozenset(_load())


def unapproved(assessment: Assessment) -> list[ReviewItem]:
    """The needs-review items of ``assessment`` not yet approved."""
    if not assessment.review:
        return []
    done = approved_digests()
    return [item for item in assessment.review if item.digest not in done]


class TrustRecordError(OSError):
    """The approval record cannot be written (no per-user key, unwritable home)."""


def approve(items: Iterable[ReviewItem], notebook: str) -> int:
    """Record ``items`` as approved for this user; returns how many were new."""
    entries = _load()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    added = 0
    for item in items:
        if item.digest in entries:
            continue
        entries[item.digest] = {"kind": item.kind, "what": describe(item), "notebook": notebook,
                                "approved": now}
        added += 1
    mac = seal(_entries_bytes(entries))
    if mac is None:
        raise TrustRecordError("no per-user key to seal the approval record with "
                               "($XDG_CACHE_HOME/mechnb/record-key cannot be created)")
    path = record_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"approved": entries, "seal": mac}, indent=1,
                                      sort_keys=True).encode())
        os.chmod(path, 0o600)
    except OSError as exc:
        raise TrustRecordError(f"cannot write {path}: {exc}") from exc
    return added


def describe(item: ReviewItem) -> str:
    """``cell 4: a raw LaTeX cell goes to TeX unchecked`` — one line for a person."""
    place = f"cell {item.cell + 1}" if item.cell is not None else ""
    if item.where:
        place = f"{place} {item.where}".strip() if place else item.where
    return f"{place or 'the notebook'}: {item.reason}"
