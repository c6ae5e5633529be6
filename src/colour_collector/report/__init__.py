"""The certification report of a prize pool: an HTML page with plots and the PAR sheet.

Needs the optional extra ``report`` (matplotlib, openpyxl, numpy, scipy); nothing else in the
package imports it. ``write_report`` deals the pool's order, works out the figures
(``figures``, with the report's own checks of the pool, ``checks``, and the tests of its order,
``order_tests``), draws the plots (``plots``), writes the spreadsheet (``par_sheet``) and the page
(``page``) into a new directory, all or nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from colour_collector.game.pool_deal import ProgressCallback, categories
from colour_collector.game.pool_file import PoolFile
from colour_collector.report.figures import figures
from colour_collector.report.page import page
from colour_collector.report.par_sheet import write_csv, write_xlsx
from colour_collector.report.plots import draw_all

__all__ = ["write_report"]


def write_report(
    pool: PoolFile,
    out: Path,
    *,
    start: int,
    stop: int,
    naturalness_plays: int,
    progress: ProgressCallback | None = None,
    from_server: bool = False,
) -> Path:
    """Write the report of ``pool`` (order statistics over positions ``start .. stop - 1``)
    into the new directory ``out``; its path. Nothing is left behind if it fails.
    ``from_server``: the pool was read from the server's description of it once closed."""
    dealt = categories(pool.secret, pool.parameters, start, stop, progress)
    data = figures(pool, dealt, start, naturalness_plays, from_server=from_server)
    work = Path(tempfile.mkdtemp(prefix=".report-", dir=out.parent))
    try:
        draw_all(data, work)
        write_csv(data, work)
        write_xlsx(data, work / "par.xlsx")
        (work / "index.html").write_text(page(data), encoding="utf-8")
        # Owner only, as the pool file: until the pool closes, the plots of the order (running
        # payout, winners by segment) show where its prizes lie. mkdtemp makes the directory
        # so; each file too, so that a copy of the files (not of the directory) stays private.
        for written in work.iterdir():
            if written.is_file():
                written.chmod(0o600)
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return out
