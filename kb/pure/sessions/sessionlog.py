"""The lines `kb boot` appends to a session's events record `.kb/sessions/{safe}.events`,
which `kb capture` consumes (kb.pure.sessions.session reads them; a property test holds the two
together).

Rules of this module:
- `refused\t{question}\t{w1, w2, ...}`: a recall loss, with the vocabulary the base offered.
- `routed\t{agent}`: every routed message, including one that stays with the same agent.
- Every field is flattened (tab, CR and LF become a space) and trimmed, so one event is
  always exactly one line.
- No classes here on purpose: this is imported on every message, and an attrs class costs
  about a millisecond to build at import.
"""

from __future__ import annotations

from collections.abc import Sequence


def flatten(text: str) -> str:
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ").strip()


def refused_line(question: str, looked_like: Sequence[str]) -> str:
    # Imported here: the scrubber compiles its rules (~35 ms), and a routed message, the
    # common case, never needs it.
    from kb.pure.sessions.scrub import scrub

    # Scrubbed before it is flattened: a secret's shape can span lines (a YAML block value).
    return f"refused\t{flatten(scrub(question))}\t{flatten(', '.join(looked_like))}\n"


def routed_line(agent: str) -> str:
    return f"routed\t{flatten(agent)}\n"
