"""The surfaces' renderers: terminal text, the JSON wire, MCP shapes and text, HTML.

Values in, text out: a renderer decides nothing it does not print, and imports neither
promotion nor the logs (an import-linter contract holds this).
"""
