"""The surfaces (CLI, MCP server, reading room), each a projection of one command table."""
