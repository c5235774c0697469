"""kb's counted logs: the miss log, the routing logs, what they keep of a question, and
the misses read back beside today's index.

It must not import a model role, promotion, writing or a fleet operation (an import-linter
contract holds this, for kb.io.logs too).
"""
