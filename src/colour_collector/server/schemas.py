"""Request and response bodies of the HTTP API: the bases every area's bodies derive from
(requests forbid unknown fields), and the bodies of accounts, sessions and the wallet. The other
areas' bodies are in their ``*_schemas.py`` modules; the error body in ``problem_schemas``."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    StringConstraints,
)

from colour_collector.service.accounts import (
    MAX_EMAIL_LENGTH,
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    AccountPolicy,
    normalise_email,
)
from colour_collector.service.errors import InvalidInputError
from colour_collector.service.models import Account, Movement, MovementKind, SessionSummary


def _without_control_characters(value: str) -> str:
    """Refuse text holding a control, format (bidirectional overrides, zero-width marks),
    surrogate, private-use or unassigned character: no text field of the API needs one, and
    they hide what a text really says (in a log, an e-mail, an operator's screen)."""
    for position, char in enumerate(value):
        if unicodedata.category(char).startswith("C"):
            raise ValueError(
                f"contains the character U+{ord(char):04X} ({unicodedata.name(char, 'unnamed')})"
                f" at position {position}; control and format characters are not accepted"
            )
    return value


Text = Annotated[str, AfterValidator(_without_control_characters)]
"""Text of a request: no control or format characters."""


def _email(value: str) -> str:
    try:
        return normalise_email(value)
    except InvalidInputError as error:
        raise ValueError(str(error).removeprefix("not an e-mail address: ")) from None


Email = Annotated[
    str,
    # on the string itself, so that pydantic says "String should have at least 3 characters"
    StringConstraints(min_length=3, max_length=MAX_EMAIL_LENGTH),
    AfterValidator(_without_control_characters),
    AfterValidator(_email),
    Field(json_schema_extra={"format": "email"}),
]
"""An e-mail address, checked and normalised (lower case) at the edge."""
Password = Annotated[
    str,
    StringConstraints(max_length=MAX_PASSWORD_LENGTH),
    AfterValidator(_without_control_characters),
]

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _iso_date_text(value: object) -> object:
    if not isinstance(value, str) or not _ISO_DATE.match(value):
        raise ValueError("must be a calendar date written YYYY-MM-DD")
    return value


_DIGITS = re.compile(r"0|[1-9][0-9]*")


def _written_in_digits(value: object) -> object:
    if isinstance(value, str) and not _DIGITS.fullmatch(value):
        raise ValueError(
            "must be a whole number written in the digits 0 to 9 only, with no leading zero"
        )
    return value


InDigits = BeforeValidator(_written_in_digits)
"""On an ``int`` path or query parameter: the text is the digits 0 to 9 only, with no leading
zero. pydantic, as Python's ``int``, also reads ``+1``, ``1_0``, `` 1 `` and ``01`` (so
``/api/pools/1_0`` was pool 10, and ``/api/pools/01`` a second address of pool 1)."""

IsoDate = Annotated[
    dt.date,
    BeforeValidator(_iso_date_text),
    Field(strict=False, json_schema_extra={"pattern": _ISO_DATE.pattern}),
]
"""A calendar date given as ``YYYY-MM-DD`` exactly (numbers and date-times are refused)."""


class Request(BaseModel):
    """Base of every request body: strict, no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Response(BaseModel):
    """Base of every response body."""

    model_config = ConfigDict(frozen=True)


class RegisterRequest(Request):
    """``POST /api/register``."""

    email: Email = Field(description="E-mail address, used to log in.")
    password: Password = Field(
        description=f"{MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters.",
        min_length=MIN_PASSWORD_LENGTH,
    )
    date_of_birth: IsoDate = Field(description="ISO date (YYYY-MM-DD). Players must be 18 or over.")


class LoginRequest(Request):
    """``POST /api/login``."""

    email: Email = Field(description="E-mail address given at registration.")
    password: Password = Field(description="Password.", min_length=1)


LINK_TOKEN_PATTERN = r"^[A-Za-z0-9_-]{43}$"
"""The token of a mailed link (to confirm an account, to reset a password): 32 random bytes in
URL-safe base64, unpadded."""


class ConfirmRequest(Request):
    """``POST /api/register/confirm``."""

    token: str = Field(
        pattern=LINK_TOKEN_PATTERN,
        description="The token at the end of the link mailed to confirm the account"
        " (``.../#/confirm/<token>``).",
    )
    password: Password = Field(
        description="The password chosen at registration (the latest registration's, if the"
        " address was registered more than once): the link proves the mailbox, the password"
        " that the registration is its owner's.",
        min_length=1,
    )


class ResendRequest(Request):
    """``POST /api/register/resend``."""

    email: Email = Field(description="The address registered.")


class ForgotPasswordRequest(Request):
    """``POST /api/password/forgot``."""

    email: Email = Field(description="The address of the account whose password is forgotten.")


class ResetPasswordRequest(Request):
    """``POST /api/password/reset``."""

    token: str = Field(
        pattern=LINK_TOKEN_PATTERN,
        description="The token at the end of the link mailed to reset the password"
        " (``.../#/reset/<token>``).",
    )
    password: Password = Field(
        description=f"The new password: {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH}"
        " characters, as at registration.",
        min_length=MIN_PASSWORD_LENGTH,
    )


class TestDepositRequest(Request):
    """``POST /api/wallet/test-deposit``."""

    amount_pence: StrictInt = Field(
        gt=0, le=100_000, description="Amount in pence, 1 to 100000 (£1,000)."
    )


class AccountResponse(Response):
    """The logged-in player."""

    id: int
    email: str
    date_of_birth: dt.date
    created_at: dt.datetime

    @classmethod
    def of(cls, account: Account) -> AccountResponse:
        """Shape a service record."""
        return cls(
            id=account.id,
            email=account.email,
            date_of_birth=account.date_of_birth,
            created_at=account.created_at,
        )


CHECK_YOUR_EMAIL = (
    "If this address can be used to register, we have sent an e-mail to it. Open the link in"
    " that e-mail to go on."
)


class RegistrationResponse(Response):
    """``POST /api/register`` and ``/api/register/resend``: the same whatever the address."""

    status: Literal["check_your_email"] = Field(
        default="check_your_email", description="Always this: the next step is in the mail."
    )
    message: str = Field(default=CHECK_YOUR_EMAIL, description="What to tell the player.")


RESET_LINK_SENT = (
    "If this address has an account, we have sent it an e-mail with a link to choose a new"
    " password (or, if the account was never confirmed, how to register again)."
)


class ForgotPasswordResponse(Response):
    """``POST /api/password/forgot``: the same whatever the address."""

    notice: str = Field(
        default=RESET_LINK_SENT,
        description="What to tell the player: always this one sentence (the next step is in"
        " the mail, if the address has an account).",
    )


EXPIRES_IN = (
    "Seconds from the server's time of this answer to `expires_at`, rounded down: what a"
    " client times a warning by (its own clock may differ from the server's)."
)
EXTENDABLE = (
    "Whether activity (`POST /api/session/activity`) would move `expires_at` on: false when it"
    " is the session's fixed end (`SESSION_LIFETIME` after login, 12 hours by default), which"
    " nothing extends."
)


def seconds_until(end: dt.datetime, now: dt.datetime) -> int:
    """Whole seconds from ``now`` to ``end`` (0 once it has passed)."""
    return max(0, int((end - now).total_seconds()))


class SessionResponse(Response):
    """``GET /api/session``: this login session so far (the session bar and reality checks)."""

    started_at: dt.datetime = Field(description="When this session logged in.")
    expires_at: dt.datetime = Field(description="When it ends.")
    expires_in_seconds: int = Field(ge=0, description=EXPIRES_IN)
    extendable: bool = Field(description=EXTENDABLE)
    staked_pence: int = Field(description="Stakes paid since login.")
    won_pence: int = Field(description="Prizes credited since login.")
    net_pence: int = Field(description="Prizes minus stakes since login.")

    @classmethod
    def of(
        cls, summary: SessionSummary, policy: AccountPolicy, now: dt.datetime
    ) -> SessionResponse:
        """Shape a service record, as of ``now``."""
        return cls(
            started_at=summary.started_at,
            expires_at=summary.expires_at,
            expires_in_seconds=seconds_until(summary.expires_at, now),
            extendable=policy.extendable(summary.started_at, summary.expires_at),
            staked_pence=summary.staked_pence,
            won_pence=summary.won_pence,
            net_pence=summary.net_pence,
        )


class MovementResponse(Response):
    """One ledger row of the wallet."""

    id: int
    amount_pence: int = Field(description="Signed: positive credits, negative debits.")
    kind: MovementKind
    reference: str | None
    created_at: dt.datetime

    @classmethod
    def of(cls, movement: Movement) -> MovementResponse:
        """Shape a service record."""
        return cls(
            id=movement.id,
            amount_pence=movement.amount_pence,
            kind=movement.kind,
            reference=movement.reference,
            created_at=movement.created_at,
        )


class WalletResponse(Response):
    """``GET /api/wallet``."""

    balance_pence: int = Field(description="Sum of every movement; never negative.")
    movements: list[MovementResponse] = Field(description="Latest movements, newest first.")


class TestDepositResponse(Response):
    """``POST /api/wallet/test-deposit``: test money, not real money."""

    test_funds: Literal[True] = Field(
        default=True, description="Always true: this deposit is test money, not real money."
    )
    notice: str = Field(
        default="TEST DEPOSIT: test funds for a test environment; not real money.",
    )
    movement: MovementResponse
    balance_pence: int


class CsrfResponse(Response):
    """``GET /api/csrf``."""

    csrf_token: str = Field(description="Send this in the X-CSRF-Token header.")
    header: str = "X-CSRF-Token"


class HealthResponse(Response):
    """``GET /healthz``."""

    status: Literal["ok"] = "ok"
