"""How hard the stress tests push: a short form for CI, a long form for the nightly target.

`KB_STRESS=nightly` (set by `make nightly`) selects the long form; anything else, or
nothing, the short form CI runs on every push.
"""

from __future__ import annotations

import os

NIGHTLY = os.environ.get("KB_STRESS") == "nightly"


def scaled(ci: int, nightly: int) -> int:
    """The CI figure, or the nightly one under KB_STRESS=nightly."""
    return nightly if NIGHTLY else ci


def scaled_s(ci: float, nightly: float) -> float:
    """A duration in seconds, CI or nightly."""
    return nightly if NIGHTLY else ci
