"""``colour-collector serve``: run the HTTP server under uvicorn."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from colour_collector.cli.base import app, first_line, server_settings, stop_command

if TYPE_CHECKING:
    from fastapi import FastAPI

DATA_DIR_VARIABLE = "COLOUR_COLLECTOR_DATA_DIR"
"""How ``--data-dir`` reaches worker processes."""
PUBLIC_URL_VARIABLE = "COLOUR_COLLECTOR_PUBLIC_URL"
"""The setting of the address the links in mails lead to."""
WORKER_APP = "colour_collector.server.app:app_from_environment"
"""The app factory each worker process calls."""


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` now (None: it can)."""
    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind((host, port))
    except OSError as error:
        return error.strerror or str(error)
    return None


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
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes sharing the port, on PostgreSQL (one per core is a good"
            " start); SQLite is served by one process.",
        ),
    ] = 1,
    access_log: Annotated[
        bool, typer.Option(help="Log every request (turn off behind a proxy that logs them).")
    ] = True,
) -> None:
    """Serve the game and its API. Creates and migrates the database on start."""
    # The server stack takes about a second to import: only this command pays for it.
    import uvicorn  # noqa: PLC0415
    from sqlalchemy import make_url  # noqa: PLC0415

    from colour_collector.cli.database import missing_database_file  # noqa: PLC0415
    from colour_collector.server.app import create_app, frozen, migrate  # noqa: PLC0415
    from colour_collector.server.request_log import log_config  # noqa: PLC0415
    from colour_collector.server.runtime import check_setting_files  # noqa: PLC0415
    from colour_collector.server.settings import Environment  # noqa: PLC0415
    from colour_collector.service.errors import InvalidInputError  # noqa: PLC0415

    if data_dir is not None:  # worker processes read the settings from the environment
        os.environ[DATA_DIR_VARIABLE] = str(data_dir)
    settings = server_settings("serve")
    shown_host = f"[{host}]" if ":" in host else host
    if (
        "public_url" not in settings.model_fields_set
        and settings.environment is not Environment.PRODUCTION
    ):
        # the links in mails lead to the address served (production must say its own)
        linked = "127.0.0.1" if host in ("0.0.0.0", "::") else shown_host
        os.environ[PUBLIC_URL_VARIABLE] = f"http://{linked}:{port}"  # for worker processes too
        settings = settings.model_copy(update={"public_url": os.environ[PUBLIC_URL_VARIABLE]})
    refused = _cannot_listen(host, port)
    if refused is not None:
        stop_command("serve", f"cannot listen on {shown_host}:{port}: {refused}")
    if workers > 1 and make_url(settings.resolved_database_url).get_backend_name() == "sqlite":
        stop_command(
            "serve",
            "SQLite is served by one process; for several server processes use PostgreSQL"
            " (COLOUR_COLLECTOR_DATABASE_URL=postgresql://...)",
        )
    target: FastAPI | str = WORKER_APP  # several workers each make their own app
    try:
        check_setting_files(settings)  # before any worker starts
        missing = missing_database_file(make_url(settings.resolved_database_url))
        if missing is not None:  # a first start, or a database moved away: said either way
            typer.echo(
                f"colour-collector serve: no database file {missing}: making a new, empty one"
                " (is --data-dir or COLOUR_COLLECTOR_DATA_DIR the one you meant?)",
                err=True,
            )
        if workers == 1:
            target = frozen(create_app(settings))
        else:
            migrate(settings)  # once, before the workers start
    except InvalidInputError as error:  # a file a setting names cannot be used
        stop_command("serve", str(error))
    except Exception as error:  # a broken database URL, an unreachable server...
        stop_command("serve", f"cannot open the database: {first_line(error)}")
    typer.echo(
        f"Colour Collector ({settings.environment.value}) listening on http://{shown_host}:{port}/"
        + (f" with {workers} worker processes" if workers > 1 else "")
    )
    uvicorn.run(
        target,
        factory=workers > 1,
        workers=workers,
        host=host,
        port=port,
        log_level="info",
        # X-Forwarded-* only from the proxies named: anyone else could claim any address (and
        # so dodge the per-address limits on failed logins, Try plays and mails asked for).
        proxy_headers=settings.forwarded_allow_ips is not None,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_config=log_config(),
        access_log=access_log,
    )
