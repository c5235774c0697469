#!/usr/bin/env python3
"""A model whose reply is not valid UTF-8: the bytes that do not decode become U+FFFD and
the reply is still read."""

import sys

sys.stdin.buffer.read()
sys.stdout.buffer.write(
    b"\xff\xfe\xc3(SUBJECT: backups \xe9t\xe9\nREASON: bad bytes.\nCOVERAGE: covered\n"
    b"OWNER: ada\nREVIEWERS: none\n"
)
