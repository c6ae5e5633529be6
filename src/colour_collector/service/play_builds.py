"""Each pool position's play built once in a process, however many purchases expect it.

Purchases that expect the same pool position (``service.outcomes``) would each build its play;
on one process's GIL the builds of a rare prize's play (up to 650 ms each) run one after
another, so three buyers at once were answered after the purchase floor (a review measured
1.3 s against the floor's 1 s), and their answers' time told that a big prize was next. Here the
first purchase builds it and the others wait for that build. A play built is kept until
``KEPT`` newer ones have been built, since the position stays next until its purchase commits
and buyers that lost it to another (``DealMovedError``) would otherwise build it again: a memo
of a pure function (the play of a seed and an outcome), not a store of plays.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future

from colour_collector.game.prize_table import Tier
from colour_collector.game.record import PlayRecord

Position = tuple[int, Tier | None]
"""A pool position's play: the seed it is generated from (``pool_deal.play_seed``, which names
the pool's secret and the position) and its outcome."""

KEPT = 64
"""Plays built that are kept for the purchases that expect them still."""

_lock = threading.Lock()
_building: dict[Position, Future[PlayRecord]] = {}
_built: OrderedDict[Position, PlayRecord] = OrderedDict()


def build_once(position: Position, build: Callable[[], PlayRecord]) -> PlayRecord:
    """The play ``build`` makes for ``position``: built here, by the purchase of this process
    already building it, or kept from a recent build."""
    with _lock:
        kept = _built.get(position)
        if kept is not None:
            return kept
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
        with _lock:
            _built[position] = record
            while len(_built) > KEPT:
                _built.popitem(last=False)
        return record
    finally:
        with _lock:
            del _building[position]
