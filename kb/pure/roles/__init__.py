"""The model roles: what the answerer, the classifier, the panel, the consolidator, the
ingester and `remember` are sent, and what their replies mean.

Answering, the notes and writing never import this package, nor do the logs (import-linter
contracts hold each).
"""
