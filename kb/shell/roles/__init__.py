"""The verbs that run a model role: consolidate, ingest, panel.

It imports neither the MCP server nor the reading room: a verb runs the same under every
surface (an import-linter contract holds this).
"""
