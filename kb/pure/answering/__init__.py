"""Answering a question: the keyword and text scorers, their fusion, the verdict and
what is said around it (election, suggestions, shortfall, budgeted context).

It must not import a model role, promotion, the logs or a renderer: a question is
answered from the notes alone (an import-linter contract holds this).
"""
