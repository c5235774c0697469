"""`kb serve`: the MCP tools, each a projection of a verb, over stdio and HTTP."""
