"""kb's counted logs: the miss log, the routing logs, what they keep of a question, and
the misses read back beside today's index.
"""
