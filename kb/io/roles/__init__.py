"""Running the model commands fleet.txt names, and the files the roles read and write:
one process contract, the chat runtime, document extraction, the panel's ledger.

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
