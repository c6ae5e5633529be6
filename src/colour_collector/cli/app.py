"""Entry point of the ``colour-collector`` command."""

from __future__ import annotations

# Importing a command module registers its commands on ``app``.
from colour_collector.cli import (  # noqa: F401
    audit_cmd,
    db_cmd,
    operator_cmd,
    play_cmd,
    pool_audit_cmd,
    pool_check_cmd,
    pool_prepare_cmd,
    pool_sale_cmd,
    prizes_cmd,
    serve_cmd,
    simulate_cmd,
    verify_cmd,
)
from colour_collector.cli.base import app


def main() -> None:
    """Run the command line."""
    app()
