"""The recall-loss log `kb-misses.txt`: parsing, updating and rendering it.

Rules of this module:
- One line per distinct question (compared lowercased): count, first seen, last seen, the
  question as first spelled; an indented `looked like:` line keeps what was offered back.
- Most asked first, then by question. A repeat bumps the count and the last date and
  replaces what was offered (the newest offer is the one worth reading).
- A recorded question is one line: a CR or LF in it becomes a space (other spacing is kept).
- The parser is forgiving: comment and blank lines are skipped, a line whose count is not a
  number (or is longer than 18 digits) is skipped, a later duplicate overwrites an earlier
  one, and a torn last line (a writer killed mid-line) reads as whatever fields it still has
  or as nothing.
- Bounded (issue 24, kb.pure.logs.logbounds): a recorded question is cut to the characters the
  router reads (the writer, kb.io.logs.misslog, scrubbed it of secrets first), a row left longer
  by an older kb is cut too (rows that then read the same fold, counts added), and past
  2,000 rows or 1 MiB the least asked, oldest rows are dropped, never the one just recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import evolve, frozen

from kb.pure.logs.logbounds import MAX_TEXT_CHARS, cut, keep_recorded

LOG_NAME = "kb-misses.txt"

HEADER = """\
# Questions kb could not answer, the most asked first.
#
# Each distinct question has one line: how often it was asked, the first and the last
# day, then the question itself. An indented `looked like:` line keeps what the base
# offered back, so you can see whether a spelling suggestion helped or whether the
# question needed a translation.
#
# Every line is a real question that reached nothing. Fix the top one first: write the
# alias line or the Search for key that would have caught it, then delete its line here.
#
# Private by nature: these are questions a person really asked. Do not commit this file.
"""


@frozen
class Miss:
    count: int
    first: str
    last: str
    question: str
    looked_like: tuple[str, ...]


def parse(text: str) -> list[Miss]:
    # Each row's fields are gathered first and its Miss made once: an `evolve` for every
    # `looked like:` line was a third of reading a full log (2,000 rows) again on each refusal.
    by_key: dict[str, tuple[int, str, str, str, list[tuple[str, ...]]]] = {}
    last_key: str | None = None
    for line in text.split("\n"):
        body = line.lstrip()
        if body.startswith("looked like:"):
            if last_key is not None:
                offered = tuple(
                    p.strip() for p in body[len("looked like:") :].split(",") if p.strip()
                )
                by_key[last_key][4][0] = offered  # the row's one mutable field
            continue
        if not body or body.startswith("#"):
            continue
        fields = body.split(None, 3)
        if len(fields) < 4 or not _is_count(fields[0]):
            last_key = None
            continue
        question = fields[3].strip()
        if not question:
            last_key = None
            continue
        key = question.lower()
        by_key[key] = (int(fields[0]), fields[1], fields[2], question, [()])
        last_key = key
    return ordered(
        Miss(count, first, last, question, looked[0])
        for count, first, last, question, looked in by_key.values()
    )


def _is_count(field: str) -> bool:
    # Eighteen digits is a billion billion refusals; a longer run of digits is damage, and past
    # 4,300 digits `int()` itself raises.
    return field.isascii() and field.isdigit() and len(field) <= 18


def ordered(misses: Iterable[Miss]) -> list[Miss]:
    return sorted(misses, key=lambda m: (-m.count, m.question))


def record(
    misses: Sequence[Miss], question: str, looked_like: Sequence[str], today: str
) -> list[Miss]:
    # A line break would split the question's row (and a CR hide it): each becomes a space.
    q = cut(question.replace("\r", " ").replace("\n", " ").strip()).strip()
    offered = (cut(w.replace("\r", " ").replace("\n", " ").strip()) for w in looked_like)
    # as the parser reads them back (split at commas, trimmed), so that what this returns is
    # what its render parses to: a resident kb keeps it rather than reading its write again
    looked_like = [p.strip() for w in offered for p in w.split(",") if p.strip()]
    if not q:
        return list(misses)
    key = q.lower()
    out: list[Miss] = []
    found = False
    for m in _within_limit(misses):
        if m.question.lower() == key and not found:
            out.append(evolve(m, count=m.count + 1, last=today, looked_like=tuple(looked_like)))
            found = True
        else:
            out.append(m)
    if not found:
        out.append(Miss(1, today, today, q, tuple(looked_like)))
    out = ordered(out)
    return keep_recorded(
        out,
        lambda m: m.question.lower() == key,
        _row,
        lambda m: m.count,
        lambda m: (m.last, m.first),
        HEADER,
    )


def _within_limit(misses: Sequence[Miss]) -> Sequence[Miss]:
    """The rows with every question cut to the limit (an older kb wrote whole questions);
    rows that then read the same fold into one, their counts added."""
    if all(len(m.question) <= MAX_TEXT_CHARS for m in misses):
        return misses
    by_key: dict[str, Miss] = {}
    for m in misses:
        m = evolve(m, question=cut(m.question).strip())
        key = m.question.lower()
        seen = by_key.get(key)
        by_key[key] = (
            m
            if seen is None
            else evolve(
                seen,
                count=seen.count + m.count,
                first=min(seen.first, m.first),
                last=max(seen.last, m.last),
            )
        )
    return ordered(by_key.values())


def _row(m: Miss) -> str:
    text = f"\n{m.count:<4} {m.first} {m.last} {m.question}\n"
    if m.looked_like:
        text += "     looked like: " + ", ".join(m.looked_like) + "\n"
    return text


def render(misses: Sequence[Miss]) -> str:
    return HEADER + "".join(_row(m) for m in ordered(misses))
