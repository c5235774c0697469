"""What a note is and says: its words, header, front matter, chunks, links and path; the
manifest syntax and private layer that decide whether an opened file may be read; and
the naming and counting rules every message uses.

The floor every other capability stands on: it imports no other capability (an
import-linter contract holds this).
"""
