"""`kb misses`: the miss log read back beside what today's index nearly caught.

Rules of this module:
- A near miss is a file in the fused reading list for a logged question that today's
  verdict does not call a hit; it carries the keys its own header declares (none when the
  file has no keyword entry). Which file came close depends on the base as it stands now,
  which is the half the log cannot hold.
- A near miss at keyword 0.00 is the finding itself: the text scorer reached the note, so
  the question's words are in its body and not on its Search for line. The repair is a key
  or an alias line, not another note.
- A logged question that is a `hit` today is answered by the list's first file, and its line
  can go.
- Terminal keys are cut at 8 with a count of the rest; JSON keys are never cut. JSON keys
  are in codepoint order like every retrieval `--json`.
- Every value the terminal text shows that came from the log or a note (the question, what
  it looked like, paths, titles, keys) goes through `printable`: a question logged with a
  NUL, an OSC-52 clipboard write or a bidi override shows them escaped, and cannot split a
  row (issue 24, F13).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen

from kb.pure.answering.entries import Entry
from kb.pure.answering.fusion import Found
from kb.pure.logs.misslog import Miss
from kb.pure.notes.names import printable
from kb.pure.notes.plural import counted
from kb.pure.render.jsonout import round6, sorted_keys

KEYS_SHOWN = 8

CLOSING = """\
  Write the alias line, or add the key to that file's `Search for:` line,
  then delete the question from the log. Or hand it to `--apply --gold <tsv>`,
  which proposes with a model and admits only what the gold set survives.
"""


@frozen
class NearMiss:
    base: str
    path: str
    title: str
    keyword_score: float
    why: tuple[str, ...]
    keys: tuple[str, ...]
    has_entry: bool


@frozen
class MissView:
    miss: Miss
    near: tuple[NearMiss, ...]
    cleared: tuple[str, ...]  # base/path of the file that answers it today (a hit)


@frozen
class MissesReport:
    log: str
    exists: bool
    entries: int
    agents: int
    floor: float
    views: tuple[MissView, ...]


def view_of(
    miss: Miss,
    found: Sequence[Found],
    entries: Mapping[tuple[str, str], Entry],
    hit_today: bool,
) -> MissView:
    """Split the reading list for a logged question into near misses and, when today's
    verdict is a hit, the file that answers it (the first). `entries`: the keyword entries
    by (base, path), of the listed files at least."""
    near: list[NearMiss] = []
    cleared: list[str] = []
    for i, f in enumerate(found):
        if hit_today and i == 0:
            cleared.append(f"{f.base}/{f.path}")
            continue
        entry = entries.get((f.base, f.path))
        near.append(
            NearMiss(
                base=f.base,
                path=f.path,
                # a file only the text scorer found has no title in the fused list; its
                # keyword entry still knows it
                title=f.title or (entry.title if entry else ""),
                keyword_score=f.keyword_score,
                why=f.why,
                keys=entry.keywords if entry else (),
                has_entry=entry is not None,
            )
        )
    return MissView(miss, tuple(near), tuple(cleared))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _keys_line(nm: NearMiss) -> str:
    if not nm.has_entry:
        return "            keys: none. The index holds no entry for this file."
    if not nm.keys:
        return "            keys: none declared on its Search for line."
    shown = ", ".join(printable(k) for k in nm.keys[:KEYS_SHOWN])
    rest = len(nm.keys) - KEYS_SHOWN
    return f"            keys: {shown}" + (f", and {rest} more" if rest > 0 else "")


def _view_lines(v: MissView) -> list[str]:
    m = v.miss
    dates = m.first if m.first == m.last else f"{m.first} to {m.last}"
    lines = ["", f"  {m.count:>3}x  {printable(dates)}  {printable(m.question)}"]
    if m.looked_like:
        lines.append(f"        looked like: {', '.join(printable(w) for w in m.looked_like)}")
    if v.cleared:
        lines.append(
            f"        it is a hit today: {', '.join(printable(c) for c in v.cleared)} answers "
            "it, so this line can be deleted."
        )
    if not v.near:
        if not v.cleared:
            lines.append(
                "        no file was ranked by either scorer, so there is nothing to point at."
            )
        return lines
    lines.append("        nearest files today:")
    for nm in v.near:
        title = f"  {printable(nm.title)}" if nm.title else ""
        lines.append(
            f"          {printable(nm.base)}/{printable(nm.path)}  keyword "
            f"{nm.keyword_score:.2f}  {' + '.join(nm.why)}{title}"
        )
        lines.append(_keys_line(nm))
        if f"{nm.keyword_score:.2f}" == "0.00":
            lines.append(
                "            keyword 0.00 is the finding: the words are in this note's body and "
                "not on its Search for line, so the fix is a key or an alias line, not a new note."
            )
    return lines


def render(r: MissesReport, closing: bool = True) -> str:
    lines = [
        f"log:      {printable(r.log)}",
        f"indexed:  {counted(r.entries, 'entry', 'entries')} across {counted(r.agents, 'agent')}, "
        f"floor {r.floor:.2f}",
    ]
    if not r.views:
        lines += [
            "",
            "  nothing has missed here. Either no question has reached this base and",
            "  failed, or the log lives somewhere else: KB_MISSES_PATH moves it.",
        ]
        return "\n".join(lines) + "\n"
    asks = sum(v.miss.count for v in r.views)
    lines.append(f"lost:     {_plural(len(r.views), 'distinct question')}, {_plural(asks, 'ask')}")
    for v in r.views:
        lines += _view_lines(v)
    text = "\n".join(lines) + "\n"
    return text + "\n" + CLOSING if closing else text


def to_json(r: MissesReport) -> dict[str, Any]:
    """The `--json` payload (retrieval spec 14.5): keys sorted, nothing cut."""
    misses = [
        {
            "count": v.miss.count,
            "first": v.miss.first,
            "last": v.miss.last,
            "looked_like": list(v.miss.looked_like),
            "near": [
                {
                    "base": nm.base,
                    "path": nm.path,
                    "title": nm.title,
                    "keyword_score": round6(nm.keyword_score),
                    "why": list(nm.why),
                    "keys": list(nm.keys),
                }
                for nm in v.near
            ],
            "question": v.miss.question,
        }
        for v in r.views
    ]
    payload = {
        "exists": r.exists,
        "floor": round6(r.floor),
        "indexed": {"agents": r.agents, "entries": r.entries},
        "log": r.log,
        "misses": misses,
        "total_asks": sum(v.miss.count for v in r.views),
        "total_questions": len(r.views),
    }
    result: dict[str, Any] = sorted_keys(payload)
    return result
