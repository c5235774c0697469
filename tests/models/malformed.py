#!/usr/bin/env python3
"""A model that answers, but not in the format it was asked for: no verdict lines and no
`- ` fact bullets for a map prompt, and for an answer prompt prose that cites a file
retrieval never served."""

import sys

prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
if "facts below" in prompt:
    print("Here is what I found: the files talk about many things.")
    print("* backups are nightly (somewhere)")
else:
    print("Sure! Backups run every night (ada/knowledge/invented-note.md), I think.")
    print("Also see the restore drill (ada/knowledge/backups.md).")
