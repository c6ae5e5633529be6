"""``play_builds.build_once``: purchases expecting the same pool position share one build of its
play, kept for those that come later until newer ones push it out; different positions build
apart; a failed build fails its waiters and is not kept."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from colour_collector.game.generator import generate
from colour_collector.game.prize_table import tier_by_name
from colour_collector.game.record import PlayRecord
from colour_collector.service.play_builds import KEPT, build_once


def parked(futures: list[Future[PlayRecord]]) -> None:
    """Wait until a worker runs each of ``futures`` (each then blocks in ``build_once`` at
    once), and a little more."""
    deadline = time.monotonic() + 10
    while not all(f.running() for f in futures) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)


def test_buyers_of_one_position_at_once_share_one_build() -> None:
    started, release = threading.Event(), threading.Event()
    builds: list[tuple[int, int]] = []

    def build(position: tuple[int, int], *, slow: bool) -> PlayRecord:
        builds.append(position)
        if slow:
            started.set()
            release.wait(timeout=10)
        return generate(tier_by_name("£5"), random.Random(position[1]))

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(build_once, (1, 7), lambda: build((1, 7), slow=True))
        assert started.wait(timeout=10)
        waiting = [
            pool.submit(build_once, (1, 7), lambda: build((1, 7), slow=False)) for _ in range(2)
        ]
        parked(waiting)
        other = build_once((1, 8), lambda: build((1, 8), slow=False))  # no wait for another
        assert not first.done()
        release.set()
        records = [first.result(timeout=10)] + [w.result(timeout=10) for w in waiting]
    assert builds.count((1, 7)) == 1 and builds.count((1, 8)) == 1
    assert all(record is records[0] for record in records)
    assert other != records[0]
    # A purchase that comes later (one that lost the position and tries again) is given the
    # play built, until KEPT newer plays have been built.
    assert build_once((1, 7), lambda: build((1, 7), slow=False)) is records[0]
    for seed in range(1000, 1000 + KEPT):
        build_once((seed, None), lambda: generate(None, random.Random(0)))
    build_once((1, 7), lambda: build((1, 7), slow=False))
    assert builds.count((1, 7)) == 2


def test_a_failed_build_fails_its_waiters_and_is_not_kept() -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def failing() -> PlayRecord:
        calls.append(1)
        started.set()
        release.wait(timeout=10)
        raise RuntimeError("no play")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(build_once, (2, 0), failing)
        assert started.wait(timeout=10)
        waiter = pool.submit(build_once, (2, 0), failing)
        parked([waiter])
        release.set()
        for future in (first, waiter):
            with pytest.raises(RuntimeError, match="no play"):
                future.result(timeout=10)
    assert calls == [1]  # the waiter was given the build's failure, it did not build
    built = build_once((2, 0), lambda: generate(None, random.Random(1)))
    assert built.steps
