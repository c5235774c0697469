"""kb: a memory layer for fleets of AI agents over plain markdown folders.

The library API other agent frameworks import. Everything every surface does goes
through :class:`Memory`::

    from kb import Memory

    memory = Memory.open(["path/to/fleet"])
    answer = memory.ask("how do we roll back a deploy?")
    print(answer.confidence.verdict, [r.path for r in answer.found])
"""

from kb.io.memory import Memory, OpenError, Scope
from kb.version import __version__

__all__ = ["Memory", "OpenError", "Scope", "__version__"]
