"""The read-path verbs over the Memory contract: route, index, list, fleet, answer,
remember.
"""
