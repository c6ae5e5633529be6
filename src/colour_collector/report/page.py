"""The report's HTML page: one self-contained file next to its plots and the PAR sheet."""

from __future__ import annotations

import html
from fractions import Fraction

from colour_collector.game import sample_comparison
from colour_collector.report import order_tests
from colour_collector.report.checks import NOT_INCLUDED, Outcome
from colour_collector.report.figures import BAND_DEALS, BAND_SEED, Figures
from colour_collector.report.par_sheet import (
    TIER_HEADER,
    columns_note,
    odds_text,
    share_note,
    tier_rows,
    total_row,
    two_dp,
)
from colour_collector.report.plots import PLOTS

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1b1b1b; margin: 0; background: #f6f4ef; }
header { background: #14213d; color: #fff; padding: 1.2rem 2rem; }
header h1 { margin: 0 0 .3rem; font-size: 1.6rem; }
header p { margin: .15rem 0; color: #e8e8e8; }
header p.confidential { color: #ffd166; }
main { padding: 1rem 2rem 3rem; max-width: 1200px; }
h2 { margin-top: 2rem; border-bottom: 2px solid #b8860b; padding-bottom: .2rem; }
code { font: 13px ui-monospace, monospace; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; margin: .5rem 0; }
th, td { border: 1px solid #c9c9c9; padding: .25rem .55rem; text-align: right; }
th { background: #ece7da; }
td.text, th.text { text-align: left; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1rem; }
figure { background: #fff; margin: 0; padding: .6rem; border: 1px solid #d9d9d9; }
figure img { width: 100%; height: auto; }
figcaption { font-size: .9rem; color: #444; }
td.method { font-size: .85rem; min-width: 24rem; }
.ok { color: #1e7032; font-weight: 600; }
.bad { color: #a4161a; font-weight: 600; }
tr.total th, tr.total td { font-weight: 600; border-top: 2px solid #1b1b1b; }
"""


def _e(value: object) -> str:
    return html.escape(str(value))


def _pounds(pence: int) -> str:
    return f"£{pence // 100:,}.{pence % 100:02d}"


def _summary(data: Figures) -> str:
    rows = [
        ("Plays in the pool", f"{data.size:,}"),
        ("Winners", f"{data.winners:,}"),
        ("Plays that win nothing", f"{data.no_win:,}"),
        ("Overall odds", odds_text(data.overall_odds)),
        ("Hit rate", f"{two_dp(data.hit_rate * 100)}%"),
        ("Prize money", _pounds(data.total_prize_pence)),
        ("Payout (prize money / stakes)", f"{two_dp(data.payout * 100)}%"),
        ("Standard deviation of a play's return", f"{data.return_sd:.2f} stakes"),
    ]
    body = "".join(
        f'<tr><th scope="row" class="text">{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in rows
    )
    return f"<table><caption>The pool's prize structure, exactly</caption>{body}</table>"


def _checks(data: Figures) -> str:
    """The report's own checks of the pool, each with what it compared, then what it leaves to
    ``pool verify``: the page never calls the pool verified."""
    failed = [c.name for c in data.checks if c.outcome is Outcome.FAILED]
    verdict = (
        f'<p class="bad">{len(failed)} of the report\'s {len(data.checks)} checks failed:'
        f" {_e(', '.join(failed))}.</p>"
        if failed
        else f'<p class="ok">The report\'s {len(data.checks)} checks passed.</p>'
    )
    head = "".join(
        f'<th scope="col" class="text">{h}</th>' for h in ("Check", "What was compared", "Outcome")
    )
    style = {Outcome.PASSED: "ok", Outcome.FAILED: "bad"}
    body = "".join(
        "<tr>"
        f'<th scope="row" class="text">{_e(c.name)}</th><td class="text">{_e(c.compared)}</td>'
        f'<td class="text {style[c.outcome]}">{_e(c.outcome)}</td>'
        "</tr>"
        for c in data.checks
    )
    left = "".join(
        f"<li>{_e(what)}: <code>{_e(command)}</code></li>" for what, command in NOT_INCLUDED
    )
    return (
        f"{verdict}<table><caption>The report's checks of the pool file</caption>"
        f"<tr>{head}</tr>{body}</table>"
        "<p>Not included: the report runs the checks above, which cost nothing beside its deal of"
        " the order. It does not run these checks of <code>pool verify</code>, which certify the"
        " pool (the first regenerates and replays every play: 52 minutes for the published pool"
        f" on two cores):</p><ul>{left}</ul>"
    )


def _tests(data: Figures) -> str:
    head = "".join(
        f'<th scope="col" class="{c}">{_e(h)}</th>'
        for h, c in (
            ("Test", "text"),
            ("Statistic", ""),
            ("Detail", "text"),
            ("p-value", ""),
            ("Reading", "text"),
            ("How it is worked out", "text"),
        )
    )
    body = "".join(
        "<tr>"
        f'<td class="text">{_e(t.name)}</td>'
        f"<td>{'–' if t.pvalue is None else f'{t.statistic:.4g}'}</td>"
        f'<td class="text">{_e(t.detail)}</td>'
        f"<td>{'–' if t.pvalue is None else f'{t.pvalue:.3g}'}</td>"
        f'<td class="text">{_e(t.reading)}</td>'
        f'<td class="text method">{_e(t.method)}</td>'
        "</tr>"
        for t in data.tests
    )
    caption = (
        "Tests of the pool's order: each reads as failed at a p-value of"
        f" {order_tests.LEVEL} or less, and otherwise as no evidence against a uniform shuffle"
    )
    return f"<table><caption>{caption}</caption><tr>{head}</tr>{body}</table>"


def _naturalness(data: Figures) -> str:
    if not data.naturalness:
        return "<p>Too few plays of these outcomes among the positions covered.</p>"
    head = "".join(
        f'<th scope="col">{_e(h)}</th>'
        for h in (
            "Outcome",
            "Statistic",
            "Pool's plays",
            "Natural plays",
            "Test",
            "p-value",
            "Holm-adjusted",
        )
    )
    adjusted = sample_comparison.holm([c.pvalue for _, c in data.naturalness])
    body = "".join(
        "<tr>"
        f'<td class="text">{_e(outcome)}</td><td class="text">{_e(c.statistic)}</td>'
        f"<td>{c.generated:.3f}</td><td>{c.natural:.3f}</td>"
        f'<td class="text">{_e(c.test)} = {c.statistic_value:.2f}</td>'
        f"<td>{c.pvalue:.3g}</td><td>{holm:.3g}</td>"
        "</tr>"
        for (outcome, c), holm in zip(data.naturalness, adjusted, strict=True)
    )
    caption = (
        f"The pool's first plays (up to {data.naturalness_plays:,}) of each outcome against"
        " natural plays of the same outcome; an outcome with fewer than 50 plays in the positions"
        f" covered is left out. Of {len(adjusted)} tests, a few p-values under 0.05 are expected"
        " by chance: the Holm-adjusted p-values take the tests together (the chance that any of"
        " them is so low), and one under 0.01 says the pool's plays differ from natural play"
    )
    return f"<table><caption>{_e(caption)}</caption><tr>{head}</tr>{body}</table>"


def _par(data: Figures) -> str:
    head = "".join(f'<th scope="col">{_e(h.replace("_", " "))}</th>' for h in TIER_HEADER)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="text">{_e(v)}</td>' if i in (1, 3) else f"<td>{_e(v)}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in tier_rows(data)
    )
    total = "".join(
        f'<th scope="row" class="text">{_e(v)}</th>' if i == 1 else f"<td>{_e(v)}</td>"
        for i, v in enumerate(total_row(data))
    )
    columns = columns_note(data)
    caption = f"PAR sheet: every tier. {share_note(data)}" + (f" {columns}" if columns else "")
    return (
        f"<table><caption>{_e(caption)}</caption><tr>{head}</tr>{body}"
        f'<tr class="total">{total}</tr></table>'
    )


def _plot_notes(data: Figures) -> dict[str, str]:
    """How the plots that are worked out in steps were: the numbers of plays the band is
    simulated at, and the segments of the order (plot file name -> sentence)."""
    plays = data.band_plays
    band = (
        f"At each of {len(plays)} numbers of plays, from {plays[0]:,} to the pool's {data.size:,}"
        " (spaced evenly on the log scale, whole plays), the band runs from the 2.5% to the"
        f" 97.5% quantile of the payouts of {BAND_DEALS:,} deals of that many plays drawn without"
        f" replacement from the pool's counts (seed {BAND_SEED}); it closes at the pool's size,"
        " where every deal is the whole pool."
    )
    segments = len(data.segment_winners)
    return {
        "band.png": band,
        "running.png": "The 95% band drawn with it is the one of band.png, up to the last"
        " position covered; it is drawn only when the positions covered start at the first.",
        "segments.png": f"{segments} segment{'' if segments == 1 else 's'} of the positions"
        " covered; the line is the"
        f" {data.segment_expected:,.1f} winners expected in each on average.",
    }


def _origin(data: Figures) -> str:
    if data.from_server:
        return (
            "read from the server's description of the closed pool, with its published secret"
            " (its build time is not published)"
        )
    return f"built {data.pool.created_at:%d %B %Y %H:%M} UTC"


def page(data: Figures) -> str:
    """The report's HTML."""
    parameters = data.parameters
    versions = parameters.versions
    covered = (
        "the whole pool"
        if data.whole
        else f"positions {data.start:,} to {data.stop - 1:,} of {data.size:,}"
    )
    structure = (
        "the published prize structure"
        if parameters.is_published
        else "another prize structure (not the published one)"
    )
    notes = _plot_notes(data)
    figures = "".join(
        f'<figure><img src="{name}" alt="{_e(alt)}">'
        f"<figcaption>{_e(' '.join((alt, notes.get(name, ''))).strip())}</figcaption></figure>"
        for name, _, alt in PLOTS
    )
    payout = Fraction(data.total_prize_pence, data.size * 500)
    return f"""<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Colour Collector: certification report of pool {_e(data.pool.commitment[:16])}</title>
<style>{STYLE}</style>
</head>
<body>
<header>
<h1>Colour Collector: pool certification report</h1>
<p class="confidential"><strong>Confidential until the pool closes</strong>: its plots of the
order show where the pool's prizes lie. Keep it as the pool file is kept; publish it after the
close.</p>
<p>Commitment <code>{_e(data.pool.commitment)}</code></p>
<p>{data.size:,} plays, {_e(structure)}; payout {two_dp(payout * 100)}%, odds
{odds_text(data.overall_odds)}. Order statistics over {_e(covered)}.</p>
<p>Game <code>{_e(versions.game_sha256[:16])}</code>, generator
<code>{_e(versions.generator_sources_sha256[:16])}</code> (colour-collector
{_e(versions.package)}); {_e(_origin(data))}.</p>
</header>
<main>
<h2>Checks</h2>
{_checks(data)}
<h2>The prize structure</h2>
{_summary(data)}
<h2>Plots</h2>
<div class="figures">{figures}</div>
<h2>The order</h2>
{_tests(data)}
<h2>Naturalness of the plays</h2>
{_naturalness(data)}
<h2>PAR sheet</h2>
<p>Also as a spreadsheet: <a href="par.xlsx">par.xlsx</a>, <a href="par.csv">par.csv</a>,
<a href="summary.csv">summary.csv</a>.</p>
{_par(data)}
</main>
</body>
</html>
"""
