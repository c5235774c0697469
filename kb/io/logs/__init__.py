"""Appending to and reading kb's counted logs at the fleet root, under concurrent writers."""
