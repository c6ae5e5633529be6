"""The game configuration file: every number of the game, and bad files refused by key and value."""

from __future__ import annotations

from importlib import resources

import pytest

from colour_collector.game.config import BonusKind, load_config, parse_config
from colour_collector.game.errors import ConfigError

TEXT = resources.files("colour_collector.game").joinpath("data/game.toml").read_text("utf-8")


def test_the_shipped_configuration_holds_the_published_numbers() -> None:
    cfg = load_config()
    assert cfg.price == 500
    assert cfg.starting_spins == 6
    assert len(cfg.colours) == 6
    assert cfg.colours[cfg.start_colour] == "orange"
    assert cfg.bonus_box == 6 and cfg.prize_game_box == 6
    assert cfg.panel_size == 7
    assert (cfg.reel_min, cfg.reel_max) == (1, 12)
    levels = [[row.amounts[level] for row in cfg.prize_table] for level in range(4)]
    assert levels[0] == [500, 700, 1000, 2000, 5000, 50000, 100_000_000]
    assert levels[1] == [600, 800, 1200, 2500, 7500, 75000, 100_000_000]
    assert levels[2] == [800, 1000, 2000, 3000, 10000, 100000, 100_000_000]
    assert levels[3] == [1000, 1500, 3000, 5000, 25000, 200000, 100_000_000]
    spins = cfg.bonus_prizes[BonusKind.EXTRA_SPINS]
    assert (spins.minimum, spins.maximum) == (1, 3)
    symbols = [cfg.bonus_prizes[k] for k in (BonusKind.SYMBOLS, BonusKind.MORE_SYMBOLS)]
    assert min(s.minimum for s in symbols) == 4 and max(s.maximum for s in symbols) == 12
    pg = cfg.bonus_prizes[BonusKind.PRIZE_GAME_SYMBOLS]
    assert (pg.minimum, pg.maximum) == (1, 3)
    boosts = [cfg.bonus_prizes[k].boost for k in BonusKind]
    assert sorted(b for b in boosts if b) == [1, 2, 3]


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ("price_pence = 500", "price_pence = -5", "'price_pence'"),
        ("price_pence = 500", "price_pence = 'five'", "'five'"),
        ('start = "orange"', 'start = "mauve"', "'colours.start'"),
        ("boxes = 4\n", "boxes = 0\n", "'prize_table[0].boxes'"),
        ("amounts_pence = [500, 600, 800, 1000]", "amounts_pence = [500, 600]", "[500, 600]"),
        (
            "amounts_pence = [500, 600, 800, 1000]",
            "amounts_pence = [900, 600, 800, 1000]",
            "must not fall",
        ),
        ("min = 1\nmax = 3", "min = 3\nmax = 1", "'bonus_game.prizes.extra_spins.max'"),
        ("reel_max = 12", "reel_max = 1", "'bonus_game.reel_max'"),
        ("box_size = 6", "box_size = true", "True"),
        ("[levels]", "[levelz]", "'levels'"),
        ("price_pence = 500", "price_pence = [", "not valid TOML"),
    ],
)
def test_a_bad_file_is_refused_naming_the_key_and_value(old: str, new: str, named: str) -> None:
    assert old in TEXT
    with pytest.raises(ConfigError) as caught:
        parse_config(TEXT.replace(old, new, 1))
    assert named in str(caught.value)


def test_an_unknown_bonus_prize_kind_is_refused() -> None:
    text = TEXT + '\n[bonus_game.prizes.free_money]\nlabel = "FREE"\n'
    with pytest.raises(ConfigError, match="free_money"):
        parse_config(text)


def test_the_configuration_is_frozen() -> None:
    cfg = load_config()
    with pytest.raises(AttributeError):
        cfg.price = 1  # type: ignore[misc]
