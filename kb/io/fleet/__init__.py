"""A fleet's operations through git and the machine: sync (and its recovery), commits,
merge drivers, doctor's facts, the optional extras, trust approvals, and `kb list` and
`kb fleet` over an open fleet.
"""
