"""Running TeX in a bubblewrap sandbox: the TeX tree read-only, one writable folder, no network.

``MECHNB_SANDBOX`` chooses: ``auto`` (the default: use bubblewrap when it works here, else run
without it), ``off`` (never) or ``require`` (refuse to compile without it).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from .errors import SandboxUnavailableError

MODES = ("auto", "off", "require")

# Read-only in the sandbox when they exist: the TeX tree, fonts and what the dynamic loader,
# Perl (latexmk) and fontconfig read. Never /etc as a whole (/etc/passwd, keys), never homes.
_RO_PATHS = ("/usr", "/etc/texmf", "/etc/fonts", "/etc/ld.so.cache", "/etc/ld.so.conf",
             "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/perl", "/etc/papersize",
             "/etc/libpaper.d", "/var/lib/texmf", "/var/cache/fontconfig")
_TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

# The environment TeX sees inside: nothing of the caller's but the locale and the TeX settings
# (tokens or paths in other variables stay outside).
_PASS_ENV_PREFIXES = ("TEX", "LC_", "SOURCE_DATE_EPOCH", "FORCE_SOURCE_DATE")
_PASS_ENV = ("LANG", "LANGUAGE", "TZ", "PATH", "max_print_line", "error_line", "half_error_line",
             "openout_any", "openin_any", "shell_escape")


def mode() -> str:
    """The sandbox mode from ``MECHNB_SANDBOX`` (unknown values count as ``auto``)."""
    value = os.environ.get("MECHNB_SANDBOX", "auto").strip().lower()
    return value if value in MODES else "auto"


@functools.cache
def _tex_roots() -> tuple[str, ...]:
    """TeX directories outside ``/usr`` (a TeX Live in ``/opt``, the user's ``~/texmf``)."""
    kpsewhich = shutil.which("kpsewhich")
    roots: list[str] = []
    if kpsewhich:
        try:
            out = subprocess.run([kpsewhich, "-expand-var=$SELFAUTOPARENT|$TEXMFHOME"],
                                 capture_output=True, text=True, timeout=20, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        roots += [p.strip() for p in out.split("|")]
    latexmk = shutil.which("latexmk")
    if latexmk:
        roots.append(str(Path(os.path.realpath(latexmk)).parent))
    keep: list[str] = []
    for root in roots:
        real = os.path.realpath(root) if root else ""
        # "/" is SELFAUTOPARENT of a TeX Live installed in /usr/bin: already visible
        if (real and real != "/" and os.path.isdir(real) and not real.startswith("/usr/")
                and real not in keep):
            keep.append(real)
    return tuple(keep)


def bwrap_command(workdir: Path, argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """``bwrap …`` running ``argv`` in ``workdir`` (writable) with only the TeX tree visible."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailableError("bubblewrap (bwrap) is not installed")
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
           "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for top in _TOP_LINKS:  # merged-/usr systems have /lib -> usr/lib
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    for path in (*_RO_PATHS, *_tex_roots()):
        if os.path.lexists(path):
            cmd += ["--ro-bind-try", path, path]
    inside = str(workdir)
    cmd += ["--bind", inside, inside, "--chdir", inside]
    for key, value in env.items():
        if key in _PASS_ENV or key.startswith(_PASS_ENV_PREFIXES):
            cmd += ["--setenv", key, value]
    # HOME is the build folder: latexmk, fontconfig and luaotfload may keep caches under it
    cmd += ["--setenv", "HOME", inside, "--setenv", "TEXMFVAR", f"{inside}/.texmf-var",
            "--setenv", "TEXMFCONFIG", f"{inside}/.texmf-config", "--", *argv]
    return cmd


@functools.cache
def _probe() -> str | None:
    """``None`` when bubblewrap can start a process here, else why not (cached per process)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mechnb-probe-") as tmp:
        try:
            proc = subprocess.run(bwrap_command(Path(tmp), ["true"], {"PATH": os.defpath}),
                                  capture_output=True, text=True, timeout=30, check=False,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bwrap cannot run ({exc})"
    if proc.returncode != 0:
        why = proc.stderr.strip().splitlines()
        return f"bwrap cannot start a sandbox here ({why[-1] if why else proc.returncode})"
    return None


def available() -> str | None:
    """``None`` if the sandbox works on this machine, else the reason it does not."""
    return _probe()


def use_sandbox(requested: bool | None = None) -> tuple[bool, str]:
    """Whether to sandbox this compile, and a note for the progress messages.

    ``requested`` overrides ``MECHNB_SANDBOX`` (``True`` = require, ``False`` = off).
    """
    chosen = mode() if requested is None else ("require" if requested else "off")
    if chosen == "off":
        return False, "without a sandbox (MECHNB_SANDBOX=off)"
    why = available()
    if why is None:
        return True, "in a bubblewrap sandbox"
    if chosen == "require":
        raise SandboxUnavailableError(f"the TeX sandbox is required but {why}")
    return False, f"without a sandbox ({why})"
