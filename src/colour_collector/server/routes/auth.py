"""Accounts and sessions: register (confirmed by e-mail), a forgotten password (reset by
e-mail), log in, log out, who am I, this session, CSRF token."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request, status
from starlette.responses import Response

from colour_collector.server.dependencies import ClientAddress, RuntimeDep, SessionToken
from colour_collector.server.middleware import CSRF_HEADER, SESSION_COOKIE
from colour_collector.server.problem_schemas import (
    BAD_PARAMETERS,
    BODY_PROBLEMS,
    ENCODED_BODY,
    problem_responses,
)
from colour_collector.server.request_bodies import JsonBodyRoute
from colour_collector.server.responses import answer
from colour_collector.server.runtime import Runtime
from colour_collector.server.schemas import (
    AccountResponse,
    ConfirmRequest,
    CsrfResponse,
    ForgotPasswordRequest,
    ForgotPasswordResponse,
    LoginRequest,
    RegisterRequest,
    RegistrationResponse,
    ResendRequest,
    ResetPasswordRequest,
    SessionResponse,
)
from colour_collector.service import accounts, password_reset, registration
from colour_collector.service.clock import utcnow

router = APIRouter(
    prefix="/api", tags=["accounts"], responses=BAD_PARAMETERS, route_class=JsonBodyRoute
)

_AUTH = {401: "Not logged in (`not_authenticated`)."}


@router.get("/csrf", response_model=CsrfResponse)
def csrf(request: Request) -> Response:
    """The CSRF token (also set as the ``cc_csrf`` cookie); echo it in ``X-CSRF-Token``."""
    return answer(CsrfResponse(csrf_token=request.state.csrf_token, header=CSRF_HEADER))


@router.post(
    "/register",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RegistrationResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            422: "Invalid fields, each listed in `errors` (`invalid_request`), or under 18"
            " (`underage`).",
            429: "Too many e-mails asked for this address, from this client or from every"
            " client (`too_many_emails`); see Retry-After.",
        }
    ),
)
def register(body: RegisterRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Register: the answer is the same whether or not the address has an account (the next
    step is in a mail: a link to confirm a new account, or a notice to the owner of an existing
    one). Under-18s are refused (422 ``underage``). Does not log in."""
    registration.register(
        runtime.database,
        runtime.accounts,
        runtime.registration,
        email=body.email,
        password=body.password,
        date_of_birth=body.date_of_birth,
        client=client,
    )
    return answer(RegistrationResponse(), status.HTTP_202_ACCEPTED)


@router.post(
    "/register/confirm",
    response_model=AccountResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            400: "Malformed JSON (`invalid_request`), or a link unknown or expired, or not"
            " one to confirm an account (`invalid_token`).",
            401: "The password is not the one the address was registered with (the latest"
            " registration's) (`invalid_credentials`); nothing is written.",
            409: "The account is confirmed already (`already_confirmed`): log in.",
        }
    ),
)
def confirm(body: ConfirmRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Confirm an account with the token of the mailed link and the password it was registered
    with, and log in (sets the HttpOnly ``cc_session`` cookie, and a new ``cc_csrf``)."""
    logged_in = registration.confirm(
        runtime.database,
        runtime.accounts,
        token=body.token,
        password=body.password,
        client=client,
    )
    return _logged_in(runtime, logged_in)


@router.post(
    "/register/resend",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RegistrationResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            429: "Too many e-mails asked for this address, from this client or from every"
            " client (`too_many_emails`); see Retry-After.",
        }
    ),
)
def resend(body: ResendRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Mail a new confirmation link if the address has an account not confirmed yet; the
    answer is the same whatever the address."""
    registration.resend(runtime.database, runtime.registration, email=body.email, client=client)
    return answer(RegistrationResponse(), status.HTTP_202_ACCEPTED)


@router.post(
    "/password/forgot",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ForgotPasswordResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            429: "Too many e-mails asked for this address, from this client or from every"
            " client (`too_many_emails`, counted with registration's); see Retry-After.",
        }
    ),
)
def forgot_password(
    body: ForgotPasswordRequest,
    runtime: RuntimeDep,
    client: ClientAddress,
    after_the_answer: BackgroundTasks,
) -> Response:
    """Mail a link to choose a new password (``<public url>/#/reset/<token>``, working once,
    for ``PASSWORD_RESET_LINK_LIFETIME``: an hour by default) if the address has a confirmed
    account, and a notice to register again (no link) if its account is not confirmed; the
    answer is the same whatever the address, and the mail is sent after it."""
    password_reset.forgot(
        runtime.database,
        runtime.registration,
        email=body.email,
        client=client,
        deliver=after_the_answer.add_task,
    )
    return answer(ForgotPasswordResponse(), status.HTTP_202_ACCEPTED)


@router.post(
    "/password/reset",
    response_model=AccountResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            400: "Malformed JSON (`invalid_request`), or a link unknown, expired, used already,"
            " not one to reset a password, or of an account not confirmed (`invalid_token`).",
            422: "A field is missing, unknown or invalid, or the password is not one"
            " registration accepts (`invalid_request`).",
        }
    ),
)
def reset_password(
    body: ResetPasswordRequest, runtime: RuntimeDep, client: ClientAddress
) -> Response:
    """Set a new password with the token of the mailed link, end every session of the account,
    and log in (sets the HttpOnly ``cc_session`` cookie, and a new ``cc_csrf``)."""
    logged_in = password_reset.reset(
        runtime.database,
        runtime.accounts,
        token=body.token,
        password=body.password,
        client=client,
    )
    return _logged_in(runtime, logged_in)


@router.post(
    "/login",
    response_model=AccountResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            401: "Wrong e-mail or password (`invalid_credentials`).",
            403: "CSRF check failed (`csrf_failed`), or the password is right but the account"
            " is not confirmed yet (`email_not_confirmed`).",
            429: "Too many failed logins (`too_many_attempts`); see Retry-After.",
        }
    ),
)
def login(body: LoginRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Log in; sets the HttpOnly ``cc_session`` cookie."""
    logged_in = accounts.login(
        runtime.database, runtime.accounts, email=body.email, password=body.password, client=client
    )
    return _logged_in(runtime, logged_in)


def _logged_in(runtime: Runtime, logged_in: accounts.LoggedIn) -> Response:
    response = answer(AccountResponse.of(logged_in.account))
    response.set_cookie(
        SESSION_COOKIE,
        logged_in.token,
        max_age=int(runtime.accounts.session_lifetime.total_seconds()),
        path="/",
        httponly=True,
        samesite="lax",
        secure=runtime.settings.cookies_secure,
    )
    return response


@router.post(
    "/logout",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=problem_responses(
        {
            403: BODY_PROBLEMS[403],
            413: BODY_PROBLEMS[413],
            415: ENCODED_BODY,
            422: "A bad cookie (`invalid_request`).",
        }
    ),
)
def logout(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """End the session (idempotent) and clear the session cookie."""
    accounts.logout(runtime.database, token)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=runtime.settings.cookies_secure,
    )
    return response


@router.get("/me", response_model=AccountResponse, responses=problem_responses(_AUTH))
def me(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """The logged-in player."""
    return answer(AccountResponse.of(accounts.current_account(runtime.database, token)))


@router.get("/session", response_model=SessionResponse, responses=problem_responses(_AUTH))
def session(runtime: RuntimeDep, token: SessionToken = None) -> Response:
    """This login session: when it started and ends, and the money staked and won since (the
    same in every tab of the browser)."""
    now = utcnow()
    summary = accounts.session_summary(runtime.database, token, now=now)
    return answer(SessionResponse.of(summary, runtime.accounts, now))
