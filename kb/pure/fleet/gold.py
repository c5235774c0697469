"""The gold file `gold.tsv`: questions, and the files that answer them or `-` to decline.

Rules of this module:
- One row per line, `question<TAB>answers`. Lines are right-trimmed; blank lines and lines
  that start with `#` are skipped. The question is trimmed.
- `answers` is `-` (the right behaviour is to decline) or `agent/relative/path`
  alternatives separated by `|`, each trimmed, empties dropped.
- A row without a tab has no answer and is refused, naming the file and the line. So is a
  row whose question is blank, and one whose answers are only separators (`q<TAB>|`): the
  original read no answer as "decline", which turned a typo into a row graded the opposite
  way; `-` says decline on purpose.
- A gold file with no rows grades nothing and is refused.
- Stale answers: an answer not of the form `agent/rel`, or naming a file the fleet does not
  have, is stale. Which files exist is a fact of the disk, so it is passed in as the set of
  (agent lowercased in ASCII, rel) pairs that exist; each stale answer is reported once.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen
from returns.result import Failure, Result, Success

from kb.pure.answering.election import ascii_lower

DECLINE = "-"


@frozen
class GoldRow:
    line: int  # 1-based line in the gold file
    question: str
    answers: tuple[str, ...]  # empty: the right behaviour is to decline

    @property
    def abstain(self) -> bool:
        return not self.answers


def _lines(text: str) -> list[str]:
    """`str.lines()` semantics: split on newline, drop one trailing CR, no final empty line."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def parse(text: str, path: str) -> Result[tuple[GoldRow, ...], str]:
    """The rows of a gold file, or the one-line reason it cannot be graded."""
    rows: list[GoldRow] = []
    for number, raw in enumerate(_lines(text), start=1):
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        question, tab, answer_text = line.partition("\t")
        if not tab:
            return Failure(f"{path}:{number}: no tab, so this row has no answer")
        question = question.strip()
        answer_text = answer_text.strip()
        if not question:
            return Failure(
                f"{path}:{number}: the question column is empty, so there is nothing to ask"
            )
        answers = (
            ()
            if answer_text == DECLINE
            else tuple(a.strip() for a in answer_text.split("|") if a.strip())
        )
        if answer_text != DECLINE and not answers:
            return Failure(
                f"{path}:{number}: the answer column names no file; write {DECLINE} for a "
                "question the fleet should decline"
            )
        rows.append(GoldRow(number, question, answers))
    if not rows:
        return Failure(f"{path} has no gradeable rows")
    return Success(tuple(rows))


def split_answer(answer: str) -> tuple[str, str] | None:
    """(agent, rel) of an `agent/relative/path` answer; None when it is not of that form."""
    agent, slash, rel = answer.partition("/")
    if not slash or not agent or not rel:
        return None
    return agent, rel


def answer_key(answer: str) -> tuple[str, str] | None:
    """The key an answer is compared by: the agent folded in ASCII (as directory names are
    compared everywhere), the relative path exactly."""
    parts = split_answer(answer)
    return (ascii_lower(parts[0]), parts[1]) if parts else None


def stale_answers(rows: Sequence[GoldRow], existing: frozenset[tuple[str, str]]) -> list[str]:
    """Every answer that names no file of this fleet, in file order, each once.

    `existing` holds `answer_key` pairs whose file is on disk under a known agent.
    """
    out: list[str] = []
    for row in rows:
        for answer in row.answers:
            key = answer_key(answer)
            if key is None:
                item = f"{answer} (not in agent/path form)"
            elif key not in existing:
                item = answer
            else:
                continue
            if item not in out:
                out.append(item)
    return out


def stale_message(stale: Sequence[str]) -> str:
    """The stderr block for a stale gold file (each line ends with a newline)."""
    n = len(stale)
    head = (
        "kb: 1 gold answer names a file this fleet does not have:\n"
        if n == 1
        else f"kb: {n} gold answers name files this fleet does not have:\n"
    )
    body = "".join(f"      {s}\n" for s in stale)
    return (
        head + body + "    Grading against a stale gold file reports a wrong number confidently.\n"
    )
