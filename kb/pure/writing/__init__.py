"""Writing into a fleet and checking what is there: `kb write`, `kb init`'s skeletons,
`kb check`, the link graph and source records, and house style.

It must not import a model role, promotion, sessions or the logs (an import-linter
contract holds this).
"""
