"""Operations on a whole fleet: sync, merge drivers, commits, doctor, trust, the fleet
card, listing (and its `--where`) and evaluation.

Answering, the notes and the logs never import this package (import-linter contracts).
"""
