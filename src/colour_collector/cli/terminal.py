"""Playing a stored play in a terminal.

The play is generated whole before the first screen; the terminal only reveals it, one step per
key press, through ``progress.reveal``, and draws every screen from ``view.board`` (built from the
stored play through the rules). The player's ODD/EVEN picks change nothing but the reel number.

Input comes from any ``readline``-able stream, so the whole session can be driven by piped input:
Enter spins, ``o`` or ``e`` (then Enter) picks in the Bonus Game.
"""

from __future__ import annotations

import random
from typing import Any, TextIO

from colour_collector.game.config import GameConfig, load_config
from colour_collector.game.money import pounds
from colour_collector.game.progress import StepKind, expected_step, reveal
from colour_collector.game.record import Parity, PlayRecord
from colour_collector.server import presenter

ITEM_CODES = {
    "circle": "Cir",
    "triangle": "Tri",
    "square": "Squ",
    "diamond": "Dia",
    "pentagon": "Pen",
    "hexagon": "Hex",
    "star": "Sta",
    "bonus": "BON",
    "prize_game": "PGS",
}
"""Three-letter code of each Main Game grid item."""
PRIZE_SYMBOLS = {"win": "WIN", "win_x2": "WINx2"}
"""How the Prize Game's WIN symbols are shown."""
PICKS = {"o": Parity.ODD, "odd": Parity.ODD, "e": Parity.EVEN, "even": Parity.EVEN}
"""What a player may type in the Bonus Game."""


def item_text(item: str | int) -> str:
    """A grid item as shown: a Main Game item's code, a Prize Game amount, WIN or WIN x2."""
    if isinstance(item, int):
        return pounds(item)
    return PRIZE_SYMBOLS.get(item) or ITEM_CODES.get(item, item)


def _board(record: PlayRecord, revealed: int, config: GameConfig) -> dict[str, Any]:
    """The screen after ``revealed`` steps, as the JSON the browser client gets."""
    return presenter.board(record, revealed, config).model_dump(mode="json")


def _step(record: PlayRecord, index: int, config: GameConfig) -> dict[str, Any]:
    """What step ``index`` showed, as the JSON the browser client gets."""
    shown, _ = presenter.step_and_board(record, index, config)
    return shown.model_dump(mode="json")


class InputEndedError(Exception):
    """The input stream ended before the play did."""


class Terminal:
    """One play shown in a terminal; ``run`` reveals it to the end and returns the final record."""

    def __init__(
        self,
        record: PlayRecord,
        rng: random.Random,
        stdin: TextIO,
        stdout: TextIO,
        config: GameConfig | None = None,
    ) -> None:
        self.record = record
        """The stored play; bonus rounds gain the player's pick and reel number as revealed."""
        self.rng = rng
        """Draws the reel numbers (among those the stored round allows)."""
        self.stdin = stdin
        self.stdout = stdout
        self.config = config or load_config()
        self.letters = dict(zip(self.config.colours, self.config.colour_letters, strict=True))

    def say(self, text: str = "") -> None:
        """Write a line."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self, prompt: str) -> str:
        """Prompt and read one line; ``InputEndedError`` at the end of the input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise InputEndedError
        if not self.stdin.isatty():
            self.stdout.write("\n")  # piped input is not echoed: end the prompt's line
        return line.strip().lower()

    # -- the session -----------------------------------------------------------------------------

    def run(self) -> PlayRecord:
        """Reveal every step, showing each screen; return the record with the picks."""
        self.say("COLOUR COLLECTOR - WIN UP TO £1 MILLION")
        self.say("Collect 6 bonus symbols (BON) for the BONUS GAME; collect 6 Prize Game symbols")
        self.say("(PGS) for the PRIZE GAME, a guaranteed win.")
        revealed = 0
        while (kind := expected_step(self.record, revealed)) is not None:
            view = _board(self.record, revealed, self.config)
            pick: Parity | None = None
            if kind is StepKind.SPIN:
                self.show_main(view)
                self.ask("Press Enter to SPIN ")
            elif kind is StepKind.BONUS_PICK:
                self.show_bonus(view)
                pick = self.ask_pick()
            else:
                self.show_prize_game(view)
                self.ask("Press Enter to SPIN the Prize Game ")
            self.record = reveal(self.record, revealed, kind, pick, self.rng, config=self.config)
            self.show_step(revealed)
            revealed += 1
        self.show_end(_board(self.record, revealed, self.config))
        return self.record

    def ask_pick(self) -> Parity:
        """Ask for ODD or EVEN until the answer is one of them."""
        while True:
            answer = self.ask("ODD or EVEN? Type o or e and press Enter: ")
            if answer in PICKS:
                return PICKS[answer]
            self.say(f"Please type o (ODD) or e (EVEN), not {answer!r}.")

    # -- screens ---------------------------------------------------------------------------------

    def show_table(self, view: dict[str, Any]) -> None:
        """The Prize Table: each row's boxes (# filled, . empty) and amount at the current level."""
        self.say(f"PRIZE TABLE (level {view['level']})")
        for row in view["prize_table"]:
            boxes = "#" * row["filled"] + "." * (row["boxes"] - row["filled"])
            won = "  WON" if row["complete"] else ""
            self.say(
                f"  {row['shape']:<9} [{boxes:<10}] {row['filled']:>2}/{row['boxes']:<2} "
                f"{pounds(row['amount_pence']):>11}{won}"
            )

    def show_main(self, view: dict[str, Any]) -> None:
        """The Main Game screen before a spin."""
        cfg = self.config
        self.say()
        self.say("=" * 60)
        self.show_table(view)
        unlocked = " UNLOCKED" if view["prize_game_unlocked"] else ""
        self.say(
            f"BONUS GAME box {view['bonus_box']}/{cfg.bonus_box}    "
            f"PRIZE GAME box {view['prize_game_box']}/{cfg.prize_game_box}{unlocked}"
        )
        self.say("GRID (item:colour letter)")
        columns = cfg.grid_columns
        cells = [self.cell(ITEM_CODES.get(s["item"], s["item"]), s["colour"]) for s in view["grid"]]
        for start in range(0, len(cells), columns):
            self.say("  " + "  ".join(cells[start : start + columns]))
        legend = ", ".join(f"{letter}={name}" for name, letter in self.letters.items())
        self.say(f"  colours: {legend}")
        self.say(f"SPINS LEFT: {view['spins_left']}")

    def cell(self, item: str, colour: str | None) -> str:
        """One grid square: the item and its colour's letter."""
        return f"{item}:{'?' if colour is None else self.letters[colour]}"

    def show_bonus(self, view: dict[str, Any]) -> None:
        """The Bonus Game panel."""
        labels = self.config.bonus_prizes
        self.say()
        self.say("*** BONUS GAME: select ODD or EVEN (reel 1-12) ***")
        game = view["bonus_game"]
        for index, prize in enumerate(game["panel"]):
            spec = labels[prize["kind"]]
            value = f" {prize['value']}" if prize["value"] else ""
            self.say(f"  [{index + 1}] {spec.label}{value}")
        won = [game["panel"][r["prize"]] for r in game["rounds"]]
        if won:
            names = ", ".join(labels[p["kind"]].label for p in won)
            self.say(f"  Won so far: {names}")

    def show_prize_game(self, view: dict[str, Any]) -> None:
        """The Prize Game grid and pot."""
        cfg = self.config
        game = view["prize_game"]
        self.say()
        self.say("$$$ PRIZE GAME: keep spinning until you collect WIN or WIN x2 $$$")
        cells = []
        for square in game["grid"]:
            cells.append(self.cell(item_text(square["item"]), square["colour"]).rjust(10))
        columns = cfg.prize_grid_columns
        for start in range(0, len(cells), columns):
            self.say("  " + " ".join(cells[start : start + columns]))
        self.say(f"PRIZE POT: {pounds(game['pot_pence'])}")

    def show_step(self, index: int) -> None:
        """What the step just revealed showed."""
        detail = _step(self.record, index, self.config)
        if detail["kind"] == "bonus_pick":
            verdict = "CORRECT" if detail["won"] else "WRONG: back to the Main Game"
            spec = self.config.bonus_prizes
            panel = _board(self.record, index, self.config)["bonus_game"]["panel"]
            prize = panel[detail["prize"]]
            label = spec[prize["kind"]].label + (f" {prize['value']}" if prize["value"] else "")
            self.say(f"You picked {detail['pick'].upper()}; the reel shows {detail['number']}.")
            self.say(f"{verdict}" + (f" - you win {label}!" if detail["won"] else ""))
        else:
            wheel = detail["wheel"]
            collected = detail["collected_items"]
            what = ", ".join(item_text(item) for item in collected) or "nothing"
            self.say(
                f"The wheel stops on {wheel.upper()} ({self.letters[wheel]}): collected {what}."
            )
            if detail.get("bonus_games_started"):
                self.say("BONUS GAME UNLOCKED!")
        # Said as it happens: unlocked on the last spin or by the Bonus Game after it, the Prize
        # Game starts at once, and no Main Game screen shows the box unlocked in between.
        before = _board(self.record, index, self.config)["prize_game_unlocked"]
        if not before and _board(self.record, index + 1, self.config)["prize_game_unlocked"]:
            self.say("PRIZE GAME UNLOCKED!")

    def show_end(self, view: dict[str, Any]) -> None:
        """The end screen."""
        self.say()
        self.say("=" * 60)
        self.show_table(view)
        if view["prize_game"] is not None:
            game = view["prize_game"]
            doubled = " doubled by WIN x2" if game["doubled"] else ""
            self.say(f"PRIZE GAME pot {pounds(game['pot_pence'])}{doubled}")
        result = view["result"]
        if result["tier"] is None:
            self.say("GAME OVER - no win this time.")
        else:
            self.say(f"YOU WIN {pounds(result['prize_pence'])} ({result['tier']})")
