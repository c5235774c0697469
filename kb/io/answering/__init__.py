"""The Memory contract: one open fleet and every question each surface asks of it, kept
fresh while a server runs, and the files it serves.
"""
