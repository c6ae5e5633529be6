"""Pure ASGI middleware: security headers, the request body limit, the CSRF double-submit
cookie and HEAD answered as GET."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import cookie_parser
from starlette.routing import Match, Mount, Router
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from colour_collector.server import problems

CSRF_COOKIE = "cc_csrf"
"""Non-HttpOnly cookie holding the CSRF token; the client echoes it in :data:`CSRF_HEADER`."""
CSRF_HEADER = "X-CSRF-Token"
SESSION_COOKIE = "cc_session"
"""The session cookie (``server.dependencies``), which a CSRF token is bound to."""
"""Header that must carry the value of :data:`CSRF_COOKIE` on state-changing requests."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


class BodyTooLarge(StarletteHTTPException):
    """Raised while reading a request body longer than the limit (mapped to 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


def _content_codings(headers: Headers) -> list[str]:
    """The content codings a request names in ``Content-Encoding``, ``identity`` (none) left
    out."""
    named = (
        coding.strip().lower()
        for value in headers.getlist("content-encoding")
        for coding in value.split(",")
    )
    return [coding for coding in named if coding and coding != "identity"]


class BodyLimitMiddleware:
    """The gate every request body passes before any route runs: 413 ``body_too_large`` for one
    over ``max_bytes``, 415 ``unsupported_media_type`` for one sent with a ``Content-Encoding``
    (the server does not decode compressed request bodies; a route would read the compressed
    bytes as they came) or with more than one ``Content-Type``."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                await problems.problem_response(
                    problems.INVALID_REQUEST, "Content-Length is not a number"
                )(scope, receive, send)
                return
            if int(declared) > self.max_bytes:
                await problems.problem_response(
                    problems.BODY_TOO_LARGE,
                    f"the request body is larger than {self.max_bytes} bytes",
                )(scope, receive, send)
                return
        # HTTP/1.1 frames a body by its Content-Length or a Transfer-Encoding.
        announces_body = int(declared or "0") > 0 or "transfer-encoding" in headers
        types = headers.getlist("content-type")
        if announces_body and len(types) > 1:  # a proxy reading another one sees another body
            await problems.problem_response(
                problems.NOT_JSON,
                f"send Content-Type once, as application/json: it was sent {len(types)} times",
                errors=[{"field": "Content-Type", "message": "must be sent once"}],
            )(scope, receive, send)
            return
        if announces_body and _content_codings(headers):
            sent = ", ".join(headers.getlist("content-encoding"))
            await problems.problem_response(
                problems.NOT_JSON,
                "the request body must be sent as it is, without a Content-Encoding (the server"
                f" does not decode compressed request bodies), not with Content-Encoding: {sent!r}",
                headers={"Accept-Encoding": "identity"},
                errors=[{"field": "Content-Encoding", "message": "must be identity or not sent"}],
            )(scope, receive, send)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, limited_receive, send)


def session_binding(session_token: str | None) -> str:
    """What a CSRF token is bound to: the SHA-256 of the session cookie's value ("" without one),
    so a token works only with the session it was issued for."""
    if not session_token:
        return ""
    return hashlib.sha256(session_token.encode("utf-8", "replace")).hexdigest()


def _sign(secret: bytes, nonce: str, binding: str) -> str:
    message = b"csrf:" + nonce.encode("ascii") + b":" + binding.encode("ascii")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


def new_csrf_token(secret: bytes, binding: str = "") -> str:
    """A fresh token: a random nonce and an HMAC, under the server secret, of the nonce and
    the session it is bound to."""
    nonce = secrets.token_urlsafe(24)
    return f"{nonce}.{_sign(secret, nonce, binding)}"


def csrf_token_is_valid(secret: bytes, token: str | None, binding: str = "") -> bool:
    """Whether ``token`` was issued by this server for the session ``binding`` names."""
    if not token or len(token) > 128 or token.count(".") != 1:
        return False
    nonce, signature = token.split(".")
    if not nonce.isascii() or not signature.isascii():
        return False
    return hmac.compare_digest(_sign(secret, nonce, binding), signature)


def csrf_cookie_header(token: str, *, secure: bool) -> str:
    """``Set-Cookie`` value for the CSRF cookie (readable by the page's script)."""
    cookie = f"{CSRF_COOKIE}={token}; Path=/; SameSite=Lax"
    return cookie + "; Secure" if secure else cookie


def _cookies(headers: Headers) -> dict[str, str]:
    # Starlette's parser (the one ``request.cookies`` uses): lenient and several times faster
    # than ``http.cookies``. A mangled value is harmless: the token must carry our signature.
    raw = headers.get("cookie")
    return cookie_parser(raw) if raw else {}


def _session_set_by(message: Message) -> str | None:
    """The session cookie a response sets ("" when it clears it; None when it leaves it)."""
    for name, value in message.get("headers", []):
        if name.lower() == b"set-cookie" and value.startswith(SESSION_COOKIE.encode() + b"="):
            token = value.split(b";", 1)[0].split(b"=", 1)[1].decode("latin-1").strip('"')
            cleared = b"max-age=0" in value.lower() or b"expires=thu, 01 jan 1970" in value.lower()
            return "" if cleared or not token else token
    return None


class CsrfMiddleware:
    """Double-submit cookie bound to the session: every state-changing request must echo
    ``cc_csrf`` in a header, and the token must have been issued for the request's session.

    Any response to a request without a token valid for its session sets a fresh one, and a
    response that logs in or out sets one for the new session, so a client only has to make one
    GET (e.g. ``/api/csrf``) before its first POST and read the cookie again after logging in.
    """

    def __init__(self, app: ASGIApp, *, secret: bytes, secure: bool, router: Router) -> None:
        self.app = app
        self.secret = secret
        self.secure = secure
        self.router = router

    def _reaches_an_endpoint(self, scope: Scope) -> bool:
        """Whether the router will hand the request to something that may act on it: the route
        it picks (the first that matches path and method) is not the static files. A request no
        route takes is answered 404 or 405 untouched, so it is not asked for a token first."""
        for route in self.router.routes:
            if route.matches(scope)[0] is Match.FULL:
                return not (isinstance(route, Mount) and isinstance(route.app, StaticFiles))
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        cookies = _cookies(headers)
        token = cookies.get(CSRF_COOKIE)
        binding = session_binding(cookies.get(SESSION_COOKIE))
        valid = csrf_token_is_valid(self.secret, token, binding)
        fresh = None if valid else new_csrf_token(self.secret, binding)
        scope.setdefault("state", {})["csrf_token"] = token if valid else fresh

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                session = _session_set_by(message)
                renewed = fresh
                if session is not None:  # logged in or out: a token for the new session
                    renewed = new_csrf_token(self.secret, session_binding(session))
                if renewed is not None:
                    MutableHeaders(scope=message).append(
                        "set-cookie", csrf_cookie_header(renewed, secure=self.secure)
                    )
            await send(message)

        if scope["method"] not in SAFE_METHODS and self._reaches_an_endpoint(scope):
            sent = headers.getlist(CSRF_HEADER)
            echoed = sent[0] if len(sent) == 1 else None
            if (
                not valid
                or not echoed
                or not hmac.compare_digest(
                    echoed.encode("utf-8", "replace"), (token or "").encode("utf-8")
                )
            ):
                reason = (
                    "missing or invalid cc_csrf cookie for this session"
                    if not valid
                    else f"the {CSRF_HEADER} header is sent {len(sent)} times"
                    if len(sent) > 1
                    else f"the {CSRF_HEADER} header is missing"
                    if not echoed
                    else f"the {CSRF_HEADER} header does not match the cc_csrf cookie"
                )
                response = problems.problem_response(
                    problems.CSRF_FAILED,
                    f"CSRF check failed: {reason}; send the value of the cc_csrf cookie"
                    f" in the {CSRF_HEADER} header",
                )
                await response(scope, receive, send_with_cookie)
                return
        await self.app(scope, receive, send_with_cookie)


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " font-src 'self'; connect-src 'self'; media-src 'self'; object-src 'none';"
    " base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
"""The page's own files only: no inline script or style, no framing by another site."""


NO_STORE_PREFIXES = ("/api/", "/operator/tables/")
"""Answers under these paths are never stored: the API's, and the console's tables (sqladmin's
pages, with players' personal data)."""


class SecurityHeadersMiddleware:
    """Headers every answer carries: a Content-Security-Policy, no framing, no MIME sniffing, no
    referrer, HSTS behind TLS; and ``Cache-Control: no-store`` on the API's answers and the
    console's tables (accounts, wallets and plays must never sit in a shared or browser cache,
    nor be shown again from it by the Back button after the operator logged out)."""

    def __init__(self, app: ASGIApp, *, hsts: bool) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("ascii")),
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
        ]
        if hsts:
            self.headers.append(
                (b"strict-transport-security", b"max-age=31536000; includeSubDomains")
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        no_store = path.startswith(NO_STORE_PREFIXES) or path in {"/healthz", "/openapi.json"}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers:
                    headers.raw.append((name, value))
                if no_store:
                    headers["cache-control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeadAsGet:
    """Answers a HEAD as the GET of the same address, without its body (RFC 9110, 9.3.2).

    FastAPI's routes take only the methods they declare, so a HEAD of ``/healthz`` (a load
    balancer's or a monitor's check) was 405. Declaring HEAD on each route would put a second
    operation for every GET into the API's description; this does it once for all of them. The
    headers are the GET's, ``Content-Length`` included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        # A copy: the server's own scope must stay HEAD while the answer is sent (uvicorn then
        # expects no body; with GET it refuses the empty one). What the router notes in the copy
        # (the route: the metrics' label, read once the app returns) is copied back out.
        inner = {**scope, "method": "GET"}
        try:
            await self.app(inner, receive, without_body)
        finally:
            scope.update((key, value) for key, value in inner.items() if key != "method")
