"""mechnb's jupyter_server extension: check, export and the role list for the UI, no kernel needed.

Endpoints (authenticated, paths relative to the server root and confined to it):

- ``GET /mechnb/check?path=NB``: the checker's findings for the saved notebook (``to_json()``)
- ``POST /mechnb/export {"path": NB, "pdf": bool?}``: runs ``python -m mechnb export`` on it
- ``GET /mechnb/roles``: the role registry (name, group, purpose, label prefix) for the role picker
- ``GET /mechnb/phrases?q=&lang=&function=&limit=``: phrase search (``Phrase.to_record()`` list)

Enabled by ``etc/jupyter/jupyter_server_config.d/mechnb.json`` (installed with the wheel).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

EXPORT_TIMEOUT = 600.0
"""Seconds an export (with latexmk) may take before it is stopped."""


class _NotebookHandler(APIHandler):
    """Resolves the ``path`` argument to a notebook inside the server root."""

    def root(self) -> Path:
        root = getattr(self.contents_manager, "root_dir", None) or self.settings.get(
            "server_root_dir", ".")
        return Path(str(root)).expanduser().resolve()

    def notebook(self, rel: object) -> Path:
        if not isinstance(rel, str) or not rel.strip():
            raise web.HTTPError(400, "give the notebook path, relative to the server root")
        root = self.root()
        path = (root / rel.strip().lstrip("/")).resolve()
        if path != root and root not in path.parents:
            raise web.HTTPError(403, f"{rel} is outside the server root")
        if path.suffix != ".ipynb":
            raise web.HTTPError(400, f"{rel} is not a notebook (.ipynb)")
        if not path.is_file():
            raise web.HTTPError(404, f"no notebook at {rel}")
        return path

    def relative(self, path: Path) -> str:
        resolved = path.resolve()
        root = self.root()
        return resolved.relative_to(root).as_posix() if root in resolved.parents else str(resolved)


class CheckHandler(_NotebookHandler):
    """``GET /mechnb/check?path=NB``: the closing-loop findings of the saved notebook."""

    @web.authenticated
    async def get(self) -> None:
        path = self.notebook(self.get_argument("path", ""))
        try:
            check = importlib.import_module("mechnb.checker").check
        except (ImportError, AttributeError) as exc:
            raise web.HTTPError(501, f"the mechnb checker is not available: {exc}") from None
        from .errors import MechnbError

        try:
            findings = await asyncio.to_thread(check, path)
        except MechnbError as exc:
            raise web.HTTPError(422, str(exc)) from None
        self.finish(json.dumps([f.to_json() for f in findings]))


def _pdf_available() -> bool:
    return shutil.which("latexmk") is not None and shutil.which("xelatex") is not None


class ExportHandler(_NotebookHandler):
    """``POST /mechnb/export``: write the LaTeX draft (and PDF), by default in ``build/<stem>/``.

    Runs the CLI in a subprocess, so a slow or crashing TeX run never blocks or takes down the
    server; the reply carries the exit code, the log and the files written.
    """

    @web.authenticated
    async def post(self) -> None:
        body = self.get_json_body() or {}
        path = self.notebook(body.get("path"))
        pdf = body.get("pdf")
        if not isinstance(pdf, bool):
            pdf = _pdf_available()
        argv = [sys.executable, "-m", "mechnb", "export", str(path)]
        if pdf:
            argv.append("--pdf")
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=str(path.parent), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), EXPORT_TIMEOUT)
        except asyncio.TimeoutError:
            proc.kill()
            out, err = await proc.communicate()
            err += f"\nexport stopped after {EXPORT_TIMEOUT:.0f} s".encode()
        # the CLI prints the files it wrote on stdout (the .tex, then the .pdf), findings on stderr
        written = [path.parent / line.strip()
                   for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
        tex = next((p for p in written if p.suffix == ".tex" and p.is_file()), None)
        pdf_file = next((p for p in written if p.suffix == ".pdf" and p.is_file()), None)
        self.finish(json.dumps({
            "ok": proc.returncode == 0 and tex is not None,
            "returncode": proc.returncode,
            "tex": self.relative(tex) if tex else None,
            "pdf": self.relative(pdf_file) if pdf_file else None,
            "log": (out + err).decode("utf-8", "replace"),
        }))


class RolesHandler(APIHandler):
    """``GET /mechnb/roles``: the role registry, for the role picker."""

    @web.authenticated
    def get(self) -> None:
        from .roles import registry

        self.finish(json.dumps([
            {"name": r.name, "group": r.group,
             "purpose": {"en": r.purpose_en, "zh": r.purpose_zh},
             "label_prefix": r.label_prefix}
            for r in registry().values()
        ], ensure_ascii=False))


class PhrasesHandler(APIHandler):
    """``GET /mechnb/phrases?q=&lang=&function=&limit=``: phrase search, as ``mechnb phrases``."""

    @web.authenticated
    def get(self) -> None:
        from .errors import MechnbError
        from .phrases import search

        lang = self.get_argument("lang", "") or None
        try:
            limit = int(self.get_argument("limit", "50"))
            hits = search(self.get_argument("q", ""), function=self.get_argument("function", "")
                          or None, lang=lang, limit=limit)  # type: ignore[arg-type]
        except (ValueError, MechnbError) as exc:
            raise web.HTTPError(400, str(exc)) from None
        self.finish(json.dumps([p.to_record() for p in hits], ensure_ascii=False))


HANDLERS: list[tuple[str, type[APIHandler]]] = [
    ("check", CheckHandler),
    ("export", ExportHandler),
    ("roles", RolesHandler),
    ("phrases", PhrasesHandler),
]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register the ``/mechnb/*`` handlers (called by jupyter_server at start-up)."""
    web_app = serverapp.web_app
    base_url = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base_url, "mechnb", name), handler)
                                 for name, handler in HANDLERS])
    serverapp.log.info("mechnb: server extension loaded (/mechnb/check, /export, /roles, /phrases)")
