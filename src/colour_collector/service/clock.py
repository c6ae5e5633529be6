"""The one place the use cases read the time from."""

from __future__ import annotations

import datetime as dt


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC, with microseconds."""
    return dt.datetime.now(dt.UTC)
