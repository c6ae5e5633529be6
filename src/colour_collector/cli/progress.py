"""Progress bars for long commands: Rich's, on the standard error when it is a terminal.

``progress_bar(description, total)`` is a context manager that yields a callback taking the
number of items done so far. On a terminal it draws a bar with the count, the rate, the time
spent and an estimate of the time left; anywhere else (a pipe, a file, a test) the callback does
nothing, so the command's output stays the same whoever runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

Advance = Callable[[int], None]
"""Called with the number of items done so far."""


class RateColumn(ProgressColumn):
    """Items a second, e.g. ``5,412 plays/s``."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit
        """What is counted."""

    def render(self, task: Task) -> Text:
        """The rate, once there is one."""
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} {self.unit}/s", style="cyan")


@contextmanager
def progress_bar(
    description: str, total: int, *, unit: str = "plays", console: Console | None = None
) -> Iterator[Advance]:
    """A bar for ``total`` items on the standard error if it is a terminal; else nothing."""
    shown = console or Console(stderr=True)
    if not shown.is_terminal:
        yield lambda done: None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(unit),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=shown) as progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.update(task, completed=done)
