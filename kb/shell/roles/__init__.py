"""The verbs that run a model role: consolidate, ingest, panel."""
