"""The command line: the entry point (hot verbs handed to a resident kb first), the
command table, typed inputs, help, completion and the exact hot-verb parser.

Every module here must stay cheap to import: `kb route` and `kb boot` start here.

It imports no verb: the command table names each run function as a string, imported when
its verb runs (an import-linter contract holds this, for direct imports).
"""
