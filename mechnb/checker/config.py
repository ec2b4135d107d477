"""Rule configuration: ``[tool.mechnb]`` in the nearest ``pyproject.toml`` and notebook metadata.

Both places take the same keys::

    disable = ["MECH024", "todo-left"]          # rule codes or slugs
    severity = {MECH005 = "error", todo-left = "info"}

The notebook's ``metadata.mechnb.checks`` is applied after (on top of) the pyproject table.
Problems in the configuration never stop a check; they are reported as ``invalid-config``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..findings import Severity

SEVERITIES = tuple(s.value for s in Severity)


@dataclass(frozen=True)
class CheckConfig:
    """Which rules are off and which have another severity, plus problems found reading it."""

    disabled: frozenset[str] = frozenset()
    """Codes of disabled rules."""
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """Code → severity override."""
    problems: tuple[tuple[str, str], ...] = ()
    """``(where, message)`` for each unusable entry (reported as ``invalid-config``)."""
    source: str | None = None
    """Where the pyproject part came from (for messages), if anywhere."""

    def merged(self, other: CheckConfig) -> CheckConfig:
        """This configuration with ``other`` applied on top."""
        return CheckConfig(
            disabled=self.disabled | other.disabled,
            severity={**self.severity, **other.severity},
            problems=self.problems + other.problems,
            source=self.source or other.source,
        )


def resolve_codes(names: Mapping[str, str]) -> dict[str, str]:
    """Normalise a code-or-slug lookup table (``{"mech003": "MECH003", "slug": "MECH003"}``)."""
    return {k.lower(): v for k, v in names.items()}


def parse_config(data: Any, where: str, names: Mapping[str, str]) -> CheckConfig:
    """Read ``{"disable": [...], "severity": {...}}``; ``names`` maps lower-case codes/slugs."""
    if data is None:
        return CheckConfig()
    if not isinstance(data, Mapping):
        return CheckConfig(problems=((where, "should be a table/object with `disable` and "
                                             "`severity`; it is ignored"),))
    if isinstance(data.get("checks"), Mapping):  # [tool.mechnb.checks] is accepted too
        data = {**data, **data["checks"]}
    problems: list[tuple[str, str]] = []
    disabled: set[str] = set()
    severity: dict[str, Severity] = {}
    raw_disable = data.get("disable", [])
    if isinstance(raw_disable, str):
        raw_disable = [raw_disable]
    if not isinstance(raw_disable, list):
        problems.append((where, "`disable` should be a list of rule codes or names"))
        raw_disable = []
    for item in raw_disable:
        code = names.get(str(item).lower())
        if code is None:
            problems.append((where, f"`disable` names an unknown rule {item!r}; see "
                                    f"`mechnb check --rules`"))
        else:
            disabled.add(code)
    raw_sev = data.get("severity", {})
    if not isinstance(raw_sev, Mapping):
        problems.append((where, "`severity` should map rule codes to error/warning/info"))
        raw_sev = {}
    for key, value in raw_sev.items():
        code = names.get(str(key).lower())
        if code is None:
            problems.append((where, f"`severity` names an unknown rule {key!r}"))
        elif not isinstance(value, str) or value.lower() not in SEVERITIES:
            problems.append((where, f"`severity` of {key} must be one of "
                                    f"{', '.join(SEVERITIES)}, not {value!r}"))
        else:
            severity[code] = Severity(value.lower())
    return CheckConfig(frozenset(disabled), severity, tuple(problems))


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` in ``start`` or a directory above it."""
    here = start if start.is_dir() else start.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _toml_loads(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
        except ModuleNotFoundError:
            raise ImportError("tomli") from None
    result: dict[str, Any] = tomllib.loads(text)
    return result


def load_pyproject_config(notebook: Path | None, names: Mapping[str, str]) -> CheckConfig:
    """``[tool.mechnb]`` of the nearest pyproject.toml above ``notebook`` (empty if none).

    A notebook without a path (built from a dict) has no project, so no pyproject applies.
    """
    if notebook is None:
        return CheckConfig()
    pyproject = find_pyproject(notebook.resolve())
    if pyproject is None:
        return CheckConfig()
    where = str(pyproject)
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return CheckConfig(problems=((where, f"cannot be read ({exc}); its [tool.mechnb] "
                                             f"settings are ignored"),))
    if "mechnb" not in text:
        return CheckConfig()  # cheap exit: most projects have no [tool.mechnb]
    try:
        data = _toml_loads(text)
    except ImportError:
        return CheckConfig(problems=((where, "[tool.mechnb] is ignored: reading TOML on "
                                             "Python 3.10 needs `pip install tomli`"),))
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        return CheckConfig(problems=((where, f"is not valid TOML ({exc}); its [tool.mechnb] "
                                             f"settings are ignored"),))
    tool = data.get("tool", {})
    section = tool.get("mechnb") if isinstance(tool, Mapping) else None
    config = parse_config(section, f"{where} [tool.mechnb]", names)
    return CheckConfig(config.disabled, config.severity, config.problems, where)
