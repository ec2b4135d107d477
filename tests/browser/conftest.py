"""Real JupyterLab / Notebook 7 servers and Debian's Chromium for the extension's browser tests.

Each server runs from this venv on a free port with a token, a temporary root directory and
isolated Jupyter config/data/runtime/settings directories, so nothing of the developer's set-up
leaks in. Pages expose ``window.jupyterapp`` (``--expose-app-in-browser``) for assertions on the
document model; user actions go through the keyboard, the mouse and the command palette.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
FIXTURES = Path(__file__).parent / "fixtures"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running Jupyter server: its URL, token, root directory and log."""

    kind: str
    url: str
    token: str
    root: Path
    log: Path
    proc: subprocess.Popen[bytes]

    def page_url(self, notebook: str) -> str:
        """The URL that opens ``notebook`` (relative to the root) in this frontend."""
        if self.kind == "lab":  # a fresh workspace: no tabs restored from earlier tests
            workspace = "t" + os.urandom(4).hex()
            return f"{self.url}lab/workspaces/{workspace}/tree/{notebook}?reset&token={self.token}"
        return f"{self.url}notebooks/{notebook}?token={self.token}"

    def copy_fixture(self, name: str, as_name: str | None = None) -> Path:
        """Copy a fixture notebook into the server root, return its path on disk."""
        dest = self.root / (as_name or name)
        shutil.copyfile(FIXTURES / name, dest)
        return dest

    def api(self, path: str) -> Any:
        """GET a JSON endpoint of the server with the token."""
        sep = "&" if "?" in path else "?"
        with urllib.request.urlopen(f"{self.url}{path}{sep}token={self.token}", timeout=30) as r:
            return json.load(r)


COLLABORATION_LABEXTENSIONS = ("@jupyter/collaboration-extension",
                               "@jupyter/docprovider-extension")
COLLABORATION_SERVEREXTENSION = "jupyter_server_ydoc"


def has_collaboration() -> bool:
    """Whether jupyter-collaboration (real-time collaboration) is installed in this venv."""
    import importlib.util

    return importlib.util.find_spec(COLLABORATION_SERVEREXTENSION) is not None


def _isolated_env(base: Path, disable_extension: bool, rtc: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
    dirs = {name: base / name for name in ("config", "data", "runtime", "ipython",
                                           "settings", "workspaces")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    built = os.environ.get("MECHNB_TEST_LABEXTENSION")
    if built:
        # a labextension built in a work tree (jupyter-builder) instead of the installed one:
        # the user data dir first in JupyterLab's labextensions path (a venv comes first unless
        # JUPYTER_PREFER_ENV_PATH=0)
        shutil.copytree(built, dirs["data"] / "labextensions" / "mechnb")
    env.update({
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_DATA_DIR": str(dirs["data"]),
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "IPYTHONDIR": str(dirs["ipython"]),
        "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
        "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # this server's own record of approved TeX (`mechnb trust`), see trust_home()
        "XDG_DATA_HOME": str(base / "xdg-data"),
        # and its own per-user cache (preview builds, sealed records)
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
    })
    if built:
        env["JUPYTER_PREFER_ENV_PATH"] = "0"
    # no news / update pop-ups over the notebook
    notif = dirs["settings"] / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True, exist_ok=True)
    (notif / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    if not rtc and has_collaboration():
        # the servers run without real-time collaboration unless a test asks for it: its server
        # extension and its JupyterLab extension off, in this server's own config
        (dirs["config"] / "jupyter_server_config.json").write_text(json.dumps(
            {"ServerApp": {"jpserver_extensions": {COLLABORATION_SERVEREXTENSION: False}}}))
        labconfig = dirs["config"] / "labconfig"
        labconfig.mkdir(exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps(
            {"disabledExtensions": dict.fromkeys(COLLABORATION_LABEXTENSIONS, True)}))
    if disable_extension:
        # --level=user: the isolated JUPYTER_CONFIG_DIR, never the venv's (sys-prefix) config
        subprocess.run([str(BIN / "jupyter"), "labextension", "disable", "--level=user",
                        "mechnb"], env=env, check=True, capture_output=True)
        page_config = json.loads((dirs["config"] / "labconfig" / "page_config.json").read_text())
        assert page_config["disabledExtensions"]["mechnb"] is True
    return env


def start_server(kind: str, base: Path, *, disable_extension: bool = False,
                 config: Path | None = None, rtc: bool = False) -> Server:
    """Start ``jupyter lab`` or ``jupyter notebook`` and wait until it answers.

    ``config``: a ``jupyter_server_config.py`` for this server (e.g. another authorizer).
    """
    root = base / "root"
    root.mkdir(parents=True, exist_ok=True)
    env = _isolated_env(base, disable_extension, rtc)
    if config is not None:
        shutil.copyfile(config, base / "config" / "jupyter_server_config.py")
    port = _free_port()
    token = "mechnb-test-" + os.urandom(6).hex()
    log = base / f"{kind}.log"
    app = "LabApp" if kind == "lab" else "JupyterNotebookApp"
    argv = [str(BIN / "jupyter"), kind, "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--{app}.expose_app_in_browser=True",
            "--ServerApp.open_browser=False", "--allow-root"]
    if kind == "lab":
        argv.append("--LabApp.extension_manager=readonly")
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                cwd=root, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter {kind} exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}api/status?token={token}", timeout=2):
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.terminate()
        raise RuntimeError(f"jupyter {kind} did not start:\n{log.read_text()}")
    return Server(kind, url, token, root, log, proc)


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's Chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def _server_fixture(kind: str, tmp_path_factory: pytest.TempPathFactory,
                    disable_extension: bool = False, rtc: bool = False) -> Iterator[Server]:
    if rtc and not has_collaboration():
        pytest.fail("jupyter-collaboration is not installed: `make install` installs the test "
                    "extras, which include it")
    server = start_server(kind, tmp_path_factory.mktemp(f"jupyter-{kind}"),
                          disable_extension=disable_extension, rtc=rtc)
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _server_fixture("lab", tmp_path_factory)


@pytest.fixture(scope="session")
def notebook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _server_fixture("notebook", tmp_path_factory)


@pytest.fixture(scope="session")
def lab_server_rtc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """JupyterLab with real-time collaboration (jupyter-collaboration) on."""
    yield from _server_fixture("lab", tmp_path_factory, rtc=True)


@pytest.fixture(scope="session")
def notebook_server_rtc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Notebook 7 with real-time collaboration on."""
    yield from _server_fixture("notebook", tmp_path_factory, rtc=True)


@pytest.fixture(scope="session")
def lab_server_without_extension(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _server_fixture("lab", tmp_path_factory, disable_extension=True)


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"failed-{request.node.name}.png"))
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{rep.when}", rep)
