"""The rules, one hand-built play record at a time (docs/rules.md gives each rule's source)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from builders import (
    BONUS,
    BOOSTER,
    CFG,
    CIRCLE,
    DIAMOND,
    EXTRA_SPINS,
    MEGA,
    PANEL,
    PENTAGON,
    PG_SYMBOLS,
    PRIZE,
    SQUARE,
    SUPER,
    SYMBOLS,
    TRIANGLE,
    UNLOCK,
    grid,
    lost,
    prize_grid,
    prize_spin,
    spin,
    spins,
    won,
)
from colour_collector.game.config import BonusKind
from colour_collector.game.errors import RuleError
from colour_collector.game.record import WIN, WIN_X2, BonusPrize, BonusRound, PlayRecord, Step
from colour_collector.game.replay import replay, states
from colour_collector.game.rules import Game, Phase


def play(start: tuple[int, ...], steps: list[Step], pgrid: tuple[int, ...] | None = None) -> Game:
    """Apply ``steps`` to a new game and return it."""
    game = Game(start, pgrid)
    for step in steps:
        game.apply(step)
    return game


def broken(record: PlayRecord) -> RuleError:
    with pytest.raises(RuleError) as caught:
        replay(record)
    return caught.value


# -- the Main Game ---------------------------------------------------------------------------------


def test_six_spins_that_collect_nothing_lose() -> None:
    result = replay(PlayRecord(grid(), tuple(spins(6))))
    assert result.tier is None
    assert result.prize == 0
    assert result.spins == 6


def test_a_spin_collects_every_item_of_the_wheel_colour_and_refills() -> None:
    start = grid({0: CIRCLE, 1: CIRCLE, 2: TRIANGLE, 3: BONUS, 4: PRIZE})
    game = play(start, [spin([0, 2, 3, 4], refill=[SQUARE, SQUARE, DIAMOND, CIRCLE])])
    assert game.filled[CIRCLE] == 1
    assert game.filled[TRIANGLE] == 1
    assert game.bonus_symbols == 1
    assert game.prize_game_symbols == 1
    assert game.grid[:5] == [SQUARE, CIRCLE, SQUARE, DIAMOND, CIRCLE]
    assert game.spins_left == CFG.starting_spins - 1


def test_a_completed_row_wins_its_amount() -> None:
    start = grid([CIRCLE] * 4)
    result = replay(PlayRecord(start, (spin([0, 1, 2, 3]), *spins(5))))
    assert result.rows == (CIRCLE,)
    assert result.prize == 500
    assert result.tier is not None and result.tier.name == "£5"


def test_symbols_for_a_full_row_are_collected_and_lost() -> None:
    start = grid([CIRCLE] * 6)
    result = replay(PlayRecord(start, (spin(range(6)), *spins(5))))
    assert result.rows == (CIRCLE,)
    assert result.prize == 500


def test_two_rows_pay_together() -> None:
    start = grid([CIRCLE] * 4 + [TRIANGLE] * 5)
    result = replay(PlayRecord(start, (spin(range(9)), *spins(5))))
    assert result.tier is not None and result.tier.name == "£12 (£5 + £7)"


def test_a_combination_outside_the_prize_table_is_refused() -> None:
    start = grid([CIRCLE] * 4 + [PENTAGON] * 8)
    error = broken(PlayRecord(start, (spin(range(12)), *spins(5))))
    assert error.rule == "prize-not-in-table"
    assert error.step == -1


# -- the Bonus Game --------------------------------------------------------------------------------


def test_bonus_game_with_overflow_keeps_the_extra_symbols() -> None:
    start = grid([BONUS] * 8)
    steps: list[Step] = [spin(range(8), panels=[PANEL]), won(EXTRA_SPINS), lost()]
    history = list(states(PlayRecord(start, (*steps, *spins(7)))))
    after_spin, after_game = history[1], history[3]
    assert after_spin.phase is Phase.BONUS
    assert after_spin.bonus_symbols == 2
    assert after_game.phase is Phase.MAIN
    assert after_game.bonus_symbols == 2
    assert after_game.spins_left == CFG.starting_spins - 1 + 2


def test_two_bonus_games_in_one_play_the_box_fills_again() -> None:
    start = grid([BONUS] * 10)
    steps: list[Step] = [
        spin(range(7), refill=[BONUS] * 7, panels=[PANEL]),
        lost(),
        spin(range(5), panels=[PANEL]),
        won(BOOSTER),
        lost(),
        *spins(4),
    ]
    result = replay(PlayRecord(start, tuple(steps)))
    assert result.bonus_games == 2
    assert result.level == 1


def test_one_spin_can_start_two_bonus_games() -> None:
    start = grid([BONUS] * 13)
    steps: list[Step] = [spin(range(13), panels=[PANEL, PANEL]), won(BOOSTER), lost(), lost()]
    game = play(start, steps)
    assert game.bonus_games_played == 2
    assert game.bonus_symbols == 1
    assert game.level == 1
    error = broken(PlayRecord(start, (spin(range(13), panels=[PANEL]), lost(), *spins(5))))
    assert (error.step, error.rule) == (0, "bonus-panels")


def test_boosts_stack_and_stop_at_level_three() -> None:
    start = grid([BONUS] * 6 + [CIRCLE] * 4)
    game = play(start, [spin(range(6), panels=[PANEL]), won(BOOSTER), won(BOOSTER)])
    assert game.level == 0  # prizes take effect when the Bonus Game ends
    game.apply(lost())
    assert game.level == 2
    assert [row["amount"] for row in _table(game)][:6] == [800, 1000, 2000, 3000, 10000, 100000]
    game = play(
        start, [spin(range(6), panels=[PANEL]), won(SUPER), won(MEGA), won(BOOSTER), lost()]
    )
    assert game.boosts == 6
    assert game.level == 3
    assert _table(game)[6]["amount"] == 100_000_000  # the top prize never changes


def _table(game: Game) -> list[dict[str, int]]:
    return [{"amount": CFG.row_amount(r, game.level)} for r in range(CFG.shapes)]


def test_rows_are_paid_at_the_level_of_the_end_of_the_main_game() -> None:
    # The circle row completes on the first spin, the booster comes later: still paid at level 1.
    start = grid([CIRCLE] * 4 + [BONUS] * 6)
    steps: list[Step] = [
        spin(range(4)),
        spin(range(4, 10), panels=[PANEL]),
        won(BOOSTER),
        lost(),
        *spins(4),
    ]
    result = replay(PlayRecord(start, tuple(steps)))
    assert result.level == 1
    assert result.tier is not None and result.tier.name == "£6"


def test_a_level_three_table_pays_level_three_amounts() -> None:
    start = grid([BONUS] * 6 + [CIRCLE] * 4 + [TRIANGLE] * 5)
    steps: list[Step] = [spin(range(15), panels=[PANEL]), won(MEGA), lost(), *spins(5)]
    result = replay(PlayRecord(start, tuple(steps)))
    assert result.tier is not None and result.tier.name == "£25 (£10 + £15)"


def test_extra_spins_add_to_the_spins_left() -> None:
    start = grid([BONUS] * 6)
    steps: list[Step] = [spin(range(6), panels=[PANEL]), won(EXTRA_SPINS), won(EXTRA_SPINS), lost()]
    game = play(start, steps)
    assert game.spins_left == CFG.starting_spins - 1 + 4
    result = replay(PlayRecord(start, (*steps, *spins(9))))
    assert result.spins == 10
    error = broken(PlayRecord(start, (*steps, *spins(5))))
    assert error.rule == "incomplete"
    assert error.step == len(steps) + 5


def test_symbols_from_a_bonus_prize_complete_a_row() -> None:
    start = grid([CIRCLE] * 2 + [BONUS] * 6)
    steps: list[Step] = [
        spin(range(8), panels=[PANEL]),
        won(SYMBOLS, rows=[CIRCLE, CIRCLE, TRIANGLE, SQUARE]),
        lost(),
        *spins(5),
    ]
    result = replay(PlayRecord(start, tuple(steps)))
    assert result.rows == (CIRCLE,)
    assert result.tier is not None and result.tier.name == "£5"


def test_symbols_may_not_go_to_a_full_row() -> None:
    start = grid([CIRCLE] * 4 + [BONUS] * 6)
    steps: list[Step] = [
        spin(range(10), panels=[PANEL]),
        won(SYMBOLS, rows=[CIRCLE, TRIANGLE, TRIANGLE, TRIANGLE]),
        lost(),
    ]
    error = broken(PlayRecord(start, (*steps, *spins(5))))
    assert (error.step, error.rule) == (1, "symbol-rows")


def test_a_bonus_game_keeps_count_of_the_boxes_its_symbols_will_fill() -> None:
    # The boxes the Symbols won so far will fill are counted as each round is won, not worked out
    # again from every earlier prize: a long hand-made Bonus Game replays in linear time (40,000
    # rounds took 18 s when each SYMBOLS round walked every prize won before it).
    start = grid([CIRCLE] * 2 + [BONUS] * 6)
    game = play(start, [spin(range(8), panels=[PANEL])])
    assert game.promised == [2, 0, 0, 0, 0, 0, 0]
    game.apply(won(SYMBOLS, rows=[CIRCLE, CIRCLE, TRIANGLE, SQUARE]))
    game.apply(won(BOOSTER))
    assert game.promised == [4, 1, 1, 0, 0, 0, 0]
    assert game.filled == [2, 0, 0, 0, 0, 0, 0]  # the prizes take effect when the game ends
    error = broken(
        PlayRecord(
            start,
            (
                spin(range(8), panels=[PANEL]),
                won(SYMBOLS, rows=[CIRCLE, CIRCLE, TRIANGLE, SQUARE]),
                won(SYMBOLS, rows=[CIRCLE, TRIANGLE, TRIANGLE, TRIANGLE]),
                lost(),
                *spins(5),
            ),
        )
    )
    assert (error.step, error.rule, error.detail) == (
        2,
        "symbol-rows",
        "row 0 has no unfilled box for an added symbol",
    )
    game.apply(lost())
    assert game.filled == [4, 1, 1, 0, 0, 0, 0]


def test_symbols_rows_must_match_the_prize() -> None:
    start = grid([BONUS] * 6)
    base: list[Step] = [spin(range(6), panels=[PANEL])]
    too_few = broken(PlayRecord(start, (*base, won(SYMBOLS, rows=[1, 2]), lost(), *spins(5))))
    assert (too_few.step, too_few.rule) == (1, "symbol-rows")
    stray = broken(PlayRecord(start, (*base, won(BOOSTER, rows=[1]), lost(), *spins(5))))
    assert (stray.step, stray.rule) == (1, "symbol-rows")
    bad_row = broken(PlayRecord(start, (*base, won(SYMBOLS, rows=[1, 2, 3, 9]), lost(), *spins(5))))
    assert (bad_row.step, bad_row.rule) == (1, "symbol-rows")


def test_the_pick_and_the_reel_number_must_agree_with_the_result() -> None:
    start = grid([BONUS] * 6)
    head: list[Step] = [spin(range(6), panels=[PANEL])]
    lie = BonusRound(EXTRA_SPINS, True, won(0).pick, 2)
    error = broken(PlayRecord(start, (*head, lie, lost(), *spins(5))))
    assert (error.step, error.rule) == (1, "pick-result")
    odd_number = BonusRound(EXTRA_SPINS, True, won(0).pick, 13)
    error = broken(PlayRecord(start, (*head, odd_number, lost(), *spins(5))))
    assert (error.step, error.rule) == (1, "reel-number")
    half = BonusRound(EXTRA_SPINS, True, won(0).pick, None)
    error = broken(PlayRecord(start, (*head, half, lost(), *spins(5))))
    assert (error.step, error.rule) == (1, "pick-and-number")


def test_an_unplayed_round_trusts_its_fixed_result() -> None:
    start = grid([BONUS] * 6)
    steps = (spin(range(6), panels=[PANEL]), BonusRound(BOOSTER, True), BonusRound(0, False))
    assert play(start, list(steps)).level == 1


def test_the_highlighted_prize_must_be_on_the_panel() -> None:
    start = grid([BONUS] * 6)
    error = broken(PlayRecord(start, (spin(range(6), panels=[PANEL]), won(7), lost(), *spins(5))))
    assert (error.step, error.rule) == (1, "prize-index")


def test_panels_are_checked() -> None:
    start = grid([BONUS] * 6)
    short = PANEL[:6]
    error = broken(PlayRecord(start, (spin(range(6), panels=[short]), lost(), *spins(5))))
    assert (error.step, error.rule) == (0, "panel-size")
    greedy = (BonusPrize(BonusKind.EXTRA_SPINS, 4), *PANEL[1:])
    error = broken(PlayRecord(start, (spin(range(6), panels=[greedy]), lost(), *spins(5))))
    assert (error.step, error.rule) == (0, "bonus-prize-value")
    assert "4" in error.detail
    spare = broken(PlayRecord(grid(), (spin([0], panels=[PANEL]), *spins(5))))
    assert (spare.step, spare.rule) == (0, "bonus-panels")


# -- the Prize Game --------------------------------------------------------------------------------


def test_prize_game_unlocked_by_symbols() -> None:
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 1000, 1: 500, 2: WIN, 3: WIN_X2})
    steps: list[Step] = [
        spin(range(6)),
        *spins(5),
        prize_spin([0], refill=[200]),
        prize_spin([2], final=True),
    ]
    result = replay(PlayRecord(start, tuple(steps), pgrid))
    assert result.prize_game is not None
    assert (result.prize_game.pot, result.prize_game.doubled) == (1000, False)
    assert result.tier is not None and result.tier.name == "£10 (£10 Prize Game)"


def test_surplus_prize_game_symbols_are_ignored_and_it_is_played_once() -> None:
    start = grid([PRIZE] * 8)
    pgrid = prize_grid({0: 1000, 2: WIN})
    steps: list[Step] = [spin(range(8), refill=[PRIZE] * 8), spin(range(8)), *spins(4)]
    game = play(start, steps, pgrid)
    assert game.prize_game_symbols == 6
    assert game.phase is Phase.PRIZE
    game.apply(prize_spin([0, 2], final=True))
    assert game.phase is Phase.OVER
    assert game.prize_game_result == 1000


def test_prize_game_unlocked_by_a_bonus_prize_after_the_main_game() -> None:
    start = grid([BONUS] * 6)
    pgrid = prize_grid({0: 500, 1: 100, 2: WIN_X2, 3: WIN})
    main: list[Step] = [spin(range(6), panels=[PANEL]), won(UNLOCK), lost()]
    game = play(start, main, pgrid)
    assert game.prize_game_unlocked
    assert game.phase is Phase.MAIN  # the Prize Game waits for the Main Game's spins
    steps = [*main, *spins(5), prize_spin([0, 1], refill=[100, 100]), prize_spin([2], final=True)]
    result = replay(PlayRecord(start, tuple(steps), pgrid))
    assert result.prize_game is not None
    assert (result.prize_game.pot, result.prize_game.doubled) == (600, True)
    assert result.tier is not None and result.tier.name == "£12 (£12 Prize Game)"


def test_prize_game_symbols_prize_fills_the_box() -> None:
    start = grid([BONUS] * 6 + [PRIZE] * 4)
    pgrid = prize_grid({0: 1000, 2: WIN})
    steps: list[Step] = [
        spin(range(10), panels=[PANEL]),
        won(PG_SYMBOLS),
        lost(),
        *spins(5),
        prize_spin([0, 2], final=True),
    ]
    result = replay(PlayRecord(start, tuple(steps), pgrid))
    assert result.tier is not None and result.tier.name == "£10 (£10 Prize Game)"


def test_win_x2_doubles_the_pot() -> None:
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 500, 1: WIN_X2, 2: WIN})
    record = PlayRecord(start, (spin(range(6)), *spins(5), prize_spin([0, 1], final=True)), pgrid)
    result = replay(record)
    assert result.prize_game is not None and result.prize_game.doubled
    assert result.prize == 1000


def test_win_and_win_x2_together_double() -> None:
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 500, 1: WIN_X2, 2: WIN})
    result = replay(
        PlayRecord(start, (spin(range(6)), *spins(5), prize_spin([0, 1, 2], final=True)), pgrid)
    )
    assert result.prize == 1000


def test_the_prize_pot_is_never_empty_at_the_end() -> None:
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 500, 1: WIN})
    error = broken(
        PlayRecord(start, (spin(range(6)), *spins(5), prize_spin([1], final=True)), pgrid)
    )
    assert (error.step, error.rule) == (6, "empty-pot")


def test_the_last_prize_spin_refills_nothing_and_nothing_follows() -> None:
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 500, 1: WIN})
    head: list[Step] = [spin(range(6)), *spins(5)]
    error = broken(PlayRecord(start, (*head, prize_spin([0, 1], refill=[100, 100])), pgrid))
    assert (error.step, error.rule) == (6, "refill-count")
    record = PlayRecord(start, (*head, prize_spin([0, 1], refill=[]), prize_spin([0])), pgrid)
    error = broken(record)
    assert (error.step, error.rule) == (7, "play-over")


def test_prize_grid_must_match_the_play() -> None:
    start = grid([PRIZE] * 6)
    error = broken(PlayRecord(start, (spin(range(6)), *spins(5))))
    assert error.rule == "prize-grid-missing"
    error = broken(PlayRecord(grid(), tuple(spins(6)), prize_grid({0: WIN})))
    assert error.rule == "prize-grid-unused"
    error = broken(PlayRecord(grid(), tuple(spins(6)), (100, WIN)))
    assert error.rule == "prize-grid-size"
    error = broken(PlayRecord(grid(), tuple(spins(6)), prize_grid({0: 333})))
    assert error.rule == "prize-grid-item"


# -- records that break the Main Game's rules ------------------------------------------------------


@pytest.mark.parametrize(
    ("mutate", "rule"),
    [
        (lambda s: replace(s, colours=s.colours[:-1]), "colour-count"),
        (lambda s: replace(s, colours=(9, *s.colours[1:])), "colour"),
        (lambda s: replace(s, wheel=6), "wheel"),
        (lambda s: replace(s, refill=s.refill[:-1]), "refill-count"),
        (lambda s: replace(s, refill=(*s.refill[:-1], 42)), "refill-item"),
    ],
)
def test_broken_spins_name_the_step_and_rule(mutate: object, rule: str) -> None:
    start = grid([CIRCLE] * 3)
    good = spin(range(3))
    bad = mutate(good)  # type: ignore[operator]
    error = broken(PlayRecord(start, (spin([]), bad, *spins(4))))
    assert (error.step, error.rule) == (1, rule)
    assert f"step 1: {rule}" in str(error)


def test_steps_must_come_in_order() -> None:
    error = broken(PlayRecord(grid(), (spin(), lost(), *spins(5))))
    assert (error.step, error.rule) == (1, "step-order")
    start = grid([BONUS] * 6)
    error = broken(PlayRecord(start, (spin(range(6), panels=[PANEL]), spin(), *spins(5))))
    assert (error.step, error.rule) == (1, "step-order")
    error = broken(PlayRecord(grid(), (*spins(6), spin())))
    assert (error.step, error.rule) == (6, "play-over")


def test_the_grid_is_checked() -> None:
    with pytest.raises(RuleError, match="grid-size"):
        replay(PlayRecord(grid()[:-1], tuple(spins(6))))
    with pytest.raises(RuleError, match="grid-item"):
        replay(PlayRecord((*grid()[:-1], 99), tuple(spins(6))))


def test_a_refused_step_changes_nothing() -> None:
    game = Game(grid([CIRCLE] * 3))
    before = vars(game.clone()).copy()
    with pytest.raises(RuleError):
        game.apply(replace(spin(range(3)), refill=()))
    after = vars(game)
    assert {k: v for k, v in after.items() if k != "config"} == {
        k: v for k, v in before.items() if k != "config"
    }
    assert not game.can_apply(lost())
    assert game.can_apply(spin(range(3)))


def test_the_prize_grid_holds_one_win_and_one_win_x2_and_refills_amounts() -> None:
    two_wins = (*prize_grid({0: 500})[:-3], WIN, WIN, WIN_X2)
    error = broken(PlayRecord(grid([PRIZE] * 6), (spin(range(6)), *spins(5)), two_wins))
    assert error.rule == "prize-grid-symbols"
    start = grid([PRIZE] * 6)
    pgrid = prize_grid({0: 500, 1: WIN})
    steps = (spin(range(6)), *spins(5), prize_spin([0], refill=[WIN]))
    error = broken(PlayRecord(start, steps, pgrid))
    assert (error.step, error.rule) == (6, "refill-item")


def test_a_panel_offers_each_kind_once() -> None:
    start = grid([BONUS] * 6)
    twins = (PANEL[0], PANEL[0], *PANEL[2:])
    error = broken(PlayRecord(start, (spin(range(6), panels=[twins]), lost(), *spins(5))))
    assert (error.step, error.rule) == (0, "panel-kinds")
