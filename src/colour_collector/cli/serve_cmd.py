"""``colour-collector serve``: run the HTTP server under uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from colour_collector.cli.base import app

if TYPE_CHECKING:
    from pydantic import ValidationError


def _settings_error(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ())) or "settings"
        message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "invalid settings:\n" + "\n".join(lines)


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port to listen on.")] = 8000,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help="Directory of the SQLite database (default ./data, or"
            " COLOUR_COLLECTOR_DATA_DIR). Ignored when COLOUR_COLLECTOR_DATABASE_URL is set.",
        ),
    ] = None,
) -> None:
    """Serve the game and its API. Creates and migrates the database on start."""
    # The server stack takes about a second to import: only this command pays for it.
    import uvicorn  # noqa: PLC0415
    from pydantic import ValidationError  # noqa: PLC0415

    from colour_collector.server.app import create_app  # noqa: PLC0415
    from colour_collector.server.settings import Settings  # noqa: PLC0415

    try:
        settings = Settings() if data_dir is None else Settings(data_dir=data_dir)
    except ValidationError as error:
        typer.echo(f"colour-collector serve: {_settings_error(error)}", err=True)
        raise typer.Exit(2) from None
    try:
        application = create_app(settings)
    except Exception as error:  # a broken database URL, an unreachable server...
        typer.echo(f"colour-collector serve: cannot open the database: {error}", err=True)
        raise typer.Exit(1) from None
    shown_host = f"[{host}]" if ":" in host else host
    typer.echo(
        f"Colour Collector ({settings.environment.value}) listening on http://{shown_host}:{port}/"
    )
    uvicorn.run(application, host=host, port=port, log_level="info", proxy_headers=True)
