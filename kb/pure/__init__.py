"""The functional core: frozen values and pure functions. No disk, clock, environment,
network or randomness is touched from here; kb.io hands values in and takes values out."""
