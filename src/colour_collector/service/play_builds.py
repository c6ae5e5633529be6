"""One build of a pool position's play at a time in a process.

Purchases that expect the same pool position at once (``service.outcomes``) would each build
its play; on one process's GIL the builds of a rare prize's play (up to 650 ms each) run one
after another, so three buyers at once were answered after the purchase floor (a review measured
1.3 s against the floor's 1 s), and their answers' time told that a big prize was next. Here the
first purchase builds it and the others wait for that build. Nothing is kept once the build is
done: this is not a cache of plays.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

from colour_collector.game.prize_table import Tier
from colour_collector.game.record import PlayRecord

Position = tuple[int, Tier | None]
"""A pool position's play: the seed it is generated from (``pool_deal.play_seed``, which names
the pool's secret and the position) and its outcome."""

_lock = threading.Lock()
_building: dict[Position, Future[PlayRecord]] = {}


def build_once(position: Position, build: Callable[[], PlayRecord]) -> PlayRecord:
    """The play ``build`` makes for ``position``: built here, or by the purchase of this process
    already building it."""
    with _lock:
        running = _building.get(position)
        if running is None:
            mine: Future[PlayRecord] = Future()
            _building[position] = mine
    if running is not None:
        return running.result()
    try:
        record = build()
    except BaseException as error:
        mine.set_exception(error)
        raise
    else:
        mine.set_result(record)
        return record
    finally:
        with _lock:
            del _building[position]
