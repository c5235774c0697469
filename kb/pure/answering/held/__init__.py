"""A base's text index held in memory by a resident kb (decisions 0037, 0052, 0053): its
postings and what they answer without SQL (`warmtext`), their ranking summed by numpy
(`densetext`), and how they lie in a postings file mapped into memory (`postingslayout`).
"""
