"""Regular expressions compiled on first use, not at import (DESIGN §6: start-up time).

``lazy(r"…", re.I)`` stands where ``re.compile(r"…", re.I)`` stood at module level. The
pattern is compiled the first time one of its methods is looked up; from then on the methods
are the compiled pattern's own (bound once, so a call costs what it cost before). Importing a
module that holds a hundred patterns thus costs nothing until a rule runs.
"""

from __future__ import annotations

import re
from typing import Any, cast


class LazyPattern:
    """A ``re.Pattern`` stand-in that compiles itself when first used."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (``re`` keeps it in its cache too)."""
        compiled: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = re.compile(self.pattern, self._flags)
            self.__dict__.update(
                _compiled=compiled, search=compiled.search, match=compiled.match,
                fullmatch=compiled.fullmatch, finditer=compiled.finditer,
                findall=compiled.findall, sub=compiled.sub, subn=compiled.subn,
                split=compiled.split, flags=compiled.flags,
                groups=compiled.groups, groupindex=compiled.groupindex)
        return compiled

    def __getattr__(self, name: str) -> Any:  # only for names not set yet
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags!r})"


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done the first time the pattern is used."""
    return cast("re.Pattern[str]", LazyPattern(pattern, int(flags)))
