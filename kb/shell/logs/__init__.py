"""`kb misroute`, `kb misroutes` and `kb abstentions`.

It imports neither the MCP server nor the reading room: a verb runs the same under every
surface (an import-linter contract holds this).
"""
