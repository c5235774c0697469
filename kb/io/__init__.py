"""The thin imperative layer: disk, SQLite, stdin, the clock and the random source.
It decides nothing; every decision is a call into kb.pure."""
