"""A session's life: what `kb boot` is handed and prints, capture, handoff, the
constitution blocks, session files, and the secret scrubber they all write through.

It must not import promotion (an import-linter contract holds this).
"""
