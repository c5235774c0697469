"""What the counted logs keep, and how much (kb.pure.logbounds), rule by rule (issue 25)."""

from __future__ import annotations
