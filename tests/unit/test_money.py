"""Amounts as the procedures print them."""

from __future__ import annotations

import pytest

from colour_collector.game.money import pounds


@pytest.mark.parametrize(
    ("pence", "shown"),
    [
        (0, "£0"),
        (5, "£0.05"),
        (250, "£2.50"),
        (500, "£5"),
        (200_000, "£2,000"),
        (100_000_000, "£1,000,000"),
        (123_456_789, "£1,234,567.89"),
        (-250, "-£2.50"),
    ],
)
def test_whole_pounds_are_bare_and_others_keep_their_pence(pence: int, shown: str) -> None:
    assert pounds(pence) == shown
