"""The read-path verbs over the Memory contract: route, index, list, fleet, answer,
remember.

It imports neither the MCP server nor the reading room: a verb runs the same under every
surface (an import-linter contract holds this).
"""
