"""The report's plots: matplotlib figures rendered to PNG by the Agg canvas.

Figures are made with ``matplotlib.figure.Figure`` directly, not through ``pyplot``: no global
state and no display, whatever backend the machine has.
"""

from __future__ import annotations

from collections import defaultdict
from functools import partial
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from colour_collector.report.figures import Figures

WIDTH, HEIGHT = 8.0, 4.2
"""Size of a plot, inches."""
DPI = 110
"""Resolution of the PNG files."""
GOLD, BLUE, GREY = "#b8860b", "#1f5fa8", "#777777"


def _save(figure: Figure, path: Path) -> None:
    FigureCanvasAgg(figure)  # the figure draws on an Agg canvas, whatever the default backend
    figure.tight_layout()
    figure.savefig(path, dpi=DPI, format="png")


def _thousands(value: float, _: object) -> str:
    return f"{value:,.0f}"


def _minor_label(axes: Axes, value: float, _: object) -> str:
    """A log axis's ticks between the powers of ten, labelled only when it spans under two
    decades (so that one with no power of ten inside still has numbers); never in the
    default's ``6×10^0``."""
    low, high = axes.get_ylim()
    return _thousands(value, None) if high < 100 * max(low, 1e-9) else ""


def prize_distribution(data: Figures, path: Path) -> None:
    """The chance of each prize amount (tiers of the same amount added), log-log."""
    by_amount: dict[int, int] = defaultdict(int)
    for row in data.rows:
        by_amount[row.tier.prize_pence] += row.count
    amounts = sorted(a for a, c in by_amount.items() if c)
    figure = Figure(figsize=(WIDTH, HEIGHT))
    axes = figure.add_subplot()
    axes.bar(
        range(len(amounts)),
        [by_amount[a] / data.size for a in amounts],
        color=GOLD,
    )
    axes.set_yscale("log")
    axes.set_xticks(range(len(amounts)))
    axes.set_xticklabels([f"£{a // 100:,}" for a in amounts], rotation=90, fontsize=7)
    axes.set_xlabel("prize amount")
    axes.set_ylabel("chance a play wins it")
    axes.set_title(f"Prizes: {data.winners:,} winners in {data.size:,} plays")
    _save(figure, path)


def tier_counts(data: Figures, path: Path) -> None:
    """Each tier's count in the pool against the table, and what the deal gave the positions."""
    figure = Figure(figsize=(WIDTH, HEIGHT))
    axes = figure.add_subplot()
    indices = range(len(data.rows))
    published = data.table_sized
    table = [r.table_count if r.table_count is not None else r.count for r in data.rows]
    # A pool of another size has no published counts to stand against: its own are the bars.
    label = "published table" if published else "this pool's own structure (not published)"
    axes.bar(indices, table, color="#dddddd", label=label, width=0.9)
    axes.plot(indices, [r.count for r in data.rows], "o", color=BLUE, ms=3, label="this pool")
    if not data.whole:
        share = (data.stop - data.start) / data.size
        axes.plot(
            indices,
            [r.covered / share for r in data.rows],
            "x",
            color=GOLD,
            ms=4,
            label="dealt to the positions, scaled",
        )
    axes.set_yscale("log")
    axes.set_xlabel("tier (table order)")
    axes.set_ylabel("plays")
    axes.yaxis.set_major_formatter(FuncFormatter(_thousands))
    axes.yaxis.set_minor_formatter(FuncFormatter(partial(_minor_label, axes)))
    axes.set_title(
        "Tier counts against the published table"
        if published
        else "Tier counts of this pool (the published table has another size)"
    )
    axes.legend(fontsize=8)
    _save(figure, path)


def payout_band(data: Figures, path: Path) -> None:
    """The payout of ``n`` plays dealt from the pool: 95% of the time within the band."""
    payout = float(data.payout)
    figure = Figure(figsize=(WIDTH, HEIGHT))
    axes = figure.add_subplot()
    axes.fill_between(
        data.band_plays, data.band_low, data.band_high, color=BLUE, alpha=0.2, label="95% band"
    )
    axes.axhline(payout, color=BLUE, lw=1, label=f"payout {payout:.2%}")
    axes.set_xscale("log")
    axes.set_ylim(0, max(2 * payout, 1.0))
    axes.xaxis.set_major_formatter(FuncFormatter(_thousands))
    axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("plays dealt")
    axes.set_ylabel("payout of those plays")
    axes.set_title(f"Payout confidence band (a play's return: sd {data.return_sd:.2f} stakes)")
    axes.legend(fontsize=8)
    _save(figure, path)


def running_payout(data: Figures, path: Path) -> None:
    """The payout of the plays dealt so far, along the pool's order, within the band."""
    payout = float(data.payout)
    figure = Figure(figsize=(WIDTH, HEIGHT))
    axes = figure.add_subplot()
    if data.start == 0:
        ends = zip(data.band_plays, data.band_low, data.band_high, strict=True)
        marks = [(n, low, high) for n, low, high in ends if n <= data.stop]
        axes.fill_between(
            [n for n, _, _ in marks],
            [low for _, low, _ in marks],
            [high for _, _, high in marks],
            color=BLUE,
            alpha=0.15,
            label="95% band",
        )
    axes.plot(data.running_positions, data.running_payout, color=GOLD, lw=1, label="running payout")
    axes.axhline(payout, color=BLUE, lw=1, label=f"payout {payout:.2%}")
    axes.set_xscale("log")
    axes.set_ylim(0, max(2 * payout, 1.0))
    axes.xaxis.set_major_formatter(FuncFormatter(_thousands))
    axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("position in the pool's order")
    axes.set_ylabel("payout so far")
    axes.set_title("Running payout along the pool's order")
    axes.legend(fontsize=8)
    _save(figure, path)


def segments(data: Figures, path: Path) -> None:
    """Winners in each equal segment of the covered positions."""
    figure = Figure(figsize=(WIDTH, HEIGHT))
    axes = figure.add_subplot()
    axes.bar(range(len(data.segment_winners)), data.segment_winners, color=GREY, width=0.9)
    axes.axhline(data.segment_expected, color=BLUE, lw=1, label="expected")
    axes.set_xlabel("segment of the order")
    axes.set_ylabel("winners")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole winners: no 0, 0, 1, 1
    axes.yaxis.set_major_formatter(FuncFormatter(_thousands))
    axes.set_title("Winners along the order")
    axes.legend(fontsize=8)
    _save(figure, path)


PLOTS = (
    ("prizes.png", prize_distribution, "Chance of each prize amount, on a log scale."),
    (
        "tiers.png",
        tier_counts,
        "Each tier's count in the pool against the published table (a pool of another size:"
        " against its own counts).",
    ),
    ("band.png", payout_band, "The 95% band of the payout against the number of plays dealt."),
    ("running.png", running_payout, "The payout of the plays dealt so far along the order."),
    ("segments.png", segments, "Winners in each equal segment of the order."),
)
"""File name, drawing function and alternative text of each plot."""


def draw_all(data: Figures, folder: Path) -> None:
    """Write every plot into ``folder``."""
    for name, draw, _ in PLOTS:
        draw(data, folder / name)
