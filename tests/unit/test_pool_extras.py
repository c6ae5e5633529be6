"""The base install needs none of the optional extras: without matplotlib, openpyxl, numpy,
scipy and Dask the pool commands build and verify, and ``report`` and ``--scheduler`` say which
extra to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BLOCKED = ("matplotlib", "openpyxl", "numpy", "scipy", "dask", "distributed")
RUN = f"""
import importlib.abc, sys

class NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NoExtras())
sys.argv = ["colour-collector", *sys.argv[1:]]
from colour_collector.cli.app import main
main()
"""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=False
    )


def test_the_pool_commands_need_no_extra(tmp_path: Path) -> None:
    pool = tmp_path / "pool.json"
    (tmp_path / "counts.json").write_text('{"£5": 3}', encoding="utf-8")
    built = cli("pool", "build", "--plays", "20", "--counts", str(tmp_path / "counts.json"),
                "--out", str(pool))  # fmt: skip
    assert built.returncode == 0, built.stderr
    verified = cli("pool", "verify", str(pool), "--workers", "2")
    assert verified.returncode == 0, verified.stderr
    assert (
        "OK: the pool holds together, with another prize structure (for tests)" in verified.stdout
    )
    report = cli("pool", "report", str(pool), "--out", str(tmp_path / "report"))
    assert report.returncode == 2
    assert "pip install 'colour-collector[report]'" in report.stderr
    assert "Traceback" not in report.stderr
    assert not (tmp_path / "report").exists()
    dask = cli("pool", "verify", str(pool), "--scheduler", "tcp://127.0.0.1:8786")
    assert dask.returncode == 2
    assert "pip install 'colour-collector[distributed]'" in dask.stderr
