"""A session's name on disk: `safe_session(id)`, the rule kb.pure.sessions.session states, apart so
`kb boot` (which names a session on every message) builds none of that module's classes."""

from __future__ import annotations


def safe_session(id: str) -> str:
    safe = "".join(c if (c.isascii() and c.isalnum()) or c == "-" else "_" for c in id)
    return safe or "_"
