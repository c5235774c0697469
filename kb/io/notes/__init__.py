"""Reading notes from disk: walking a fleet into a snapshot, the one safe way to open a
file, and `kb index` (whose index is trusted only by the machine that wrote it).

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
