"""The session verbs: `kb boot`, capture and handoff."""
