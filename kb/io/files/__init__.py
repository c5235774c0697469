"""Writing a shared file safely: whole or not at all, under one lock discipline, and a
log record deferred rather than lost when its lock is busy.

It imports no other part of kb.io: every other package writes through it (an
import-linter contract holds this).
"""
