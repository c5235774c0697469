"""Operations on a whole fleet: sync, merge drivers, commits, doctor, trust, the fleet
card, listing (and its `--where`) and evaluation.
"""
