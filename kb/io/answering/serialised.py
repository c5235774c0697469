"""One call at a time per Memory: a decorator for the methods that touch what its threads
share (its index connections, caches and decoded headers; decision 0033 has the measurement),
and a cached value built under the same lock."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar


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


class serialised_cache(Generic[_S, _T]):
    """`functools.cached_property` built while holding its object's lock. Python 3.11's
    cached_property takes a lock of its own first, and a value that reads the index must
    also hold the object's: two locks taken in either order by two threads could deadlock.
    Read from a thread without the object's lock while another thread held it, the
    connection budget could close none of the stores (kb.io.store.database._shrink): `kb
    serve` over 500 bases under a 256-descriptor limit ran out of descriptors. Once built,
    the value is read from the object's `__dict__` without a lock, as cached_property's."""

    def __init__(self, build: Callable[[_S], _T]) -> None:
        self._build = build
        self._name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, obj: _S, owner: type | None = None) -> _T:
        with obj._lock:
            if self._name not in obj.__dict__:
                obj.__dict__[self._name] = self._build(obj)
            found: _T = obj.__dict__[self._name]
            return found
