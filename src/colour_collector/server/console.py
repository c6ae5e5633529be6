"""The operator console's read-only tables, served by sqladmin at ``/operator/tables/``.

Accounts, plays, the wallet ledger and the audit log, listed, searched and shown one by one;
nothing can be created, edited, deleted or exported. sqladmin works on ORM classes, so each table
of ``store.tables`` is mapped to a small class here for sqladmin alone (the rest of the code uses
Core). Access is tied to the operator's console session (the ``cc_operator`` cookie of
``POST /api/operator/login``) and needs the support role: the tables hold personal data. sqladmin's
own login form is not used; without a session the tables send the browser to the console's
login. Every page of the tables asked for (a list, a search, one row) is an audit entry naming
the operator and the page, as the player look-up is; it is written before sqladmin serves the
page, so a look-up that finds nothing (a search without rows, a row or table not there) is
recorded too, as an auditor wants a probe recorded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

import anyio.to_thread
from fastapi import FastAPI
from sqladmin import Admin, ModelView
from sqladmin.authentication import AuthenticationBackend
from sqlalchemy import Select
from sqlalchemy.orm import registry
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from colour_collector.server.dependencies import OPERATOR_COOKIE
from colour_collector.service import operators
from colour_collector.service.errors import OperatorForbiddenError, OperatorNotAuthenticatedError
from colour_collector.service.models import LARGEST_ID
from colour_collector.service.protection_models import OperatorRole
from colour_collector.store import Database
from colour_collector.store.tables import accounts, audit_log, ledger, plays

TABLES_PATH = "/operator/tables"
"""Where sqladmin is mounted."""
_TABLE_PAGE = re.compile(rf"^{TABLES_PATH}/[a-z-]+/(list|details/[^/]+)$")
"""The pages that show rows: a table's list (and its searches) and one row."""
CONSOLE_LOGIN = "/operator/#/login"
"""Where a browser without a console session is sent."""
TEMPLATES = Path(__file__).with_name("console_templates")
"""Our overrides of sqladmin's templates (accessibility fixes), searched before its own."""

_mapper = registry()


# sqladmin names each table's pages after its class: /operator/tables/accounts/list, ...
class Accounts:
    """An ``accounts`` row, for sqladmin."""


class Plays:
    """A ``plays`` row, for sqladmin."""


class Ledger:
    """A ``ledger`` row, for sqladmin."""


class Audit:
    """An ``audit_log`` row, for sqladmin."""


_mapper.map_imperatively(Accounts, accounts, exclude_properties=["password_hash"])
_mapper.map_imperatively(Plays, plays, exclude_properties=["record"])
_mapper.map_imperatively(Ledger, ledger)
_mapper.map_imperatively(Audit, audit_log)


class _ReadOnly(ModelView):
    """Listed and shown, never changed."""

    can_create = False
    can_edit = False
    can_delete = False
    can_export = False
    page_size = 25

    async def get_object_for_details(self, request: Request) -> Any:
        """The row, or None (sqladmin's 404) for an id that names no row: sqladmin would pass
        ``abc`` to ``int`` and an id past the column's range to the database, and fail."""
        given = str(request.path_params.get("pk", ""))
        if not (given.isascii() and given.isdigit() and 0 < int(given) <= LARGEST_ID):
            return None
        return await super().get_object_for_details(request)

    async def get_object_filepath(self, identifier: str, column_name: str) -> Path:
        """No column of these tables names a file: sqladmin's download and preview pages answer
        404 (sqladmin would read the row, and fail on an id that names none)."""
        raise HTTPException(status_code=404, detail="these tables hold no files")

    def search_query(self, stmt: Select[Any], term: str) -> Select[Any]:
        """sqladmin's search, refusing a NUL (PostgreSQL cannot compare text with one)."""
        if "\x00" in term:
            raise HTTPException(
                status_code=400, detail=f"a search cannot contain a NUL character: {term!r}"
            )
        return super().search_query(stmt, term)


class AccountsView(_ReadOnly, model=Accounts):
    """Players' accounts (password hashes are never shown)."""

    name = "Account"
    name_plural = "Accounts"
    column_list: ClassVar[Any] = ["id", "email", "date_of_birth", "created_at"]
    column_searchable_list: ClassVar[Any] = ["email"]
    column_sortable_list: ClassVar[Any] = ["id", "email", "created_at"]


class PlaysView(_ReadOnly, model=Plays):
    """Plays sold (the record itself is left out: it holds steps not yet revealed)."""

    name = "Play"
    name_plural = "Plays"
    column_list: ClassVar[Any] = [
        "id",
        "play_number",
        "account_id",
        "status",
        "prize_pence",
        "revealed",
        "steps",
        "purchased_at",
        "finished_at",
    ]
    column_searchable_list: ClassVar[Any] = ["play_number"]
    column_sortable_list: ClassVar[Any] = ["id", "purchased_at", "prize_pence"]
    column_default_sort: ClassVar[Any] = ("id", True)


class LedgerView(_ReadOnly, model=Ledger):
    """Wallet movements."""

    name = "Ledger row"
    name_plural = "Ledger"
    column_list: ClassVar[Any] = [
        "id",
        "account_id",
        "amount_pence",
        "kind",
        "reference",
        "created_at",
    ]
    column_searchable_list: ClassVar[Any] = ["kind", "reference"]
    column_sortable_list: ClassVar[Any] = ["id", "account_id", "created_at"]
    column_default_sort: ClassVar[Any] = ("id", True)


class AuditView(_ReadOnly, model=Audit):
    """The audit chain's entries."""

    name = "Audit entry"
    name_plural = "Audit log"
    column_list: ClassVar[Any] = ["seq", "created_at", "kind", "account_id", "payload"]
    column_searchable_list: ClassVar[Any] = ["kind"]
    column_sortable_list: ClassVar[Any] = ["seq", "created_at", "kind"]
    column_default_sort: ClassVar[Any] = ("seq", True)


class OperatorSessions(AuthenticationBackend):
    """sqladmin's access check, tied to the console session: support role or above."""

    def __init__(self, database: Database) -> None:
        # No session middleware: the console's own cookie and sessions table decide.
        self.middlewares = []
        self.database = database

    async def login(self, request: Request) -> Response | bool:
        return RedirectResponse(CONSOLE_LOGIN, status_code=302)

    async def logout(self, request: Request) -> Response | bool:
        return RedirectResponse("/operator/", status_code=302)

    async def authenticate(self, request: Request) -> Response | bool:
        token = request.cookies.get(OPERATOR_COOKIE)
        page = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        try:
            # Personal data shown: audited. A HEAD too: sqladmin renders the page for it, and its
            # Content-Length tells whether a search found rows.
            if _TABLE_PAGE.match(request.url.path):
                await anyio.to_thread.run_sync(
                    lambda: operators.view_tables(self.database, token, page)
                )
            else:
                await anyio.to_thread.run_sync(
                    lambda: operators.current(self.database, token, OperatorRole.SUPPORT)
                )
        except OperatorNotAuthenticatedError:
            return RedirectResponse(CONSOLE_LOGIN, status_code=302)
        except OperatorForbiddenError:
            return Response(
                "Your role does not open the tables (support or manager needed).",
                status_code=403,
                media_type="text/plain; charset=utf-8",
            )
        return True


def mount_tables(app: FastAPI, database: Database) -> Admin:
    """Mount the read-only tables on ``app`` (before the static client's catch-all mount)."""
    admin = Admin(
        app,
        engine=database.engine,
        base_url=TABLES_PATH,
        title="Colour Collector tables",
        templates_dir=str(TEMPLATES),
        authentication_backend=OperatorSessions(database),
    )
    for view in (AccountsView, PlaysView, LedgerView, AuditView):
        admin.add_view(view)
    return admin
