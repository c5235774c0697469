"""The disk half of writing and checking: `kb write`, source records, and `kb check`'s
reading of each base.

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
