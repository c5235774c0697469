"""One call at a time per Memory: a decorator for the methods that touch what its threads
share (its index connections, caches and decoded headers; decision 0033 has the measurement)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar


class Locked(Protocol):
    """An object whose calls are serialised by the re-entrant lock it holds."""

    @property
    def _lock(self) -> Any: ...


_S = TypeVar("_S", bound=Locked)
_T = TypeVar("_T")
_P = ParamSpec("_P")


def serialised(method: Callable[Concatenate[_S, _P], _T]) -> Callable[Concatenate[_S, _P], _T]:
    """`method`, run while holding its object's lock."""

    def locked(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(locked, method)
    return locked
