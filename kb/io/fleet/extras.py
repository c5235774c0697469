"""The optional parts of the install, and whether this interpreter has them.

The core install carries every verb but two: `kb serve` needs the `mcp` extra (the MCP SDK,
Starlette, uvicorn) and `kb ui` the `ui` extra (Starlette, uvicorn). A verb whose extra is
missing says which one to install, in one line, instead of a traceback. The probe looks
modules up without importing them (`importlib.util.find_spec` on a top-level name imports
nothing), so asking costs a few stat calls and never pulls the SDK onto a path that does not
run it.
"""

from __future__ import annotations

import importlib.util

from kb.version import DISTRIBUTION

# extra -> (the name a person reads, the top-level modules kb imports from it)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mcp": ("MCP", ("mcp", "mcp_types", "starlette", "uvicorn")),
    "ui": ("UI", ("starlette", "uvicorn")),
}

# A missing extra is the install's fault, not the command line's, but the spec has no
# environment status: like a fleet without the promoter a verb needs (promote, ingest), it is
# refused before anything runs, with the usage status 2 (decision 0024).
MISSING_EXTRA_EXIT = 2


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses the name; a broken module entry
        return False


def missing(extra: str) -> tuple[str, ...]:
    """The modules of `extra` this interpreter cannot find; empty when it is installed."""
    return tuple(m for m in EXTRAS[extra][1] if not _present(m))


def install_hint(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def needs_line(verb: str, extra: str) -> str:
    """`kb serve needs the MCP extra: pip install 'kb-fleet[mcp]'`"""
    return f"kb {verb} needs the {EXTRAS[extra][0]} extra: {install_hint(extra)}"
