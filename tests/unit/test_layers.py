"""The game core stays pure: importing it loads no web framework, database or numeric library."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import colour_collector.game

FORBIDDEN = {
    "sqlalchemy",
    "fastapi",
    "starlette",
    "uvicorn",
    "alembic",
    "pydantic",
    "psycopg",
    "psycopg2",
}
NUMERIC = {"scipy", "numpy"}
NUMERIC_ALLOWED = {"colour_collector.game.calibration"}
"""The solver may use scipy (imported inside its function); nothing else in game/ may."""


def _loaded_after_import(module: str) -> set[str]:
    script = (
        f"import sys, {module}\n"
        "print('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    return set(out.split())


def test_every_game_module_imports_without_server_database_or_numeric_libraries() -> None:
    modules = [
        f"colour_collector.game.{info.name}"
        for info in pkgutil.iter_modules(colour_collector.game.__path__)
    ]
    assert "colour_collector.game.rules" in modules
    script = "import " + ", ".join(m for m in modules if m not in NUMERIC_ALLOWED)
    loaded = _loaded_after_import(script.removeprefix("import "))
    assert not loaded & FORBIDDEN, loaded & FORBIDDEN
    assert not loaded & NUMERIC, loaded & NUMERIC


def test_the_check_itself_sees_a_forbidden_import() -> None:
    assert "sqlalchemy" in _loaded_after_import("colour_collector.store")
