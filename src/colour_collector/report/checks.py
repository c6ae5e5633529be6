"""What the report checks of the pool itself, and what it leaves to ``pool verify``.

A lab asked that the report carry ``pool verify``'s result. ``pool verify`` needs nothing the
report lacks (the pool file, with its secret), but its main check is not cheap: it regenerates
every play from the secret and replays it through the rules, about 52 minutes for the published
pool on two cores (docs/pools.md, "Performance"), where the report deals the order in about 35
seconds and regenerates only its naturalness tables' plays. So the report runs the checks that
cost nothing beside the deal it makes anyway, each with what it compared and whether it passed,
and names the checks it leaves out and the command that runs them. It never calls the pool
verified: that is ``pool verify``'s verdict.

``pool report`` refuses an altered pool file and a pool of another version of the game before
it writes anything, so the first two checks pass in every report the command writes; they are
worked out again here so that the page states what was compared, not what was assumed. The
report does not check that dealing every position gives each tier its count: the deal draws
from those very counts without replacement, so it cannot differ (``pool verify`` replays every
play and counts the outcomes the plays show, which can).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, unique

from colour_collector.game.pool import load_pool
from colour_collector.game.pool_deal import commitment
from colour_collector.game.pool_file import PoolFile
from colour_collector.game.versions import current_versions


@unique
class Outcome(StrEnum):
    """How a check came out."""

    PASSED = "passed"
    """What was compared agrees."""
    FAILED = "failed"
    """What was compared differs."""


@dataclass(frozen=True, slots=True)
class Check:
    """One check the report ran on the pool."""

    name: str
    """What is checked."""
    compared: str
    """What was compared with what, and what was found."""
    outcome: Outcome
    """How it came out."""


NOT_INCLUDED = (
    (
        "Every play regenerated from the secret and replayed through the game's rules, each to"
        " the outcome dealt to its position, and the replayed plays' tier counts against the"
        " prize structure, with the SHA-256 of all the plays",
        "colour-collector pool verify POOL --workers N",
    ),
    (
        "The pool file against the commitment published before the sale (the commitment the"
        " report shows at its top is the file's own)",
        "colour-collector pool verify POOL --commitment C",
    ),
)
"""The checks of ``pool verify`` the report does not run: what is checked, and the command that
checks it."""


def pool_checks(pool: PoolFile) -> list[Check]:
    """The report's checks of ``pool``."""
    return [_commitment(pool), _versions(pool), _structure(pool)]


def _commitment(pool: PoolFile) -> Check:
    worked_out = commitment(pool.secret, pool.parameters)
    same = worked_out == pool.commitment
    return Check(
        "Commitment",
        f"SHA-256 of the file's parameters and secret, {worked_out}, against the file's"
        f" commitment, {pool.commitment}: "
        + ("the same" if same else "they differ, so the file was altered"),
        Outcome.PASSED if same else Outcome.FAILED,
    )


def _versions(pool: PoolFile) -> Check:
    recorded = pool.parameters.versions
    running = current_versions()
    differences = recorded.differences(running)
    found = (
        "the same"
        if not differences
        else "they differ: " + "; ".join(differences) + " (pool's first)"
    )
    return Check(
        "Game and generator",
        f"The pool's game {recorded.game_sha256[:16]}..., generator sources"
        f" {recorded.generator_sources_sha256[:16]}... and generator sample"
        f" {recorded.generator_sample_sha256[:16]}... against this program's"
        f" ({running.game_sha256[:16]}..., {running.generator_sources_sha256[:16]}...,"
        f" {running.generator_sample_sha256[:16]}...): {found}",
        Outcome.FAILED if differences else Outcome.PASSED,
    )


def _structure(pool: PoolFile) -> Check:
    parameters = pool.parameters
    published = load_pool()
    tiers = len(parameters.counts)
    if parameters.is_published:
        found = "the same"
    else:
        differ = sum(a != b for a, b in zip(parameters.counts, published.counts, strict=True))
        found = (
            f"{differ} of the {tiers} counts differ"
            + (
                f", and the size is {parameters.size:,}"
                if parameters.size != published.size
                else ""
            )
            + ": a pool for tests, which a production server refuses to sell"
        )
    return Check(
        "Published prize structure",
        f"The pool's size and {tiers} tier counts against the published structure's"
        f" ({published.size:,} plays, game data pool_counts.json): {found}",
        Outcome.PASSED if parameters.is_published else Outcome.FAILED,
    )
