"""A fleet's operations through git and the machine: sync (and its recovery), commits,
merge drivers, doctor's facts, the optional extras, trust approvals, and `kb list` and
`kb fleet` over an open fleet.

It decides nothing (every rule it applies is kb.pure's) and never imports kb.shell (the
layers contract).
"""
