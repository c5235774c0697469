"""What every retriever hands on for one found file: its text and its metadata."""

from __future__ import annotations

from typing import Any

from kb.io.answering.memory import Answer
from kb.pure.answering.fusion import Found


def page_text(found: Found) -> str:
    """The file's passages (chunk-sized, best first), each under its heading path."""
    return "\n\n".join(
        f"{p.heading_path}\n{p.text}" if p.heading_path else p.text for p in found.passages
    )


def metadata(answer: Answer, found: Found, rank: int) -> dict[str, Any]:
    """The facts a framework can filter or cite by; the verdict is the answer's own."""
    return {
        "verdict": answer.confidence.verdict,
        "coverage": answer.confidence.coverage,
        "known": answer.confidence.known,
        "rank": rank,
        "score": found.score,
        "base": found.base,
        "path": found.path,
        "file": found.file,
        "title": found.title,
        "purpose": found.purpose,
        "memory": "short" if found.layer == "short" else "long",
        "why": list(found.why),
        "matched": list(found.matched),
        "headings": [p.heading_path for p in found.passages],
    }


def served(answer: Answer) -> list[tuple[int, Found]]:
    """(rank, file) for every file the answer serves: none when the verdict is `nothing`."""
    if answer.confidence.verdict == "nothing":
        return []
    return list(enumerate(answer.found, start=1))
