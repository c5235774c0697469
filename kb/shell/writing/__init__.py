"""The verbs that create and check files: init, write, check, source, links and graph.

It imports neither the MCP server nor the reading room: a verb runs the same under every
surface (an import-linter contract holds this).
"""
