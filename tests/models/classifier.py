#!/usr/bin/env python3
"""A deterministic classifier: reads the dossier on stdin, finds the message in it, and
answers from a lookup table (first entry whose words are all in the message wins).

With KB_FAKE_LOG set, the whole dossier is appended to that file, followed by a line
`CWD: <working directory>` and a line `ARGV: <arguments>`, so a test can read what the
model was sent and where it ran."""

import os
import sys

TABLE = [
    # (words that must all appear, the five reply lines)
    (
        ("backup", "feijao"),
        (
            "infrastructure",
            "Backups, with a claim about food.",
            "covered",
            "ada",
            "bruno: the claim about beans; clara: the trip; ada: self",
        ),
    ),
    (("backup",), ("backups", "Restore drills are Ada's ground.", "covered", "Ada", "none")),
    (
        ("tax",),
        (
            "travel taxes",
            "Clara plans trips but stops before money matters.",
            "adjacent",
            "clara",
            "none",
        ),
    ),
    (
        ("jupiter",),
        ("astronomy", "Nobody in this fleet studies the sky.", "uncovered", "none", "none"),
    ),
    (("luas",), ("astronomy", "Still the sky, asked in Portuguese.", "uncovered", "none", "none")),
    (("zeus",), ("mythology", "An invented owner.", "covered", "zeus", "none")),
]


def main() -> int:
    dossier = sys.stdin.buffer.read().decode("utf-8", "replace")
    log = os.environ.get("KB_FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(dossier)
            fh.write(f"CWD: {os.getcwd()}\nARGV: {sys.argv[1:]}\n")
    _, _, after = dossier.partition("THE MESSAGE:\n")
    message = after.split("\n", 1)[0].strip().lower()
    for words, (subject, reason, coverage, owner, reviewers) in TABLE:
        if all(w in message for w in words):
            print(f"**SUBJECT:** {subject}")
            print(f"REASON: {reason}")
            print(f"- COVERAGE: {coverage}")
            print(f"OWNER: {owner}")
            print(f"REVIEWERS: {reviewers}")
            return 0
    print("SUBJECT: unknown\nREASON: No entry in the table.\nCOVERAGE: uncovered\nOWNER: none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
