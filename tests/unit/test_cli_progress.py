"""Progress bars: Rich's bar, count, rate and time left on a terminal; nothing elsewhere."""

from __future__ import annotations

import io

from rich.console import Console

from colour_collector.cli.progress import progress_bar


def test_a_terminal_gets_a_bar_with_the_count_the_rate_and_the_time_left() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    with progress_bar("replaying", 1_000, console=console) as advance:
        for done in range(0, 1_001, 250):
            advance(done)
    shown = out.getvalue()
    assert "replaying" in shown
    assert "1000/1000" in shown
    assert "ETA" in shown
    assert "plays/s" in shown


def test_a_pipe_gets_nothing() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False)
    with progress_bar("replaying", 10, console=console) as advance:
        advance(5)
    assert out.getvalue() == ""
