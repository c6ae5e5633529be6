"""A small HTTP/1.1 keep-alive client on asyncio streams, for the load benchmark.

httpx on asyncio costs about as much CPU a request as the server does, and the load generator
shares the server's two cores, so the benchmark talks HTTP itself: one persistent connection a
player, requests written whole, answers read by ``Content-Length`` (or chunked), cookies kept
by name. It speaks only what our server answers; it is not a general client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import default
from pathlib import Path
from typing import Any


class ConnectionLostError(Exception):
    """The server closed the connection or answered something that is not HTTP/1.1."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A response: status code and body."""

    status: int
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8", "replace")


class LeanClient:
    """One keep-alive connection to ``host:port`` with a cookie jar and default headers."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.cookies: dict[str, str] = {}
        self.headers: dict[str, str] = {}
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    @property
    def local_port(self) -> int | None:
        """The port of this end of the connection (None when not connected)."""
        if self._writer is None:
            return None
        name = self._writer.get_extra_info("sockname")
        return None if name is None else int(name[1])

    async def close(self) -> None:
        """Close the connection."""
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()
        self._reader = self._writer = None

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """``GET path``."""
        return await self.request("GET", path, None, headers)

    async def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Answer:
        """``POST path`` with a JSON body."""
        return await self.request("POST", path, body, headers)

    async def request(
        self, method: str, path: str, body: Any, headers: dict[str, str] | None = None
    ) -> Answer:
        """Send one request and read its answer (reconnecting once if the server closed)."""
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        for name, value in {**self.headers, **(headers or {})}.items():
            lines.append(f"{name}: {value}")
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if body is not None:
            lines.append("Content-Type: application/json")
            lines.append(f"Content-Length: {len(payload)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        for attempt in (1, 2):
            reader, writer = await self._connect()
            try:
                writer.write(head + payload)
                return await self._read(reader)
            except (ConnectionError, asyncio.IncompleteReadError, ConnectionLostError):
                await self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _read(self, reader: asyncio.StreamReader) -> Answer:
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ConnectionLostError(f"not an HTTP answer: {status_line!r}")
        length, chunked, close = None, False, False
        for line in header_lines:
            if not line:
                continue
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
            elif name == "connection" and value.lower() == "close":
                close = True
            elif name == "set-cookie":
                pair = value.split(";", 1)[0]
                key, _, cookie = pair.partition("=")
                self.cookies[key.strip()] = cookie.strip()
        if chunked:
            body = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
        else:
            body = await reader.readexactly(length or 0)
        if close:
            await self.close()
        return Answer(int(parts[1]), body)


_LINK = re.compile(r"#/confirm/([A-Za-z0-9_-]{43})")


def confirmation_token(outbox: Path, email: str) -> str:
    """The token of the newest confirmation link a test server wrote to its outbox directory
    (``COLOUR_COLLECTOR_MAIL_OUTBOX_DIR``, default ``<data dir>/outbox``) for ``email``."""
    for path in sorted(outbox.glob("*.eml"), reverse=True):
        mail = BytesParser(policy=default).parsebytes(path.read_bytes())
        if str(mail["To"]) == email:
            found = _LINK.search(mail.get_body(preferencelist=("plain",)).get_content())
            if found:
                return found.group(1)
    raise LookupError(f"no confirmation link for {email!r} in {outbox}")
