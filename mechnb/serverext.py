"""mechnb's jupyter_server extension: check, export and the role list for the UI, no kernel needed.

Endpoints (authenticated and authorized on the ``contents`` resource — reading for check, roles,
phrases and fetching a built preview, writing for everything that runs TeX (export, building the
preview) or writes (new paper, approvals) — paths relative to the server root, confined to it and,
as Jupyter's contents API does, refused with 404 when a part is hidden (a name starting with
``.``) unless ``ContentsManager.allow_hidden`` is set):

- ``GET /mechnb/check?path=NB``: the checker's findings for the saved notebook (``to_json()``)
- ``POST /mechnb/export {"path": NB, "pdf": bool?, "engine": str?, "bundle": str | [str]?}``:
  runs ``mechnb export`` on it (``--engine``, ``--bundle arxiv|overleaf``; never ``--trust``) in an
  isolated Python (``-I``: no user site, no ``PYTHON*`` variables) from a private temporary
  directory, so nothing planted beside the notebook (a ``mechnb.py``, an ``argparse.py``) is
  imported
- ``GET /mechnb/roles``: the role registry (name, group, purpose, label prefix) for the role picker
- ``GET /mechnb/phrases?q=&lang=&function=&limit=``: phrase search (``Phrase.to_record()`` list)
- ``POST /mechnb/moves {"text": str, "lang": "en"|"zh"?}``: the move analysis of a text (the
  active abstract cell, unsaved edits included), with phrase suggestions for missing moves
- ``POST /mechnb/preview {"path"}`` / ``GET /mechnb/preview?path=``: build / fetch the paper
  preview PDF (``mechnb.exporter.preview``); ``GET /mechnb/synctex``: PDF point ↔ cell
- ``GET``/``POST /mechnb/trust``: what the TeX gate wants reviewed, and approving it

Exports and preview builds share ``EXPORTS``: two at once, four waiting; each holds its slot at
most ``slot_seconds()`` (``$MECHNB_SLOT_TIMEOUT``, else the work's own limit plus
``SLOT_MARGIN``), then the slot is freed and the request answers 504 — even when the work is stuck
where no time limit reaches (a read that never returns).

Enabled by ``etc/jupyter/jupyter_server_config.d/mechnb.json`` (installed with the wheel).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import math
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from jupyter_core.paths import is_hidden
from jupyter_server.auth import decorator
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

ENGINE_NAMES = ("pdflatex", "xelatex", "lualatex")
"""What ``"engine"`` may be (``mechnb.notebook.TEX_ENGINES``, kept here: no import at start-up)."""
BUNDLE_NAMES = ("arxiv", "overleaf")
"""What ``"bundle"`` may be (``mechnb.exporter.bundle.BUNDLE_KINDS``)."""
EXPORT_TIMEOUT = 600.0
"""Seconds an export (with latexmk and the bundles' checks) may take before it is stopped."""
EXPORT_SLOTS = 2
"""Exports (TeX compiles) the server runs at once."""
EXPORT_QUEUE = 4
"""Exports that may wait for a slot; beyond that the server answers 503 (busy)."""
SLOT_TIMEOUT_ENV = "MECHNB_SLOT_TIMEOUT"
"""Seconds any export or preview build may hold a slot (overrides the defaults below)."""
SLOT_MARGIN = 60.0
"""Seconds beyond the work's own time limit (a preview: the TeX limit, ``MECHNB_TEX_TIMEOUT``;
an export: ``EXPORT_TIMEOUT``) before its slot is taken back."""

_T = TypeVar("_T")


def slot_seconds(work_limit: float) -> float:
    """How long work with its own time limit ``work_limit`` may hold a slot:
    ``$MECHNB_SLOT_TIMEOUT`` when it is a positive number, else ``work_limit + SLOT_MARGIN``."""
    raw = os.environ.get(SLOT_TIMEOUT_ENV, "").strip()
    try:
        seconds = float(raw) if raw else 0.0
    except ValueError:
        seconds = 0.0
    return seconds if seconds > 0 and math.isfinite(seconds) else work_limit + SLOT_MARGIN


class ExportQueue:
    """At most ``slots`` exports at once and ``queue`` more waiting, in arrival order.

    ``enter()`` returns how many exports were ahead when the request arrived (0: it runs at
    once) or raises ``web.HTTPError(503)`` when the queue is full; use it as
    ``position = await queue.enter()`` … ``queue.leave()``, or ``run()``: the same with a time
    limit on holding the slot.
    """

    def __init__(self, slots: int = EXPORT_SLOTS, queue: int = EXPORT_QUEUE) -> None:
        self.slots, self.queue = slots, queue
        self.running = 0
        self.waiting: list[asyncio.Future[None]] = []

    async def enter(self) -> int:
        ahead = self.running + len(self.waiting) - self.slots + 1
        if self.running < self.slots and not self.waiting:
            self.running += 1
            return 0
        if len(self.waiting) >= self.queue:
            raise web.HTTPError(503, f"busy: {self.running} exports are running and "
                                     f"{len(self.waiting)} are waiting; try again shortly")
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            await turn
        except BaseException:
            if turn in self.waiting:
                self.waiting.remove(turn)
            elif turn.done() and not turn.cancelled():
                self.leave()  # our turn came as we were cancelled: pass it on
            raise
        return max(ahead, 1)

    def leave(self) -> None:
        while self.waiting:
            turn = self.waiting.pop(0)
            if not turn.done():
                turn.set_result(None)  # the slot passes to the next in line
                return
        self.running -= 1

    async def run(self, work: Callable[[], Awaitable[_T]], seconds: float, what: str,
                  on_timeout: Callable[[], object] | None = None) -> tuple[int, _T]:
        """``work()`` in a slot, for at most ``seconds``: ``(queue position, its result)``.

        Past the limit the work is cancelled, ``on_timeout`` runs (to stop what a cancellation
        cannot reach, e.g. by setting a thread's cancel event), the slot is freed and
        ``web.HTTPError(504)`` names ``what`` and the limit. The wait for a slot is not counted.
        """
        position = await self.enter()
        try:
            return position, await asyncio.wait_for(work(), seconds)
        except asyncio.TimeoutError:
            if on_timeout is not None:
                on_timeout()
            raise web.HTTPError(
                504, f"{what} took longer than {seconds:g} s and was stopped, its slot freed "
                     f"(TeX ran past its time, or a file it reads never ends: a pipe or a "
                     f"device); the server's {SLOT_TIMEOUT_ENV} sets this limit") from None
        finally:
            self.leave()


EXPORTS = ExportQueue()


def in_daemon_thread(function: Callable[[], _T]) -> asyncio.Future[_T]:
    """``function()`` in a daemon thread of its own, as a future of the running loop.

    Unlike ``asyncio.to_thread`` a thread stuck for good (a read that never returns) takes no
    worker of the shared executor and does not hold up the server's exit; cancelling the future
    abandons the thread's result.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is None:
            future.set_result(value)
        else:
            future.set_exception(error)

    def target() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = function()
        except BaseException as exc:  # handed to the awaiting request
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=target, name="mechnb-work", daemon=True).start()
    return future


_Method = TypeVar("_Method", bound=Callable[..., Any])


def authorized(action: str) -> Callable[[_Method], _Method]:
    """jupyter_server's ``@authorized(action)`` on the handler's ``auth_resource`` (typed)."""
    return cast(Callable[[_Method], _Method], decorator.authorized(action))


# The child runs the mechnb this server runs (an installed or a source tree alike), imported by
# its location; the notebook's folder is neither its cwd nor on its path.
_CHILD = ("import importlib.util, sys; pkg = sys.argv.pop(1); "
          "spec = importlib.util.spec_from_file_location('mechnb', pkg + '/__init__.py', "
          "submodule_search_locations=[pkg]); mod = importlib.util.module_from_spec(spec); "
          "sys.modules['mechnb'] = mod; spec.loader.exec_module(mod); "
          "from mechnb.cli import main; sys.exit(main())")


def mechnb_command(*args: str) -> list[str]:
    """``python -I -c … <mechnb package dir> args…``: the CLI of this very mechnb, isolated."""
    package = Path(__file__).resolve().parent
    return [sys.executable, "-I", "-c", _CHILD, str(package), *args]


class _MechnbHandler(APIHandler):
    """The ``contents`` resource: reading the notebooks (and the lists the UI needs) or, for
    export, writing beside them."""

    auth_resource = "contents"


class _NotebookHandler(_MechnbHandler):
    """Resolves the ``path`` argument to a notebook inside the server root."""

    def root(self) -> Path:
        root = getattr(self.contents_manager, "root_dir", None) or self.settings.get(
            "server_root_dir", ".")
        return Path(str(root)).expanduser().resolve()

    def confined(self, rel: str, what: str, hidden_status: int = 404) -> Path:
        """``rel`` (relative to the server root) resolved, symlinks followed: 400 for an invalid
        path, 403 outside the root, and — unless the contents manager's ``allow_hidden`` is set —
        ``hidden_status`` when the path as written or as resolved has a hidden part (a name
        starting with ``.``, or hidden by the file system), as Jupyter's contents API answers
        (404 "does not exist" for reading, 400 for creating). Every endpoint that takes a path
        goes through here."""
        root = self.root()
        written = os.path.normpath(root / rel.strip().lstrip("/"))  # as the contents API reads it
        try:
            path = Path(written).resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, symlink loop
            raise web.HTTPError(400, f"invalid {what} path: {exc}") from None
        outside = [p for p in (Path(written), path) if p != root and root not in p.parents]
        if outside:
            raise web.HTTPError(403, f"{rel} is outside the server root")
        if not getattr(self.contents_manager, "allow_hidden", False):
            try:
                hidden = is_hidden(written, str(root)) or is_hidden(str(path), str(root))
            except (OSError, ValueError):
                hidden = True
            if hidden:
                self.log.info("mechnb: refusing the hidden path %r (ContentsManager.allow_hidden "
                              "is off)", rel)
                message = (f"no {what} at {rel}" if hidden_status == 404 else
                           f"{rel} is hidden; mechnb does not use hidden files or folders")
                raise web.HTTPError(hidden_status, message)
        return path

    def notebook(self, rel: object) -> Path:
        if not isinstance(rel, str) or not rel.strip():
            raise web.HTTPError(400, "give the notebook path, relative to the server root")
        path = self.confined(rel, "notebook")
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
    @authorized("read")
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
        except Exception as exc:  # a crashing rule is the notebook's problem to report, not a 500
            raise web.HTTPError(422, f"the checks failed on {path.name}: "
                                     f"{type(exc).__name__}: {exc}") from None
        self.finish(json.dumps([f.to_json() for f in findings]))


class ArgumentMapHandler(_NotebookHandler):
    """``GET /mechnb/argmap?path=NB[&format=json]``: the argument map of the saved notebook (SVG,
    as ``mechnb check --map``; every text escaped, tooltips plain text), or its nodes and edges
    as JSON (``checker.argmap.argument_map_json``) for a frontend that draws it."""

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .checker import check
        from .checker.argmap import argument_map_svg
        from .errors import MechnbError
        from .notebook import read_paper

        path = self.notebook(self.get_argument("path", ""))
        form = self.get_argument("format", "svg")
        if form not in ("svg", "json"):
            raise web.HTTPError(400, "format must be svg or json")

        def draw() -> str:
            paper = read_paper(path)
            if form == "json":
                from .checker.argmap import argument_map_json

                return json.dumps(argument_map_json(paper, check(paper)), ensure_ascii=False)
            return argument_map_svg(paper, check(paper))

        try:
            svg = await asyncio.to_thread(draw)
        except MechnbError as exc:
            raise web.HTTPError(422, str(exc)) from None
        if form == "json":
            self.finish(svg)
            return
        self.set_header("Content-Type", "image/svg+xml; charset=utf-8")
        self.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
        self.finish(svg)


class WordCountHandler(_NotebookHandler):
    """``GET /mechnb/wordcount?path=NB``: the saved notebook's word count
    (``mechnb.wordcount.WordCount.to_json``, as ``mechnb count --format json``)."""

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .errors import MechnbError
        from .wordcount import count_notebook

        path = self.notebook(self.get_argument("path", ""))
        try:
            count = await asyncio.to_thread(count_notebook, path)
        except MechnbError as exc:
            raise web.HTTPError(422, str(exc)) from None
        self.finish(json.dumps(count.to_json(), ensure_ascii=False))


class CompletionsHandler(_NotebookHandler):
    """``GET /mechnb/completions?path=NB``: the saved notebook's labels (with the role and
    title of their cells) and bibliography keys (with each entry's title), for completing
    ``\\cref{`` and ``[@`` / ``\\cite{`` (``mechnb.completions.completions``)."""

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .completions import completions
        from .errors import MechnbError
        from .notebook import read_paper

        path = self.notebook(self.get_argument("path", ""))
        try:
            answer = await asyncio.to_thread(lambda: completions(read_paper(path)))
        except MechnbError as exc:
            raise web.HTTPError(422, str(exc)) from None
        self.finish(json.dumps(answer, ensure_ascii=False))


def _pdf_available() -> bool:
    return shutil.which("latexmk") is not None and shutil.which("xelatex") is not None


class ExportHandler(_NotebookHandler):
    """``POST /mechnb/export``: write the LaTeX draft (and PDF), by default in ``build/<stem>/``.

    Runs the CLI in a subprocess, so a slow or crashing TeX run never blocks or takes down the
    server; the reply carries the exit code, the log and the files written.
    """

    @web.authenticated
    @authorized("write")
    async def post(self) -> None:
        body = self.get_json_body()  # invalid JSON: 400 from jupyter_server
        if not isinstance(body, dict):
            raise web.HTTPError(400, 'send a JSON object: {"path": "NB.ipynb", "pdf": true}')
        path = self.notebook(body.get("path"))
        pdf = body.get("pdf")
        if pdf is None:
            pdf = _pdf_available()
        elif not isinstance(pdf, bool):
            raise web.HTTPError(400, '"pdf" must be true or false')
        options = ["--pdf"] if pdf else []
        engine = body.get("engine")
        if engine is not None:
            if engine not in ENGINE_NAMES:
                raise web.HTTPError(400, f'"engine" must be one of {", ".join(ENGINE_NAMES)}')
            options += ["--engine", engine]
        bundles = body.get("bundle")
        if isinstance(bundles, str):
            bundles = [bundles]
        if bundles is not None and (not isinstance(bundles, list) or not all(
                b in BUNDLE_NAMES for b in bundles)):
            raise web.HTTPError(400, f'"bundle" must be {" or ".join(BUNDLE_NAMES)} (or a list)')
        for kind in dict.fromkeys(bundles or ()):
            options += ["--bundle", kind]
        argv = mechnb_command("export", str(path), *options)
        position, reply = await EXPORTS.run(lambda: self._export(argv, path, bundles),
                                            slot_seconds(EXPORT_TIMEOUT),
                                            f"the export of {path.name}")
        self.finish(json.dumps({**reply, "queue_position": position}))

    async def _export(self, argv: list[str], path: Path, bundles: list[str] | None
                      ) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="mechnb-export-") as cwd:
            found = Path(cwd) / "findings.json"
            argv = [*argv, "--findings-json", str(found)]
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            try:
                out, err = await asyncio.wait_for(proc.communicate(), EXPORT_TIMEOUT)
            except asyncio.TimeoutError:
                proc.kill()
                out, err = await proc.communicate()
                err += f"\nexport stopped after {EXPORT_TIMEOUT:.0f} s".encode()
            finally:  # also when the slot's time limit cancels this request
                if proc.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
            try:
                findings = json.loads(found.read_text("utf-8"))
            except (OSError, ValueError):
                findings = []
        # the CLI prints the files it wrote on stdout (the .tex, then the .pdf), findings on stderr
        written = [path.parent / line.strip()
                   for line in out.decode("utf-8", "replace").splitlines() if line.strip()]
        tex = next((p for p in written if p.suffix == ".tex" and p.is_file()), None)
        pdf_file = next((p for p in written if p.suffix == ".pdf" and p.is_file()), None)
        archives = [p for p in written if p.name.endswith(("-arxiv.tar.gz", "-overleaf.zip"))
                    and p.is_file()]
        return {
            "ok": proc.returncode == 0 and tex is not None
                  and len(archives) == len(dict.fromkeys(bundles or ())),
            "returncode": proc.returncode,
            "tex": self.relative(tex) if tex else None,
            "pdf": self.relative(pdf_file) if pdf_file else None,
            "bundles": [self.relative(p) for p in archives],
            "log": (out + err).decode("utf-8", "replace"),
            "findings": findings if isinstance(findings, list) else [],
        }


class RolesHandler(_MechnbHandler):
    """``GET /mechnb/roles``: the role registry, for the role picker."""

    @web.authenticated
    @authorized("read")
    def get(self) -> None:
        from .roles import registry

        self.finish(json.dumps([
            {"name": r.name, "group": r.group,
             "purpose": {"en": r.purpose_en, "zh": r.purpose_zh},
             "label_prefix": r.label_prefix}
            for r in registry().values()
        ], ensure_ascii=False))


class PhrasesHandler(_MechnbHandler):
    """``GET /mechnb/phrases?q=&lang=&function=&limit=``: phrase search, as ``mechnb phrases``."""

    @web.authenticated
    @authorized("read")
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


MOVES_MAX_CHARS = 100_000
"""Longest text ``POST /mechnb/moves`` analyses (an abstract is ~1,500 characters)."""


class MovesHandler(_MechnbHandler):
    """``POST /mechnb/moves``: which moves the posted text makes, sentence by sentence.

    The reply is ``mechnb moves --format json`` plus ``lang``, ``templated`` (missing moves whose
    sentence still has template slots), ``out_of_order``, ``purpose`` and ``suggestions``
    (phrases for each missing move). Pure CPU, about 5 ms: it runs on the server's thread.
    """

    @web.authenticated
    @authorized("read")
    def post(self) -> None:
        body = self.get_json_body() or {}
        if not isinstance(body, dict):
            raise web.HTTPError(400, 'send a JSON object {"text": ..., "lang": "en"|"zh"}')
        text, lang = body.get("text"), body.get("lang")
        if not isinstance(text, str):
            raise web.HTTPError(400, "give the text to analyse as a string in `text`")
        if len(text) > MOVES_MAX_CHARS:
            raise web.HTTPError(413, f"the text is longer than {MOVES_MAX_CHARS} characters")
        if lang not in (None, "", "en", "zh"):
            raise web.HTTPError(400, "lang must be en or zh")
        from .moves.analyser import analyse
        from .moves.cues import suggestions
        from .moves.view import purpose

        result = analyse(text, lang or None)
        out = result.to_json()
        out.update({
            "lang": result.lang,
            "templated": list(result.templated),
            "out_of_order": [{"move": m, "after": a, "sentence": i}
                             for m, a, i in result.out_of_order],
            "purpose": {m: purpose(m, result.lang) for m in result.moves},
            "suggestions": {m: suggestions(m, result.lang) for m in result.missing},
        })
        self.finish(json.dumps(out, ensure_ascii=False))



_SAFE_STEM = re.compile(r"[^\w\u3400-\u9fff-]+")


class NewPaperHandler(_NotebookHandler):
    """``POST /mechnb/new-paper`` ``{"dir", "type", "lang", "title"}``: a new paper notebook from
    the type's scaffold (``type/variant`` for a variant of it: ``failure/mechanistic``) in folder
    ``dir`` (relative to the server root), named after the title (``-2``, ``-3``… when taken:
    nothing is overwritten); replies ``{"path"}``."""

    @web.authenticated
    @authorized("write")
    async def post(self) -> None:
        from .notebook import LANGS, PAPER_TYPES
        from .templates import scaffold_notebook, scaffold_variants

        body = self.get_json_body() or {}
        kind, lang = body.get("type"), body.get("lang", "en")
        title = body.get("title") or None
        ptype, _, variant = kind.partition("/") if isinstance(kind, str) else ("", "", "")
        if ptype not in PAPER_TYPES:
            raise web.HTTPError(400, f"type must be one of {', '.join(PAPER_TYPES)}")
        if variant and variant not in scaffold_variants(ptype):
            raise web.HTTPError(400, f"the {ptype} scaffold has no variant {variant!r}")
        if lang not in LANGS:
            raise web.HTTPError(400, "lang must be en or zh")
        if title is not None and (not isinstance(title, str) or len(title) > 300):
            raise web.HTTPError(400, "title must be a string of at most 300 characters")
        rel = body.get("dir") or ""
        if not isinstance(rel, str):
            raise web.HTTPError(400, "dir must be a folder path")
        folder = self.confined(rel, "folder", hidden_status=400)  # as the contents API creates
        if not folder.is_dir():
            raise web.HTTPError(404, f"no folder {rel}")
        stem = _SAFE_STEM.sub("-", (title or f"{ptype} paper").strip()).strip("-_")[:60]
        stem = stem or "paper"
        nb = scaffold_notebook(ptype, lang=lang, title=title, variant=variant or None)
        data = (json.dumps(nb, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
        for n in range(1, 1000):
            path = folder / (stem + (f"-{n}" if n > 1 else "") + ".ipynb")
            try:  # exclusive create: never replaces a file, even one made a moment ago
                with open(path, "xb") as handle:
                    handle.write(data)
            except FileExistsError:
                continue
            self.finish(json.dumps({"path": self.relative(path)}))
            return
        raise web.HTTPError(409, "no free notebook name in that folder")


class _Build:
    """The preview build of one notebook in progress: a newer save cancels it."""

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()


PREVIEW_BUILDS: dict[str, _Build] = {}


class PreviewHandler(_NotebookHandler):
    """The paper preview (``mechnb.exporter.preview``).

    ``POST /mechnb/preview {"path"}`` builds the saved notebook's PDF in the server (a build of
    the same notebook still running is cancelled: the newest save wins) and replies with the
    status, the build's findings, the passes and the seconds; ``GET /mechnb/preview?path=``
    returns the last good PDF (404 before the first build). Building runs TeX, so it needs
    ``write`` on the contents; fetching the PDF already built needs ``read``. A build holds an
    ``EXPORTS`` slot for at most ``slot_seconds`` of the TeX limit (then 504).
    """

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .exporter.preview import pdf_bytes

        path = self.notebook(self.get_argument("path", ""))
        found = await asyncio.to_thread(pdf_bytes, path)
        if found is None:
            raise web.HTTPError(404, f"no preview of {path.name} yet")
        data, state = found
        self.set_header("Content-Type", "application/pdf")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Mechnb-Version", str(state.get("version", "")))
        self.finish(data)

    @web.authenticated
    @authorized("write")  # a compile: a read-only user gets only the PDFs already built
    async def post(self) -> None:
        from .errors import MechnbError
        from .exporter.preview import build
        from .exporter.processes import DEFAULT_LIMIT, limit_seconds

        body = self.get_json_body() or {}
        if not isinstance(body, dict):
            raise web.HTTPError(400, 'send a JSON object: {"path": "NB.ipynb"}')
        path = self.notebook(body.get("path"))
        key = str(path)
        while (running := PREVIEW_BUILDS.get(key)) is not None:
            running.cancel.set()
            await asyncio.shield(running.done)
        mine = _Build()
        PREVIEW_BUILDS[key] = mine
        try:
            try:
                tex_limit = limit_seconds()
            except MechnbError:  # a bad MECHNB_TEX_TIMEOUT: the build itself reports it
                tex_limit = DEFAULT_LIMIT
            # its own thread: one stuck past the limit (a read that never returns) is abandoned
            # with its slot freed, and takes no worker of the executor the other endpoints use
            _, result = await EXPORTS.run(
                lambda: in_daemon_thread(lambda: build(path, cancel=mine.cancel)),
                slot_seconds(tex_limit), f"the preview build of {path.name}",
                on_timeout=mine.cancel.set)  # stops TeX at once; a blocked read stays blocked
        except MechnbError as exc:
            raise web.HTTPError(422, str(exc)) from None
        finally:
            mine.done.set_result(None)
            if PREVIEW_BUILDS.get(key) is mine:
                del PREVIEW_BUILDS[key]
        self.finish(json.dumps(result.to_json(), ensure_ascii=False))


class SynctexHandler(_NotebookHandler):
    """SyncTeX on the last preview build.

    ``GET /mechnb/synctex?path=NB&page=P&x=X&y=Y`` (PDF points from the page's top-left) →
    ``{"cell", "cell_id", "line"}`` (0-based cell, 1-based line or null; 404 outside any cell);
    ``GET /mechnb/synctex?path=NB&cell=N[&line=L]`` → ``{"page", "x", "y", "width", "height"}``.
    """

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .exporter.preview import place_of, source_at
        from .notebook import read_paper

        path = self.notebook(self.get_argument("path", ""))
        paper = await asyncio.to_thread(read_paper, path)
        try:
            if self.get_argument("cell", ""):
                cell = int(self.get_argument("cell"))
                line = int(self.get_argument("line", "0")) or None
                place = await asyncio.to_thread(place_of, path, cell, paper, line)
                if place is None:
                    raise web.HTTPError(404, f"cell {cell + 1} is not in the preview")
                self.finish(json.dumps(place.__dict__))
                return
            page = int(self.get_argument("page"))
            x, y = float(self.get_argument("x")), float(self.get_argument("y"))
        except ValueError:
            raise web.HTTPError(400, "page, x, y (or cell, line) must be numbers") from None
        found = await asyncio.to_thread(source_at, path, page, x, y, paper)
        if found is None:
            raise web.HTTPError(404, "no notebook cell made that part of the page")
        self.finish(json.dumps(found))


class TrustHandler(_NotebookHandler):
    """``mechnb trust`` from the UI.

    ``GET /mechnb/trust?path=NB`` lists what the TeX gate refuses and what needs review
    (``{"refused": [...], "pending": [{"digest", "cell", "where", "kind", "reason",
    "content"}]}``); ``POST /mechnb/trust {"path", "digests": [...]}`` records this user's
    approval of exactly those items (they must still be pending: content changed since it was
    shown is not approved).
    """

    def _verdict(self, path: Path) -> tuple[Any, Any, list[Any]]:
        from .notebook import read_paper
        from .tex.gate import assess
        from .tex.trust import unapproved

        paper = read_paper(path)
        verdict = assess(paper)
        return paper, verdict, unapproved(verdict)

    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        from .tex.trust import describe

        path = self.notebook(self.get_argument("path", ""))
        paper, verdict, pending = await asyncio.to_thread(self._verdict, path)

        def content(item: Any) -> str:
            # exactly what is approved: the span as it stands in the compiled .tex (or the
            # file's text); the cell's source only when the gate recorded no span
            if item.content:
                return str(item.content)[:4000]
            if item.cell is not None and 0 <= item.cell < len(paper.cells):
                return str(paper.cells[item.cell].source)[:4000]
            return ""

        self.finish(json.dumps({
            "refused": [{"cell": r.cell, "where": r.where, "snippet": r.snippet,
                         "reason": r.reason} for r in verdict.refused],
            "pending": [{"digest": i.digest, "cell": i.cell, "where": i.where, "kind": i.kind,
                         "reason": i.reason, "text": describe(i), "content": content(i)}
                        for i in pending]}, ensure_ascii=False))

    @web.authenticated
    @authorized("write")
    async def post(self) -> None:
        from .tex.trust import TrustRecordError, approve

        body = self.get_json_body() or {}
        if not isinstance(body, dict) or not isinstance(body.get("digests"), list):
            raise web.HTTPError(400, 'send {"path": "NB.ipynb", "digests": [...]}')
        path = self.notebook(body.get("path"))
        wanted = {d for d in body["digests"] if isinstance(d, str)}
        _, _, pending = await asyncio.to_thread(self._verdict, path)
        chosen = [i for i in pending if i.digest in wanted]
        try:
            count = await asyncio.to_thread(approve, chosen, str(path))
        except TrustRecordError as exc:
            raise web.HTTPError(500, str(exc)) from None
        self.finish(json.dumps({"approved": count,
                                "stale": len(wanted) - len(chosen)}))


HANDLERS: list[tuple[str, type[APIHandler]]] = [
    ("check", CheckHandler),
    ("export", ExportHandler),
    ("roles", RolesHandler),
    ("phrases", PhrasesHandler),
    ("moves", MovesHandler),
    ("new-paper", NewPaperHandler),
    ("preview", PreviewHandler),
    ("synctex", SynctexHandler),
    ("trust", TrustHandler),
    ("argmap", ArgumentMapHandler),
    ("wordcount", WordCountHandler),
    ("completions", CompletionsHandler),
]


CONTENTS_EVENTS = "https://events.jupyter.org/jupyter_server/contents_service/v1"


def renamed_notebook_cleanup(root: Path, old_path: str, new_path: str) -> Path | None:
    """After the contents API renamed ``old_path`` to ``new_path`` (relative to ``root``): the
    old name's ``build/<old stem>/`` removed when it holds only mechnb's output for this
    notebook (``exporter.cleanup.remove_stale_build``). Returns the folder removed."""
    if not (old_path.endswith(".ipynb") and new_path.endswith(".ipynb")):
        return None
    from .exporter.cleanup import remove_stale_build

    old = (root / old_path.lstrip("/")).resolve()
    new = (root / new_path.lstrip("/")).resolve()
    real_root = root.resolve()
    if real_root not in old.parents or real_root not in new.parents:
        return None
    try:
        cells = json.loads(new.read_text("utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return None
    ids = {str(c["id"]) for c in cells if isinstance(c, dict) and isinstance(c.get("id"), str)}
    folder = old.parent / "build" / old.stem
    return folder if ids and remove_stale_build(folder, current_ids=ids) else None


def _listen_for_renames(serverapp: Any) -> None:
    """Tidy the old build folder when a notebook is renamed (jupyter_server's contents events;
    a server without them tidies at the next export instead)."""
    events = getattr(serverapp, "event_logger", None)
    root = getattr(serverapp, "root_dir", None)
    if events is None or not root:
        return

    async def on_contents(logger: Any, schema_id: str, data: Any) -> None:
        if isinstance(data, dict) and data.get("action") == "rename":
            with contextlib.suppress(OSError):
                renamed_notebook_cleanup(Path(root), str(data.get("source_path") or ""),
                                         str(data.get("path") or ""))

    try:
        events.add_listener(schema_id=CONTENTS_EVENTS, listener=on_contents)
    except Exception:  # an older jupyter_events: no tidying on rename
        serverapp.log.debug("mechnb: contents events unavailable", exc_info=True)


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register the ``/mechnb/*`` handlers (called by jupyter_server at start-up)."""
    _listen_for_renames(serverapp)
    web_app = serverapp.web_app
    base_url = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base_url, "mechnb", name), handler)
                                 for name, handler in HANDLERS])
    serverapp.log.info("mechnb: server extension loaded (/mechnb/check, /export, /roles, "
                       "/phrases, /moves, /new-paper, /preview, /synctex, /trust, /argmap, "
                       "/wordcount, /completions)")
