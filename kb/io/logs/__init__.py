"""Appending to and reading kb's counted logs at the fleet root, under concurrent writers.

Like kb.pure.logs it imports no model role and no promotion (an import-linter contract).
"""
