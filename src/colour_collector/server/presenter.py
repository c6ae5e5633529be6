"""What the player sees, as typed response models: the board after some revealed steps, and
what one step showed. The one place a screen is built.

A screen is always built from the stored play, by applying its revealed steps through the rules
(``game.progress.state_after``), and carries nothing the player has not reached: no future wheel
stop, no future bonus round, no Prize Game grid before the Prize Game starts, no prize before
the play is over. The grid's colours are shown only while a spin is next (they are "applied"
before each spin, the procedures say).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from colour_collector.game.config import BonusKind, GameConfig, load_config
from colour_collector.game.progress import StepKind, expected_step, state_after
from colour_collector.game.record import (
    WIN,
    WIN_X2,
    BonusRound,
    Item,
    MainSpin,
    PlayRecord,
    PrizeSpin,
)
from colour_collector.game.replay import result_of
from colour_collector.game.rules import Game, Phase
from colour_collector.server.schemas import Response

_CONFIG = load_config()
ColourName = Annotated[
    str, Field(description="A wheel colour.", json_schema_extra={"enum": list(_CONFIG.colours)})
]
ItemName = Annotated[
    str,
    Field(
        description="A Main Game grid item: a shape Symbol, `bonus` or `prize_game`.",
        json_schema_extra={"enum": list(_CONFIG.item_names)},
    ),
]
PrizeItem = Annotated[
    int | Literal["win", "win_x2"],
    Field(description="A Prize Game amount in pence, or the WIN / WIN x2 symbol."),
]


class GridSquare(Response):
    """One square of the Main Game grid."""

    item: ItemName
    colour: ColourName | None = Field(description="Null unless a Main Game spin is next.")


class PrizeTableRow(Response):
    """One row of the Prize Table."""

    shape: ItemName
    boxes: int
    filled: int
    amount_pence: int = Field(description="What the row pays at the current boost level.")
    complete: bool
    colour: ColourName | None = Field(
        description="The colour the row's symbol was last collected in; null while white."
    )


class PanelPrize(Response):
    """One Bonus Prize on the Bonus Game Panel."""

    kind: BonusKind
    value: int = Field(description="Spins or symbols it carries; 0 for the other kinds.")


class BonusRoundShown(Response):
    """A played Bonus Game round."""

    prize: int = Field(description="Index of the highlighted prize on the panel.")
    won: bool
    pick: Literal["odd", "even"] | None
    number: int | None = Field(description="The Bonus Reel's number.")
    rows: list[int] = Field(description="Prize Table rows its Symbols went to.")


class BonusGame(Response):
    """The Bonus Game in progress: its panel and the rounds won so far."""

    panel: list[PanelPrize]
    rounds: list[BonusRoundShown]


class PrizeSquare(Response):
    """One square of the Prize Game grid."""

    item: PrizeItem
    colour: ColourName | None = Field(description="Null unless a Prize Game spin is next.")
    collected: bool = Field(
        description="Taken by the spin that ended the Prize Game (the square is empty now)."
    )


class PrizeGame(Response):
    """The Prize Game, once it has started."""

    grid: list[PrizeSquare]
    pot_pence: int
    doubled: bool
    over: bool


class PlayResult(Response):
    """What the play won: present only once every step is revealed."""

    prize_pence: int
    tier: str | None = Field(description="The prize tier as printed; null for no win.")
    rows: list[int] = Field(description="Completed Prize Table rows.")
    row_amounts_pence: list[int]
    level: int = Field(description="The Prize Table's boost level at the end.")
    prize_game_pence: int
    doubled: bool


class Board(Response):
    """The player's screen after ``revealed`` steps."""

    revealed: int = Field(description="Steps revealed so far.")
    phase: Phase
    next: StepKind | None = Field(description="What the player does next; null when over.")
    spins_left: int
    level: int = Field(description="The Prize Table's boost level.")
    wheel: ColourName = Field(description="Where the Segment Indicator points.")
    prize_table: list[PrizeTableRow]
    bonus_box: int = Field(description="Filled silhouettes in the Bonus Game Box.")
    prize_game_box: int = Field(description="Filled silhouettes in the Prize Game Box.")
    prize_game_unlocked: bool
    grid: list[GridSquare] = Field(description="Row by row, top left first.")
    bonus_game: BonusGame | None
    prize_game: PrizeGame | None
    result: PlayResult | None


class SpinShown(Response):
    """A Main Game spin just revealed."""

    kind: Literal["spin"] = "spin"
    index: int
    wheel: ColourName
    collected: list[int] = Field(description="Squares collected.")
    collected_items: list[ItemName]
    bonus_games_started: int


class BonusPickShown(BonusRoundShown):
    """A Bonus Game round just played."""

    kind: Literal["bonus_pick"] = "bonus_pick"
    index: int


class PrizeSpinShown(Response):
    """A Prize Game spin just revealed."""

    kind: Literal["prize_spin"] = "prize_spin"
    index: int
    wheel: ColourName
    collected: list[int] = Field(description="Squares collected.")
    collected_items: list[PrizeItem]


StepShown = Annotated[SpinShown | BonusPickShown | PrizeSpinShown, Field(discriminator="kind")]
"""What one revealed step showed."""


class LastStep(Response):
    """The step revealed last, with the screen before it: what a resumed screen needs to mark
    what that step did, as the screen showed it just after the step."""

    step: StepShown
    before: Board = Field(description="The screen before the step.")


_STEP_SHOWN: TypeAdapter[SpinShown | BonusPickShown | PrizeSpinShown] = TypeAdapter(StepShown)

# The screens are built as plain data and validated into the models in one call each: pydantic
# then builds every nested model in one pass of its compiled validator, instead of one Python
# constructor call for each of the board's thirty-odd models.
Data = dict[str, Any]


def board(record: PlayRecord, revealed: int, config: GameConfig | None = None) -> Board:
    """The screen after ``revealed`` steps."""
    cfg = config or _CONFIG
    return Board.model_validate(_board(record, revealed, state_after(record, revealed, cfg), cfg))


def step_and_board(
    record: PlayRecord, index: int, config: GameConfig | None = None
) -> tuple[SpinShown | BonusPickShown | PrizeSpinShown, Board]:
    """What step ``index`` showed and the screen after it, from one pass over the steps."""
    cfg = config or _CONFIG
    game = state_after(record, index, cfg)
    shown = _step(record, index, game, cfg)
    game.apply(record.steps[index])
    return _STEP_SHOWN.validate_python(shown), Board.model_validate(
        _board(record, index + 1, game, cfg)
    )


def resumed(
    record: PlayRecord, revealed: int, config: GameConfig | None = None
) -> tuple[Board, LastStep | None]:
    """The screen after ``revealed`` steps and the last of those steps (None before the first):
    a play opened again (a reload, another tab, a resumed purchase) is drawn as it was left."""
    if revealed == 0:
        return board(record, 0, config), None
    before = board(record, revealed - 1, config)
    shown, after = step_and_board(record, revealed - 1, config)
    return after, LastStep(step=shown, before=before)


def steps_shown(
    record: PlayRecord, revealed: int, config: GameConfig | None = None
) -> list[tuple[SpinShown | BonusPickShown | PrizeSpinShown, Board]]:
    """What each of the first ``revealed`` steps showed, with the screen after it (recall)."""
    cfg = config or _CONFIG
    game = state_after(record, 0, cfg)
    shown = []
    for index in range(revealed):
        step = _step(record, index, game, cfg)
        game.apply(record.steps[index])
        screen = _board(record, index + 1, game, cfg)
        shown.append((_STEP_SHOWN.validate_python(step), Board.model_validate(screen)))
    return shown


def _prize_item(item: Item) -> int | str:
    if item == WIN:
        return "win"
    if item == WIN_X2:
        return "win_x2"
    return item


def _board(record: PlayRecord, revealed: int, game: Game, cfg: GameConfig) -> Data:
    """The data of :class:`Board`, given the rules state after ``revealed`` steps."""
    nxt = expected_step(record, revealed)
    upcoming = record.steps[revealed] if revealed < len(record.steps) else None
    names = cfg.item_names
    colours = upcoming.colours if isinstance(upcoming, MainSpin) else None
    prize_game = None
    if game.phase is Phase.PRIZE or (game.phase is Phase.OVER and game.prize_game_played):
        prize_colours = upcoming.colours if isinstance(upcoming, PrizeSpin) else None
        last = record.steps[revealed - 1] if game.prize_game_played else None
        ended = (
            {s for s, c in enumerate(last.colours) if c == last.wheel}
            if isinstance(last, PrizeSpin)
            else set()
        )
        prize_game = {
            "grid": [
                {
                    "item": _prize_item(item),
                    "colour": None if prize_colours is None else cfg.colours[prize_colours[s]],
                    "collected": s in ended,
                }
                for s, item in enumerate(game.prize_grid)
            ],
            "pot_pence": game.pot,
            "doubled": game.doubled,
            "over": game.prize_game_played,
        }
    return {
        "revealed": revealed,
        "phase": game.phase,
        "next": nxt,
        "spins_left": game.spins_left,
        "level": game.level,
        "wheel": cfg.colours[game.wheel],
        "prize_table": [
            {
                "shape": row.shape,
                "boxes": row.boxes,
                "filled": min(game.filled[r], row.boxes),
                "amount_pence": row.amounts[game.level],
                "complete": game.filled[r] >= row.boxes,
                "colour": None if colour is None else cfg.colours[colour],
            }
            for r, (row, colour) in enumerate(zip(cfg.prize_table, game.row_colours, strict=True))
        ],
        "bonus_box": game.bonus_symbols,
        "prize_game_box": game.prize_game_symbols,
        "prize_game_unlocked": game.prize_game_unlocked,
        "grid": [
            {"item": names[item], "colour": None if colours is None else cfg.colours[colours[s]]}
            for s, item in enumerate(game.grid)
        ],
        "bonus_game": _bonus_game(record, revealed, game) if game.phase is Phase.BONUS else None,
        "prize_game": prize_game,
        "result": _result(record, game) if game.phase is Phase.OVER else None,
    }


def _bonus_game(record: PlayRecord, revealed: int, game: Game) -> Data:
    """The current Bonus Game: its panel, and its rounds played so far (all won: a lost round
    ends a Bonus Game)."""
    rounds: list[Data] = []
    for step in reversed(record.steps[:revealed]):
        if not isinstance(step, BonusRound) or not step.won:
            break
        rounds.append(_round(step))
    rounds.reverse()
    return {"panel": [{"kind": p.kind, "value": p.value} for p in game.panel], "rounds": rounds}


def _round(step: BonusRound) -> Data:
    return {
        "prize": step.prize,
        "won": step.won,
        "pick": None if step.pick is None else step.pick.value,
        "number": step.number,
        "rows": list(step.rows),
    }


def _result(record: PlayRecord, game: Game) -> Data:
    result = result_of(game, sum(1 for s in record.steps if isinstance(s, MainSpin)))
    return {
        "prize_pence": result.prize,
        "tier": None if result.tier is None else result.tier.name,
        "rows": list(result.rows),
        "row_amounts_pence": list(result.row_amounts),
        "level": result.level,
        "prize_game_pence": result.prize_game.amount if result.prize_game else 0,
        "doubled": bool(result.prize_game and result.prize_game.doubled),
    }


def _step(record: PlayRecord, index: int, before: Game, cfg: GameConfig) -> Data:
    """The data of what step ``index`` showed, given the rules state before it."""
    step = record.steps[index]
    if isinstance(step, BonusRound):
        return {"kind": "bonus_pick", "index": index, **_round(step)}
    collected = [s for s, c in enumerate(step.colours) if c == step.wheel]
    if isinstance(step, MainSpin):
        return {
            "kind": "spin",
            "index": index,
            "wheel": cfg.colours[step.wheel],
            "collected": collected,
            "collected_items": [cfg.item_names[before.grid[s]] for s in collected],
            "bonus_games_started": len(step.bonus_panels),
        }
    return {
        "kind": "prize_spin",
        "index": index,
        "wheel": cfg.colours[step.wheel],
        "collected": collected,
        "collected_items": [_prize_item(before.prize_grid[s]) for s in collected],
    }
