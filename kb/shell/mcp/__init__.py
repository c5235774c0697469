"""`kb serve`: the MCP tools, each a projection of a verb, over stdio and HTTP.

Only this package imports the MCP SDK, and only when `kb serve` runs; no verb imports it
(an import-linter contract holds this).
"""
