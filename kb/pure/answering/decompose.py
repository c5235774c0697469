"""Cutting a compound message into the sub-questions it asks, so each can be routed alone.

Rules of this module:
- Lines, then `?`, `;` and `!` separate questions.
- Then each piece is cut before a fixed list of conjunctions, in order (Portuguese first,
  then English), at the first case-insensitive occurrence in each current piece; the
  conjunction stays at the front of the right half (`backups and how to cook rice` gives
  `backups` and `and how to cook rice`).
- A piece is cleaned (a leading `and ` or `e ` removed, then anything that is not a letter,
  a digit, a space or `?` stripped from both ends) and kept only when it is at least 10
  UTF-8 bytes and two words: shorter fragments are noise, not questions.
- Nothing kept: the whole trimmed message is the one sub-question. Empty: none.
"""

from __future__ import annotations

CONJUNCTIONS = (
    " e como ",
    " e qual ",
    " e quanto ",
    " e onde ",
    " e por que ",
    " e quem ",
    " alem disso ",
    " além disso ",
    " and how ",
    " and what ",
    " and why ",
    " and where ",
    " and when ",
    " and who ",
    " furthermore ",
    " moreover ",
)
MIN_BYTES = 10
MIN_WORDS = 2


def _lowered(text: str) -> str:
    """Lower case that keeps every index where it was (a character whose lower case is
    longer than one character stays as it is)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _split_at(part: str, conjunction: str) -> list[str]:
    at = _lowered(part).find(conjunction)
    if at == -1:
        return [part]
    halves = (part[:at].strip(), part[at + 1 :].strip())
    return [h for h in halves if h]


def _clean(part: str) -> str:
    text = part.strip()
    if text.startswith("and "):
        text = text[4:]
    elif text.startswith("e "):
        text = text[2:]
    text = text.strip()
    start, end = 0, len(text)
    while start < end and not _kept(text[start]):
        start += 1
    while end > start and not _kept(text[end - 1]):
        end -= 1
    return text[start:end].strip()


def _kept(c: str) -> bool:
    return c.isalnum() or c in " ?"


def decompose_query(prompt: str) -> list[str]:
    whole = prompt.strip()
    if not whole:
        return []
    parts: list[str] = []
    for line in whole.split("\n"):
        line = line.strip()
        if not line:
            continue
        for sep in "?;!":
            line = line.replace(sep, "\n")
        parts.extend(p.strip() for p in line.split("\n") if p.strip())
    for conjunction in CONJUNCTIONS:
        parts = [half for p in parts for half in _split_at(p, conjunction)]
    kept = []
    for p in parts:
        cleaned = _clean(p)
        if len(cleaned.encode("utf-8")) >= MIN_BYTES and len(cleaned.split()) >= MIN_WORDS:
            kept.append(cleaned)
    return kept or [whole]
