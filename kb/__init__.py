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

# Not `typing`, nor `importlib` (0.4 ms with the `warnings` it imports), nor `__future__`, nor
# even kb.version: every `kb` process imports this package first, and the thin client
# (kb.client) needs none of them (decision 0058). mypy reads any name TYPE_CHECKING as true;
# annotations naming what it imports are quoted.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kb.io.answering.memory import Answer, Memory, OpenError, Scope
    from kb.library import Indexed, IndexedBase, IndexFailed, WriteRefused, index, write_note
    from kb.pure.answering.fusion import Found, Passage
    from kb.pure.answering.verdict import Confidence, Verdict
    from kb.version import __version__

__all__ = [
    "Answer",
    "Confidence",
    "Found",
    "IndexFailed",
    "Indexed",
    "IndexedBase",
    "Memory",
    "OpenError",
    "Passage",
    "Scope",
    "Verdict",
    "WriteRefused",
    "__version__",
    "index",
    "write_note",
]

# name -> the module that defines it, imported on first use
_LAZY = {
    "__version__": "kb.version",
    "Answer": "kb.io.answering.memory",
    "Memory": "kb.io.answering.memory",
    "OpenError": "kb.io.answering.memory",
    "Scope": "kb.io.answering.memory",
    "Found": "kb.pure.answering.fusion",
    "Passage": "kb.pure.answering.fusion",
    "Confidence": "kb.pure.answering.verdict",
    "Verdict": "kb.pure.answering.verdict",
    "Indexed": "kb.library",
    "IndexedBase": "kb.library",
    "IndexFailed": "kb.library",
    "WriteRefused": "kb.library",
    "index": "kb.library",
    "write_note": "kb.library",
}


def __getattr__(name: str) -> "Any":
    module = _LAZY.get(name)
    if module is not None:
        return getattr(__import__(module, fromlist=[name]), name)
    raise AttributeError(f"module 'kb' has no attribute {name!r}")
