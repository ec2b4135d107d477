"""The packaged extension and the /mechnb/* server endpoints of a real JupyterLab server."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import mechnb
import mechnb.roles

from .conftest import BIN, Server

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"


def test_one_version_for_python_and_javascript() -> None:
    package = json.loads((LABEXTENSION / "package.json").read_text())
    assert package["version"] == mechnb.__version__
    built = Path(mechnb.__file__).parent / "labextension" / "package.json"
    assert json.loads(built.read_text())["version"] == mechnb.__version__


def test_labextension_and_server_extension_enabled_after_install(tmp_path: Path) -> None:
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path), "JUPYTER_DATA_DIR": str(tmp_path)}
    labext = subprocess.run([str(BIN / "jupyter"), "labextension", "list"], env=env,
                            capture_output=True, text=True, check=True)
    line = next(ln for ln in (labext.stdout + labext.stderr).splitlines()
                if ln.strip().startswith("mechnb "))
    assert f"v{mechnb.__version__}" in line
    assert "enabled" in line
    assert "OK" in line
    server = subprocess.run([str(BIN / "jupyter"), "server", "extension", "list"], env=env,
                            capture_output=True, text=True, check=True)
    assert any(ln.split()[:2] == ["mechnb", "\x1b[32menabled\x1b[0m"] or
               ln.split()[:2] == ["mechnb", "enabled"]
               for ln in (server.stdout + server.stderr).splitlines() if ln.strip())


def _request(server: Server, path: str, *, token: bool = True, data: Any = None) -> Any:
    url = f"{server.url}mechnb/{path}"
    req = urllib.request.Request(url, method="POST" if data is not None else "GET",
                                 data=None if data is None else json.dumps(data).encode())
    if token:
        req.add_header("Authorization", f"token {server.token}")
    with urllib.request.urlopen(req, timeout=60) as response:
        return json.load(response)


def _status(server: Server, path: str, **kwargs: Any) -> int:
    with pytest.raises(urllib.error.HTTPError) as exc:
        _request(server, path, **kwargs)
    return int(exc.value.code)


def test_roles_endpoint_lists_the_registry(lab_server: Server) -> None:
    roles = {r["name"]: r for r in _request(lab_server, "roles")}
    assert roles["theorem"]["label_prefix"] == "thm"
    assert roles["theorem"]["purpose"]["zh"]
    assert list(roles) == list(mechnb.roles.registry())


def test_check_endpoint_reports_the_seeded_defect(lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "endpoint.ipynb")
    findings = _request(lab_server, "check?path=endpoint.ipynb")
    mech003 = [f for f in findings if f["code"] == "MECH003"]
    assert [(f["cell"], f["cell_id"]) for f in mech003] == [(4, "cell-4")]


def test_endpoints_refuse_unauthenticated_and_outside_paths(lab_server: Server) -> None:
    lab_server.copy_fixture("seeded_defect.ipynb", "guarded.ipynb")
    assert _status(lab_server, "check?path=guarded.ipynb", token=False) == 403
    assert _status(lab_server, "roles", token=False) == 403
    assert _status(lab_server, "check?path=../outside.ipynb") == 403
    assert _status(lab_server, "check?path=missing.ipynb") == 404
    assert _status(lab_server, "check?path=guarded.txt") == 400
    assert _status(lab_server, "export", data={"path": "../../etc/passwd.ipynb"}) == 403
    assert _status(lab_server, "export", data={}) == 400


def test_phrases_endpoint_searches_the_library(lab_server: Server) -> None:
    hits = _request(lab_server, "phrases?q=closed%20form&lang=en&limit=5")
    assert 0 < len(hits) <= 5
    assert all("closed" in (h["en"] + h["note"]["en"]).lower() for h in hits)
    gap = _request(lab_server, "phrases?q=closed%20form&function=abstract/gap")
    assert gap and all(h["function"].startswith("abstract/gap") for h in gap)
    assert _status(lab_server, "phrases?q=x&lang=fr") == 400
