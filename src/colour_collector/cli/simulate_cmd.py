"""``colour-collector simulate``: draw, generate and replay many plays and compare with the pool."""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import typer

from colour_collector.cli.base import app
from colour_collector.cli.progress import progress_bar
from colour_collector.game import simulation
from colour_collector.generator_cache import warm


def _text(data: dict[str, Any]) -> str:
    """The readable report."""
    tiers: list[dict[str, Any]] = data["tiers"]
    width = max(len(t["name"]) for t in tiers)
    lines = [f"{'Outcome'.ljust(width)}  {'Expected':>12}  {'Observed':>9}"]
    lines.append("-" * len(lines[0]))
    no_win = data["no_win"]
    lines.append(f"{'no win'.ljust(width)}  {no_win['expected']:>12,.1f}  {no_win['observed']:>9,}")
    lines.extend(
        f"{t['name'].ljust(width)}  {t['expected']:>12,.1f}  {t['observed']:>9,}" for t in tiers
    )
    lines.append("-" * len(lines[0]))
    pvalue = data["chi2_pvalue"]
    if pvalue is not None:
        shown_pvalue = f"{pvalue:.4f}"
    elif data["chi2_dof"] < 1:
        shown_pvalue = "none (too few plays for two bins: run more plays)"
    else:
        shown_pvalue = "unavailable (scipy is not installed)"
    se = data["payout_standard_error_percent"]
    odds = data["odds_1_in"]
    lines += [
        f"Plays:          {data['plays']:,} (seed {data['seed']}, {data['workers']} worker(s))",
        f"Invalid plays:  {data['invalid']:,}",
        f"Payout:         {data['payout_percent']:.2f}%"
        + (f" (standard error {se:.2f} points, from the pool)" if se is not None else "")
        + f", expected {data['expected_payout_percent']:.2f}%",
        f"Hit rate:       {data['hit_rate']:.4f}"
        + (f" (1 in {odds:.2f})" if odds else "")
        + f", expected {data['expected_hit_rate']:.4f} (1 in 2.77)",
        f"Chi-square:     {data['chi2']:.2f} on {data['chi2_dof']} degrees of freedom "
        f"({data['chi2_bins']} bins, expected >= {simulation.MIN_EXPECTED} each), p-value "
        + shown_pvalue,
    ]
    if data["seconds"] is not None:
        lines.append(f"Time:           {data['seconds']:.1f} s")
    lines.extend(f"INVALID: {example}" for example in data["invalid_examples"])
    return "\n".join(lines)


@app.command("simulate")
def simulate(
    plays: Annotated[
        int,
        typer.Option(
            "--plays",
            min=1,
            max=simulation.MAX_PLAYS,
            help="Plays to draw, generate and replay.",
        ),
    ] = 10_000,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", min=0, help="Seed (an integer >= 0); the same seed gives the same report."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=1, max=256, help="Worker processes (the results do not depend on it)."
        ),
    ] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the report.")
    ] = False,
) -> None:
    """Draw PLAYS outcomes from the pool, build and replay each, compare with the expected counts.

    Exits 1 if any play is invalid (could not be built, broke a rule, or replayed to another tier).
    """
    used_seed = simulation.secure_seed() if seed is None else seed
    started = time.perf_counter()
    with progress_bar("simulate", plays) as advance:
        warm()
        tally = simulation.run(plays, used_seed, workers, advance, start=warm)
    data = simulation.report(tally, used_seed, workers, time.perf_counter() - started)
    typer.echo(json.dumps(data, ensure_ascii=False) if as_json else _text(data))
    if tally.invalid:
        raise typer.Exit(1)
