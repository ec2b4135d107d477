"""Per-process memos of pure functions of one cell's text.

A check parses, scans and renders every cell; most of that depends on the cell's text alone.
In a long-lived process (the Jupyter server checks a notebook on every save) the next check then
redoes only the cells whose text changed. A memo holds results that nobody mutates, keyed by
the text itself (equal text, equal result), and starts over past its limit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_ALL: list[SourceMemo[object]] = []
_OTHERS: list[Callable[[], None]] = []


class SourceMemo(Generic[T]):
    """``fn(source)``, computed once per distinct ``source`` in this process."""

    def __init__(self, fn: Callable[[str], T], limit: int = 20_000) -> None:
        self._fn = fn
        self._limit = limit
        self._done: dict[str, T] = {}
        self._lock = threading.Lock()
        _ALL.append(self)  # type: ignore[arg-type]

    def __call__(self, source: str) -> T:
        try:
            return self._done[source]
        except KeyError:
            pass
        value = self._fn(source)
        with self._lock:
            if len(self._done) >= self._limit:
                self._done.clear()
            self._done[source] = value
        return value

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._done.clear()


def also_clear(forget: Callable[[], None]) -> None:
    """Have ``clear_all`` call ``forget`` too (a cache kept elsewhere, e.g. the renderer's)."""
    _OTHERS.append(forget)


def clear_all() -> None:
    """Empty every memo of this process (a cold check, for benchmarks and tests)."""
    for memo in _ALL:
        memo.clear()
    for forget in _OTHERS:
        forget()
