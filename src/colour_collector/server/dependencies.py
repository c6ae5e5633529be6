"""FastAPI dependencies as ``Annotated`` aliases. Routes declare what they need with these.

They are ``async def`` so FastAPI does not send each one to the thread pool.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Request

from colour_collector.server.offload import database_call
from colour_collector.server.settings import Settings
from colour_collector.service import accounts
from colour_collector.service.errors import NotAuthenticatedError
from colour_collector.service.models import Account
from colour_collector.store import Database

SESSION_COOKIE = "cc_session"
"""HttpOnly cookie holding the opaque session token."""


async def get_settings(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_database(request: Request) -> Database:
    """The database handle (a unit-of-work factory)."""
    database: Database = request.app.state.database
    return database


async def get_login_policy(request: Request) -> accounts.LoginPolicy:
    """Throttling and session lifetime, from the settings."""
    policy: accounts.LoginPolicy = request.app.state.login_policy
    return policy


async def get_client_address(request: Request) -> str:
    """The client's address (behind a proxy, run uvicorn with ``--proxy-headers``)."""
    return request.client.host if request.client else "unknown"


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
LoginPolicyDep = Annotated[accounts.LoginPolicy, Depends(get_login_policy)]
ClientAddress = Annotated[str, Depends(get_client_address)]
SessionCookie = Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)]


async def get_current_account(request: Request) -> Account:
    """The logged-in account; 401 ``not_authenticated`` otherwise.

    It reads the session cookie and the database from the request itself rather than through
    sub-dependencies: it runs on nearly every request, and each dependency FastAPI resolves
    costs about as much as the session look-up.
    """
    database = await get_database(request)
    token = request.cookies.get(SESSION_COOKIE)
    return await database_call(database, accounts.current_account, database, token)


def session_token(request: Request) -> accounts.SessionToken:
    """The request's session, for an action that looks it up in its own transaction.

    A request without the cookie is answered 401 at once, before its body is read.
    """
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        raise NotAuthenticatedError("log in first")
    return accounts.SessionToken(token)


CurrentAccount = Annotated[Account, Depends(get_current_account)]
"""Use in a route signature to require a logged-in player: ``account: CurrentAccount``."""
