"""Writes the golden play records: ``scripts/regenerate-golden`` runs this.

Each golden record is the first play, over seeds 0, 1, 2..., of the generator for a given outcome
that has the wanted features; it is then played out (picks and reel numbers from the same seed), so
every record is complete. ``manifest.json`` lists each file with its seed, what it shows, and the
tier and prize the replayer must find.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from colour_collector.game.codec import dumps
from colour_collector.game.config import BonusKind
from colour_collector.game.generator import generate
from colour_collector.game.prize_table import tier_by_name
from colour_collector.game.progress import play_out
from colour_collector.game.record import BonusRound, MainSpin, Panel, PlayRecord
from colour_collector.game.replay import Result, replay

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
MAX_SEED = 100_000

Wanted = Callable[[PlayRecord, Result], bool]


def won_kinds(record: PlayRecord) -> list[BonusKind]:
    """Bonus Prize kinds the record's won rounds award, in order."""
    kinds: list[BonusKind] = []
    queued: list[Panel] = []
    panel: Panel = ()
    for step in record.steps:
        if isinstance(step, MainSpin):
            queued.extend(step.bonus_panels)
        elif isinstance(step, BonusRound):
            panel = panel or queued.pop(0)
            if step.won:
                kinds.append(panel[step.prize].kind)
            else:
                panel = ()
    return kinds


def has_bonus_game(record: PlayRecord, result: Result) -> bool:
    return result.bonus_games > 0


def no_bonus_game(record: PlayRecord, result: Result) -> bool:
    return result.bonus_games == 0


def prize_game_by_symbols(record: PlayRecord, result: Result) -> bool:
    unlockers = {BonusKind.UNLOCK_PRIZE_GAME, BonusKind.PRIZE_GAME_SYMBOLS}
    return result.prize_game is not None and not unlockers & set(won_kinds(record))


def prize_game_by_bonus_prize_doubled(record: PlayRecord, result: Result) -> bool:
    return (
        result.prize_game is not None
        and result.prize_game.doubled
        and BonusKind.UNLOCK_PRIZE_GAME in won_kinds(record)
    )


GOLDEN: tuple[tuple[str, str | None, str, Wanted], ...] = (
    ("no_win", None, "a losing play with a Bonus Game", has_bonus_game),
    ("main_game_win", "£5", "the £5 row completed in the Main Game", no_bonus_game),
    ("bonus_game", "£14 (£6 + £8)", "a PRIZE BOOSTER won in a Bonus Game", has_bonus_game),
    (
        "prize_game_by_symbols",
        "£15 (£15 Prize Game)",
        "the Prize Game unlocked by six collected symbols",
        prize_game_by_symbols,
    ),
    (
        "prize_game_by_bonus_prize_x2",
        "£20 (£20 Prize Game)",
        "the Prize Game unlocked by UNLOCK PRIZE GAME, ended on WIN x2",
        prize_game_by_bonus_prize_doubled,
    ),
    ("top_prize", "£1,000,000", "the £1,000,000 star row", has_bonus_game),
)
"""(file stem, tier name or None for no win, what it shows, the feature wanted)."""


def find(tier_name: str | None, wanted: Wanted) -> tuple[int, PlayRecord, Result]:
    """The first seed whose played-out record has the wanted feature."""
    tier = None if tier_name is None else tier_by_name(tier_name)
    for seed in range(MAX_SEED):
        rng = random.Random(seed)
        record = play_out(generate(tier, rng), 0, rng)
        result = replay(record)
        if result.tier != tier:
            raise SystemExit(f"seed {seed}: generated {tier_name!r}, replayed {result.tier!r}")
        if wanted(record, result):
            return seed, record, result
    raise SystemExit(f"no seed below {MAX_SEED} gives {tier_name!r} with {wanted.__name__}")


def main() -> None:
    """Write every golden record and the manifest."""
    manifest = []
    for stem, tier_name, shows, wanted in GOLDEN:
        seed, record, result = find(tier_name, wanted)
        path = HERE / f"{stem}.json"
        path.write_text(dumps(record, indent=2) + "\n", encoding="utf-8")
        manifest.append(
            {
                "file": path.name,
                "seed": seed,
                "shows": shows,
                "tier": None if result.tier is None else result.tier.name,
                "prize_pence": result.prize,
                "level": result.level,
                "bonus_games": result.bonus_games,
                "prize_game_doubled": None
                if result.prize_game is None
                else result.prize_game.doubled,
            }
        )
        print(f"{path.name}: seed {seed}, {shows}", file=sys.stderr)
    MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
