"""The game core's errors: one root, input errors are also ``ValueError``."""

from __future__ import annotations


class GameError(Exception):
    """Root of every error the game core raises."""


class ConfigError(GameError, ValueError):
    """The game configuration file is malformed: the message names the key and the value."""


class RecordFormatError(GameError, ValueError):
    """A play record could not be read: the message names the field and the value."""


class RuleError(GameError, ValueError):
    """A recorded step breaks a rule of the game."""

    def __init__(self, step: int, rule: str, detail: str) -> None:
        self.step = step
        """Index of the offending step in the play (0-based); -1 for the record as a whole."""
        self.rule = rule
        """Stable identifier of the rule broken, e.g. ``refill-count``."""
        self.detail = detail
        """Human-readable explanation quoting the bad values."""
        where = "play record" if step < 0 else f"step {step}"
        super().__init__(f"{where}: {rule}: {detail}")
