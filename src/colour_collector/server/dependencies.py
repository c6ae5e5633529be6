"""FastAPI dependencies as ``Annotated`` aliases: routes declare what they need with these.

They only read the request (no I/O), so they are ``async def``: FastAPI runs them on the event
loop instead of sending each to a worker thread. The routes themselves are plain ``def``
functions that FastAPI runs in AnyIO's worker threads (docs/architecture.md, "Concurrency").
"""

from __future__ import annotations

import random
from typing import Annotated

from fastapi import Cookie, Depends, Header, Path, Request
from fastapi.security import APIKeyCookie

from colour_collector.server.runtime import PlayRuntime
from colour_collector.server.settings import Settings
from colour_collector.service.accounts import AccountPolicy
from colour_collector.store import Database

SESSION_COOKIE = "cc_session"
"""HttpOnly cookie holding the opaque session token."""
PLAY_NUMBER_MAX = 40
"""Longest path value accepted as a Play Number (longer answers 422)."""


async def get_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_database(request: Request) -> Database:
    """The database: ``database()`` opens a unit of work."""
    database: Database = request.app.state.database
    return database


async def get_account_policy(request: Request) -> AccountPolicy:
    """Password hashing, login throttling and session lifetime, from the settings."""
    policy: AccountPolicy = request.app.state.account_policy
    return policy


async def get_runtime(request: Request) -> PlayRuntime:
    """The play routes' shared parts: purchase policy, outcome sources, random source."""
    runtime: PlayRuntime = request.app.state.play_runtime
    return runtime


async def get_rng(request: Request) -> random.Random:
    """The secure random source (``random.SystemRandom``)."""
    return (await get_runtime(request)).rng


async def get_client_address(request: Request) -> str:
    """The client's address (behind a proxy, see docs/operations.md)."""
    return request.client.host if request.client else "unknown"


session_cookie = APIKeyCookie(
    name=SESSION_COOKIE,
    auto_error=False,
    scheme_name="session",
    description="The HttpOnly session cookie set by `POST /api/login`.",
)

SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
AccountPolicyDep = Annotated[AccountPolicy, Depends(get_account_policy)]
RuntimeDep = Annotated[PlayRuntime, Depends(get_runtime)]
ClientAddress = Annotated[str, Depends(get_client_address)]
SessionToken = Annotated[str | None, Depends(session_cookie)]
"""The session token from the cookie (None without one: the use case answers 401)."""
EndingSession = Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)]
"""The session cookie of a logout, which needs none (logging out twice is fine)."""
PlayNumber = Annotated[
    str,
    Path(min_length=1, max_length=PLAY_NUMBER_MAX, description="Play Number, e.g. CC-7K3D-9QXM-4."),
]
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Repeat a request safely: the same key answers the same result.",
    ),
]
