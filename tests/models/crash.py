#!/usr/bin/env python3
"""A model that prints a well-formed reply and then fails: a non-zero exit means it did not
answer, whatever it printed."""

import sys

sys.stdin.read()
print("SUBJECT: backups\nREASON: x.\nCOVERAGE: covered\nOWNER: ada\nREVIEWERS: none")
sys.exit(3)
