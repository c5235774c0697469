"""The fleet verbs: sync, commit, doctor, trust, eval."""
