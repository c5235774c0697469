"""The clock: the only source of "today" (UTC, no local time zone anywhere)."""

from __future__ import annotations

import time


def today_utc() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())
