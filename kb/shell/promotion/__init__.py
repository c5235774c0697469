"""`kb promote` and `kb rejections`, and the real effects a promotion run has.

It imports neither the MCP server nor the reading room: a verb runs the same under every
surface (an import-linter contract holds this).
"""
