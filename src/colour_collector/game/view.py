"""What the player sees: the board after a number of revealed steps, as JSON-ready data.

Views are always built from the stored play by applying the revealed steps through the rules
(the server goes on from the state the previous step of the same stored play left: the same
steps through the same rules, see :class:`Continuations`), and they carry nothing the player
has not reached: no future wheel stop, no future bonus round, no Prize Game grid before the
Prize Game starts, no prize before the play is over.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from colour_collector.game.codec import prize_item_json
from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.progress import expected_step
from colour_collector.game.record import (
    BonusRound,
    MainSpin,
    PlayRecord,
    PrizeSpin,
)
from colour_collector.game.replay import result_of
from colour_collector.game.rules import Game, Phase


def state_after(record: PlayRecord, revealed: int, config: GameConfig | None = None) -> Game:
    """The rules state after the first ``revealed`` steps."""
    game = Game(record.grid, record.prize_grid, config or load_config())
    for step in record.steps[:revealed]:
        game.apply(step)
    return game


def board(record: PlayRecord, revealed: int, config: GameConfig | None = None) -> dict[str, Any]:
    """Everything on the player's screen after ``revealed`` steps."""
    cfg = config or load_config()
    return _board(record, revealed, state_after(record, revealed, cfg), cfg)


class Continuations:
    """Rules states left by :func:`step_and_board`, so that the next step of the same play goes
    on from there instead of replaying every step before it.

    A state is kept with the record object it was built from and the number of steps applied,
    and is given back only for that same object and number. Records are immutable, and the
    server decodes one stored text to one object (``service.record_cache``), so the state is
    exactly what a replay of the stored steps would give. A state is taken out when used: two
    callers never share one.
    """

    def __init__(self, size: int = 1024) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, not {size!r}")
        self._size = size
        self._states: OrderedDict[int, tuple[PlayRecord, int, Game]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._states)

    def take(self, record: PlayRecord, revealed: int, config: GameConfig) -> Game | None:
        """The state after ``revealed`` steps of ``record`` if one was kept; it is removed."""
        with self._lock:
            kept = self._states.pop(id(record), None)
        if kept is None:
            return None
        # The entry holds ``record`` itself, so its id cannot have been reused by another object.
        same_record, applied, game = kept
        if same_record is not record or applied != revealed or game.config is not config:
            return None
        return game

    def keep(self, record: PlayRecord, revealed: int, game: Game) -> None:
        """Keep ``game``, the state after ``revealed`` steps of ``record`` (not to be used
        again by the caller)."""
        with self._lock:
            self._states[id(record)] = (record, revealed, game)
            self._states.move_to_end(id(record))
            while len(self._states) > self._size:
                self._states.popitem(last=False)


def step_and_board(
    record: PlayRecord,
    index: int,
    config: GameConfig | None = None,
    *,
    continuations: Continuations | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(step_detail(record, index), board(record, index + 1))`` from one replay of the steps,
    or, with ``continuations``, from the state the previous step of ``record`` left there (the
    new state is left there in turn)."""
    cfg = config or load_config()
    game = None if continuations is None else continuations.take(record, index, cfg)
    if game is None:
        game = state_after(record, index, cfg)
    detail = _step_detail(record, index, game, cfg)
    game.apply(record.steps[index])
    screen = _board(record, index + 1, game, cfg)
    if continuations is not None:
        continuations.keep(record, index + 1, game)
    return detail, screen


def _board(record: PlayRecord, revealed: int, game: Game, cfg: GameConfig) -> dict[str, Any]:
    """The screen, given the rules state after the first ``revealed`` steps."""
    nxt = expected_step(record, revealed)
    upcoming = record.steps[revealed] if revealed < len(record.steps) else None
    names = cfg.item_names
    colours: tuple[int, ...] | None = None
    if isinstance(upcoming, MainSpin):
        colours = upcoming.colours
    view: dict[str, Any] = {
        "revealed": revealed,
        "phase": game.phase.value,
        "next": None if nxt is None else nxt.value,
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
        "bonus_game": None,
        "prize_game": None,
        "result": None,
    }
    if game.phase is Phase.BONUS:
        view["bonus_game"] = {
            "panel": [{"kind": p.kind.value, "value": p.value} for p in game.panel],
            "rounds": _rounds_so_far(record, revealed),
        }
    if game.phase is Phase.PRIZE or (game.phase is Phase.OVER and game.prize_game_played):
        prize_colours = upcoming.colours if isinstance(upcoming, PrizeSpin) else None
        view["prize_game"] = {
            "grid": [
                {
                    "item": prize_item_json(item),
                    "colour": None if prize_colours is None else cfg.colours[prize_colours[s]],
                }
                for s, item in enumerate(game.prize_grid)
            ],
            "pot_pence": game.pot,
            "doubled": game.doubled,
            "over": game.prize_game_played,
        }
    if game.phase is Phase.OVER:
        result = result_of(game, sum(1 for s in record.steps if isinstance(s, MainSpin)))
        view["result"] = {
            "prize_pence": result.prize,
            "tier": None if result.tier is None else result.tier.name,
            "rows": list(result.rows),
            "row_amounts_pence": list(result.row_amounts),
            "level": result.level,
            "prize_game_pence": result.prize_game.amount if result.prize_game else 0,
            "doubled": bool(result.prize_game and result.prize_game.doubled),
        }
    return view


def _rounds_so_far(record: PlayRecord, revealed: int) -> list[dict[str, Any]]:
    """The rounds of the current Bonus Game played so far (all won: a lost round ends a game)."""
    rounds: list[dict[str, Any]] = []
    for step in reversed(record.steps[:revealed]):
        if not isinstance(step, BonusRound) or not step.won:
            break
        rounds.append(_round(step))
    rounds.reverse()
    return rounds


def _round(step: BonusRound) -> dict[str, Any]:
    return {
        "prize": step.prize,
        "won": step.won,
        "pick": None if step.pick is None else step.pick.value,
        "number": step.number,
        "rows": list(step.rows),
    }


def step_detail(record: PlayRecord, index: int, config: GameConfig | None = None) -> dict[str, Any]:
    """What step ``index`` showed: the wheel and the squares collected, or the bonus round."""
    cfg = config or load_config()
    step = record.steps[index]
    if isinstance(step, BonusRound):
        return {"kind": "bonus_pick", "index": index, **_round(step)}
    return _step_detail(record, index, state_after(record, index, cfg), cfg)


def _step_detail(record: PlayRecord, index: int, before: Game, cfg: GameConfig) -> dict[str, Any]:
    """What step ``index`` showed, given the rules state before it."""
    step = record.steps[index]
    if isinstance(step, BonusRound):
        return {"kind": "bonus_pick", "index": index, **_round(step)}
    collected = [s for s, c in enumerate(step.colours) if c == step.wheel]
    kind = "spin" if isinstance(step, MainSpin) else "prize_spin"
    detail: dict[str, Any] = {
        "kind": kind,
        "index": index,
        "wheel": cfg.colours[step.wheel],
        "collected": collected,
    }
    if isinstance(step, MainSpin):
        grid = before.grid
        detail["collected_items"] = [cfg.item_names[grid[s]] for s in collected]
        detail["bonus_games_started"] = len(step.bonus_panels)
    else:
        prize_grid = before.prize_grid
        detail["collected_items"] = [prize_item_json(prize_grid[s]) for s in collected]
    return detail
