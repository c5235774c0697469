"""Session files under `.kb/sessions/`: what `kb boot` reads and appends, capture and
handoff records, and an agent's constitution blocks.

Like kb.pure.sessions it never reaches into promotion (an import-linter contract).
"""
