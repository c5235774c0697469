#!/usr/bin/env python3
"""A model that never reads its prompt and answers at once: a large prompt must not make
the caller fail on a broken pipe."""

print("SUBJECT: backups\nREASON: deaf.\nCOVERAGE: covered\nOWNER: ada\nREVIEWERS: none")
