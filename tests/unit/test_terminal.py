"""The terminal game (``cli.terminal``) against the procedures' messages, with scripted input."""

from __future__ import annotations

import io
import random

from builders import (
    BONUS,
    PANEL,
    PRIZE,
    UNLOCK,
    grid,
    lost,
    prize_grid,
    prize_spin,
    spin,
    spins,
    won,
)
from colour_collector.cli.terminal import Terminal
from colour_collector.game.record import WIN, PlayRecord, Step
from colour_collector.game.replay import replay


def played(record: PlayRecord) -> str:
    out = io.StringIO()
    Terminal(record, random.Random(0), io.StringIO("o\n" * 50), out).run()
    return out.getvalue()


def test_the_prize_game_is_announced_unlocked_even_when_it_follows_at_once() -> None:
    # "The heading 'PRIZE GAME' will then animate and change to display 'PRIZE GAME UNLOCKED'"
    # [Bonus Game, Prize Game]. Unlocked on the last spin, or by a Bonus Game that spin starts,
    # the Prize Game begins at once: no Main Game screen shows the box unlocked in between.
    pgrid = prize_grid({0: 1000, 1: WIN})
    by_symbols: list[Step] = [*spins(5), spin(range(6)), prize_spin([0, 1], final=True)]
    by_prize: list[Step] = [
        *spins(5),
        spin(range(6, 12), panels=[PANEL]),
        won(UNLOCK),
        lost(),
        prize_spin([0, 1], final=True),
    ]
    for start, steps in (
        (grid([PRIZE] * 6), by_symbols),
        (grid({6 + i: BONUS for i in range(6)}), by_prize),
    ):
        record = PlayRecord(start, tuple(steps), pgrid)
        assert replay(record).prize == 1000
        out = played(record)
        assert out.count("PRIZE GAME UNLOCKED!") == 1
        assert out.index("PRIZE GAME UNLOCKED!") < out.index("PRIZE POT:")


def test_no_prize_game_is_announced_in_a_play_without_one() -> None:
    record = PlayRecord(grid([BONUS] * 6), (spin(range(6), panels=[PANEL]), lost(), *spins(5)))
    assert "PRIZE GAME UNLOCKED" not in played(record)
