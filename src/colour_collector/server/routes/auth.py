"""Accounts and sessions: register, log in, log out, who am I, this session, CSRF token."""

from __future__ import annotations

from fastapi import APIRouter, Request, status
from starlette.responses import Response

from colour_collector.server.dependencies import ClientAddress, RuntimeDep, SessionToken
from colour_collector.server.middleware import CSRF_HEADER, SESSION_COOKIE
from colour_collector.server.responses import answer
from colour_collector.server.schemas import (
    BAD_PARAMETERS,
    BODY_PROBLEMS,
    AccountResponse,
    CsrfResponse,
    LoginRequest,
    RegisterRequest,
    SessionResponse,
    problem_responses,
)
from colour_collector.service import accounts

router = APIRouter(prefix="/api", tags=["accounts"], responses=BAD_PARAMETERS)

_AUTH = {401: "Not logged in (`not_authenticated`)."}


@router.get("/csrf", response_model=CsrfResponse)
def csrf(request: Request) -> Response:
    """The CSRF token (also set as the ``cc_csrf`` cookie); echo it in ``X-CSRF-Token``."""
    return answer(CsrfResponse(csrf_token=request.state.csrf_token, header=CSRF_HEADER))


@router.post(
    "/register",
    status_code=status.HTTP_201_CREATED,
    response_model=AccountResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            409: "E-mail already registered (`email_taken`).",
            422: "Invalid field (`invalid_request`), or under 18 (`underage`).",
        }
    ),
)
def register(body: RegisterRequest, runtime: RuntimeDep) -> Response:
    """Create an account. Under-18s are refused (422 ``underage``). Does not log in."""
    account = accounts.register(
        runtime.database,
        runtime.accounts,
        email=body.email,
        password=body.password,
        date_of_birth=body.date_of_birth,
    )
    return answer(AccountResponse.of(account), status.HTTP_201_CREATED)


@router.post(
    "/login",
    response_model=AccountResponse,
    responses=problem_responses(
        {
            **BODY_PROBLEMS,
            401: "Wrong e-mail or password (`invalid_credentials`).",
            429: "Too many failed logins (`too_many_attempts`); see Retry-After.",
        }
    ),
)
def login(body: LoginRequest, runtime: RuntimeDep, client: ClientAddress) -> Response:
    """Log in; sets the HttpOnly ``cc_session`` cookie."""
    policy = runtime.accounts
    logged_in = accounts.login(
        runtime.database, policy, email=body.email, password=body.password, client=client
    )
    response = answer(AccountResponse.of(logged_in.account))
    response.set_cookie(
        SESSION_COOKIE,
        logged_in.token,
        max_age=int(policy.session_lifetime.total_seconds()),
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
        {403: BODY_PROBLEMS[403], 413: BODY_PROBLEMS[413], 422: "A bad cookie (`invalid_request`)."}
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
    """This login session: when it started, and the money staked and won since (the same in
    every tab of the browser)."""
    return answer(SessionResponse.of(accounts.session_summary(runtime.database, token)))
