"""Hypothesis strategies shared by the test suite."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from colour_collector.game.generator import generate
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.record import Parity, PlayRecord

tiers: st.SearchStrategy[Tier] = st.sampled_from(load_tiers())
"""Any of the 99 published prize tiers."""

outcomes: st.SearchStrategy[Tier | None] = st.none() | tiers
"""An outcome: a tier, or None for no win."""

seeds: st.SearchStrategy[int] = st.integers(min_value=0, max_value=2**64 - 1)
"""A seed for ``random.Random``."""

picks: st.SearchStrategy[Parity] = st.sampled_from(Parity)
"""A Bonus Game pick."""


@st.composite
def records(draw: st.DrawFn, outcome: st.SearchStrategy[Tier | None] = outcomes) -> PlayRecord:
    """A generated (unrevealed) play record for a drawn outcome and seed."""
    return generate(draw(outcome), random.Random(draw(seeds)))
