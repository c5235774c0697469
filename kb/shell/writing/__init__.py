"""The verbs that create and check files: init, write, check, source, links and graph."""
