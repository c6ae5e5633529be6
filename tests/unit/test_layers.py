"""The layers keep their dependencies: importing the game core loads no web framework, database
or numeric library; importing the use cases (``service``, the ports included) loads no web
framework or database library, nor the store, the server or the command line that sit above
or beside them (docs/architecture.md)."""

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


def _loaded_after_import(module: str, *, whole_names: bool = False) -> set[str]:
    name = "m" if whole_names else "m.split('.')[0]"
    script = f"import sys, {module}\nprint('\\n'.join(sorted({{{name} for m in sys.modules}})))\n"
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


def test_every_service_module_imports_without_the_layers_around_it() -> None:
    import colour_collector.service

    modules = [
        info.name
        for info in pkgutil.walk_packages(
            colour_collector.service.__path__, "colour_collector.service."
        )
    ]
    assert "colour_collector.service.purchase" in modules
    assert "colour_collector.service.ports.plays" in modules
    loaded = _loaded_after_import(", ".join(modules), whole_names=True)
    assert not {m.split(".")[0] for m in loaded} & FORBIDDEN
    outside = {
        m
        for m in loaded
        if m.startswith(
            ("colour_collector.store", "colour_collector.server", "colour_collector.cli")
        )
    }
    assert not outside, outside
