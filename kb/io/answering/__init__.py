"""The Memory contract: one open fleet and every question each surface asks of it, kept
fresh while a server runs (by stat, or by the resident kb's file watcher), and the files it
serves.

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
