"""The model roles: what the answerer, the classifier, the panel, the consolidator, the
ingester and `remember` are sent, and what their replies mean.

Promotion has its own package; answering never imports this one.
"""
