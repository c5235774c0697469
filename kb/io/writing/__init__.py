"""The disk half of writing and checking: `kb write`, source records, and `kb check`'s
reading of each base.
"""
