"""The report's payout band: the 2.5% and 97.5% quantiles of the payout of ``n`` plays dealt from
the pool, simulated. A lab found the band of the normal approximation an order of magnitude too
wide for the published pool (25% to 122% at 100,000 plays), and wrong in where it lay: most deals
of 100,000 plays hold no top prize, so 95% of them pay 69.6% to 71.4%, below the pool's 73.50%."""

from __future__ import annotations

import importlib
import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
from scipy import stats

from colour_collector.game.pool import STAKE_PENCE, load_pool
from colour_collector.game.pool_parameters import PoolParameters
from colour_collector.game.prize_table import load_tiers
from pool_support import parameters

# ``colour_collector.report.figures`` is the module; the package exports a function by that name.
report_figures = importlib.import_module("colour_collector.report.figures")


def published() -> PoolParameters:
    pool = load_pool()
    counts = {t.name: c for t, c in zip(load_tiers(), pool.counts, strict=True)}
    return parameters(pool.size, counts)


def test_the_published_pools_band_is_where_deals_of_it_pay() -> None:
    plays, low, high = report_figures._band(published())
    at = {n: (lo, hi) for n, lo, hi in zip(plays, low, high, strict=True)}
    n = min(plays, key=lambda k: abs(k - 100_000))
    lo, hi = at[n]
    # Most deals of about 100,000 plays hold no top prize: the band lies below the payout.
    assert 0.69 < lo < 0.70 and 0.71 < hi < 0.72, (n, lo, hi)
    # Independent deals of that many plays fall inside it 95% of the time (binomial test).
    pool = published()
    counts = np.array(pool.start, dtype=np.int64)
    prizes = np.array([t.prize_pence for t in load_tiers()] + [0], dtype=np.float64)
    deals = np.random.default_rng(7).multivariate_hypergeometric(counts, n, size=2_000)
    payouts = deals @ prizes / (n * STAKE_PENCE)
    inside = int(np.count_nonzero((payouts >= lo) & (payouts <= hi)))
    assert stats.binomtest(inside, len(payouts), 0.95).pvalue > 0.001, inside
    # All the pool pays its payout exactly: the band closes on it.
    assert plays[-1] == pool.size
    assert low[-1] == high[-1] == float(Fraction(int(counts @ prizes), pool.size * STAKE_PENCE))


def test_a_small_pools_band_is_the_exact_quantiles_of_its_deals() -> None:
    # Eight plays, three of them winning: every deal of three plays enumerated.
    pool = parameters(8, {"£5": 2, "£10 (£10 Prize Game)": 1})
    plays, low, high = report_figures._band(pool)
    prizes = [500, 500, 1000, 0, 0, 0, 0, 0]
    for n, lo, hi in zip(plays, low, high, strict=True):
        paid = Counter(sum(deal) for deal in itertools.combinations(prizes, n))
        total = sum(paid.values())
        cumulative, quantiles = 0, {}
        for amount in sorted(paid):
            cumulative += paid[amount]
            for q in (0.025, 0.975):
                if q not in quantiles and cumulative / total >= q:
                    quantiles[q] = amount / (n * STAKE_PENCE)
        assert quantiles[0.025] == lo and quantiles[0.975] == hi, (n, lo, hi, quantiles)
