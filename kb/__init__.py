"""kb: a memory layer for fleets of AI agents over plain markdown folders.

The library API other agent frameworks import. Everything every surface does goes
through :class:`Memory`::

    from kb import Memory

    with Memory.open(["path/to/fleet"]) as memory:
        answer = memory.ask("how do we roll back a deploy?")
        print(answer.confidence.verdict, [r.path for r in answer.found])

The names are loaded on first use, so `import kb` (which every `kb` command does first)
costs nothing for a verb that never opens a fleet.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kb.version import __version__

if TYPE_CHECKING:
    from kb.io.memory import Answer, Memory, OpenError, Scope

__all__ = ["Answer", "Memory", "OpenError", "Scope", "__version__"]

_LAZY = {"Answer", "Memory", "OpenError", "Scope"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module("kb.io.memory"), name)
    raise AttributeError(f"module 'kb' has no attribute {name!r}")
