"""The one place the use cases read the time from.

Production reads the system's UTC clock. A test server (``COLOUR_COLLECTOR_CLOCK_FILE``, refused
outside ``ENVIRONMENT=test``) reads it through :class:`ShiftedClock`: the system's time moved on
by the number of seconds written in a file, which a browser or HTTP test rewrites to move the
server's time (a cooling-off, a time-out, a reality check interval) without waiting.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path


def system_time() -> dt.datetime:
    """The system's time, timezone-aware UTC, with microseconds."""
    return dt.datetime.now(dt.UTC)


_source: Callable[[], dt.datetime] = system_time


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC, with microseconds."""
    return _source()


def use(source: Callable[[], dt.datetime]) -> None:
    """Read the time from ``source`` from now on (set once at start: test servers only)."""
    global _source  # noqa: PLW0603 - the process's one clock, chosen at start
    _source = source


class ShiftedClock:
    """The system's time plus the seconds written in ``path`` (0 while it is missing or empty).

    Tests only: the file is read at every call.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def offset(self) -> dt.timedelta:
        """The shift now in the file."""
        try:
            text = self.path.read_text("utf-8").strip()
        except FileNotFoundError:
            return dt.timedelta(0)
        return dt.timedelta(seconds=float(text)) if text else dt.timedelta(0)

    def __call__(self) -> dt.datetime:
        return system_time() + self.offset()
