"""`kb promote`: the promoter's proposals, the reviewer's decisions, the run's order of
steps, its lock, its report, the rejections log and the alias gate.

Answering, the notes, writing, sessions, the logs and the renderers never import this
package (import-linter contracts hold each).
"""
