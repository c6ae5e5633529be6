"""Generated plays compared with natural plays, statistic by statistic (the naturalness battery's
tests; ``naturalness`` draws the samples).

- a ratio with a two-sample z-test whose variance allows for the dependence between the spins
  of one play (the ratio estimator's variance, summed over plays: a cluster-robust test);
- a category with a chi-square test of homogeneity (a Wald test, which for unweighted samples is
  the usual test on the merged table), categories merged until each expected count is at least
  ``MIN_EXPECTED``;
- the p-values of a whole run corrected together with Holm's step-down method (``holm``).

Reference plays may carry weights (importance sampling); the tests use the weights' own
variance. scipy and numpy are imported only when a test is computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from colour_collector.game.play_statistics import CATEGORIES, RATIOS, Measured

MIN_EXPECTED = 5
"""Smallest expected count per cell of a category test; rarer categories are merged."""
MIN_PLAYS = 20
"""Plays a statistic needs in each sample (with a positive denominator) to be tested."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """One statistic of one class compared between generated and natural plays."""

    tier_class: str
    """The class."""
    statistic: str
    """The statistic."""
    part: str
    """The part of the play it looks at."""
    generated: float
    """Its value in the generated sample (a ratio, or the share of the commonest category)."""
    natural: float
    """Its value in the natural sample."""
    error: float
    """The standard error of the difference (ratios; 0 for categories)."""
    test: str
    """``'z'`` or ``'chi-square (dof)'``."""
    statistic_value: float
    """The test statistic."""
    pvalue: float
    """Its p-value."""
    plays: tuple[int, int]
    """Plays counted: generated, natural (effective count if weighted)."""


def _ratio_test(
    gen: Sequence[tuple[float, float]], ref: Sequence[tuple[float, float, float]]
) -> tuple[float, float, float, float] | None:
    """Two-sample z-test of a ratio: (generated value, natural value, standard error, p-value),
    or None if either sample has too few plays or no variation."""
    from scipy.stats import norm  # noqa: PLC0415 - scipy only when a test is computed

    gen = [(x, n) for x, n in gen if n > 0]
    ref = [(x, n, w) for x, n, w in ref if n > 0 and w > 0]
    if len(gen) < MIN_PLAYS or len(ref) < MIN_PLAYS:
        return None
    sum_n = sum(n for _, n in gen)
    r_gen = sum(x for x, _ in gen) / sum_n
    var_gen = sum((x - r_gen * n) ** 2 for x, n in gen) / sum_n**2
    sum_wn = sum(w * n for _, n, w in ref)
    r_ref = sum(w * x for x, _, w in ref) / sum_wn
    var_ref = sum((w * (x - r_ref * n)) ** 2 for x, n, w in ref) / sum_wn**2
    error = (var_gen + var_ref) ** 0.5
    if error <= 0:
        return None
    z = (r_gen - r_ref) / error
    return r_gen, r_ref, error, float(2 * norm.sf(abs(z)))


def _category_test(
    gen: Sequence[int], ref: Sequence[tuple[int, float]], labels: int
) -> tuple[float, float, float, int, float] | None:
    """Chi-square (Wald) test of two distributions over categories, neighbours merged until each
    expected count is at least MIN_EXPECTED: (generated share, natural share of the generated
    sample's commonest category, statistic, dof, p-value), or None if there is nothing to test."""
    import numpy as np  # noqa: PLC0415 - numpy and scipy only when a test is computed
    from scipy.stats import chi2  # noqa: PLC0415

    if len(gen) < MIN_PLAYS or len(ref) < MIN_PLAYS:
        return None
    weights = np.array([w for _, w in ref], dtype=float)
    ess = weights.sum() ** 2 / (weights**2).sum()
    gen_counts = np.bincount(np.array(gen), minlength=labels).astype(float)
    ref_shares = np.bincount(np.array([c for c, _ in ref]), weights=weights, minlength=labels)
    ref_shares = ref_shares / weights.sum()
    # Merge neighbouring categories until each expected count is large enough.
    groups: list[list[int]] = []
    pending: list[int] = []
    n_gen = len(gen)
    for c in range(labels):
        pending.append(c)
        shares = (gen_counts[pending].sum() / n_gen + ref_shares[pending].sum()) / 2
        if shares * min(n_gen, ess) >= MIN_EXPECTED:
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    if len(groups) < 2:
        return None
    index = np.zeros(labels, dtype=int)
    for g, members in enumerate(groups):
        index[members] = g
    k = len(groups)
    g_cat = index[np.array(gen)]
    r_cat = index[np.array([c for c, _ in ref])]
    p_gen = np.bincount(g_cat, minlength=k) / n_gen
    p_ref = np.bincount(r_cat, weights=weights, minlength=k) / weights.sum()
    cov_gen = (np.diag(p_gen) - np.outer(p_gen, p_gen)) / n_gen
    onehot = np.eye(k)[r_cat] - p_ref
    cov_ref = (onehot * (weights[:, None] / weights.sum()) ** 2).T @ onehot
    diff = (p_gen - p_ref)[:-1]
    cov = (cov_gen + cov_ref)[:-1, :-1]
    statistic = float(diff @ np.linalg.pinv(cov) @ diff)
    dof = k - 1
    top = int(np.argmax(p_gen))
    return float(p_gen[top]), float(p_ref[top]), statistic, dof, float(chi2.sf(statistic, dof))


def compare(
    name: str, generated: Sequence[Measured], reference: Sequence[tuple[Measured, float]]
) -> list[Comparison]:
    """Every statistic of one class compared between the two samples."""
    weights = [w for _, w in reference]
    ess = int(sum(weights) ** 2 / sum(w * w for w in weights)) if weights else 0
    found: list[Comparison] = []
    for ratio in RATIOS:
        gen = [m.ratios[ratio.name] for m in generated]
        ref = [(*m.ratios[ratio.name], w) for m, w in reference]
        tested = _ratio_test(gen, ref)
        if tested is None:
            continue
        r_gen, r_ref, error, p = tested
        plays = (sum(1 for _, n in gen if n > 0), min(ess, sum(1 for _, n, _ in ref if n > 0)))
        z = (r_gen - r_ref) / error
        found.append(
            Comparison(name, ratio.name, ratio.part.value, r_gen, r_ref, error, "z", z, p, plays)
        )
    for category in CATEGORIES:
        gen_c = [m.categories[category.name] for m in generated if category.name in m.categories]
        ref_c = [
            (m.categories[category.name], w) for m, w in reference if category.name in m.categories
        ]
        tested_c = _category_test(gen_c, ref_c, len(category.labels))
        if tested_c is None:
            continue
        s_gen, s_ref, statistic, dof, p = tested_c
        found.append(
            Comparison(
                name,
                category.name,
                category.part.value,
                s_gen,
                s_ref,
                0.0,
                f"chi-square ({dof})",
                statistic,
                p,
                (len(gen_c), min(ess, len(ref_c))),
            )
        )
    return found


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control), in the input's order."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted = [0.0] * len(pvalues)
    running = 0.0
    count = len(pvalues)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (count - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
