"""The disk half of `kb promote`: the deposit offered, the lock marker, the rejections log.

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
