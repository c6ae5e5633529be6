"""The pool file: a pool's secret, its parameters and its commitment, as JSON (a few kilobytes).

Everything else about a pool (the order of its outcomes, every play) is derived from the secret
(``pool_deal``), so the file stays small. It is written by ``colour-collector pool build`` and read
by ``pool verify``, ``pool report`` and ``pool load``; it holds the secret, so it is written
readable by its owner only and must be kept as the operator keeps the pool (docs/pools.md).

```json
{"format": "colour-collector-pool", "version": 1, "created_at": "2026-12-15T10:00:00Z",
 "secret": "<64 hex digits>", "parameters": {...}, "commitment": "<64 hex digits>"}
```

Reading is strict: a missing or unknown field or a value of the wrong type is refused with a
``PoolFileError`` naming the field. A file whose commitment is not the one its secret and
parameters give was altered: :meth:`PoolFile.check` refuses it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from colour_collector.game import strict_json
from colour_collector.game.errors import GameError
from colour_collector.game.pool_deal import commitment, new_secret, secret_from_hex
from colour_collector.game.pool_parameters import PoolDealError, PoolParameters

FORMAT = "colour-collector-pool"
"""Value of the ``format`` field."""
VERSION = 1
"""Version of the file format."""
MAX_BYTES = 1 << 20
"""A pool file is a few kilobytes; anything over a mebibyte is refused unread."""


class PoolFileError(GameError, ValueError):
    """A pool file cannot be read, or was altered; the message names the field."""


@dataclass(frozen=True, slots=True)
class PoolFile:
    """A pool as its operator holds it."""

    secret: bytes
    """The 32-byte secret every play is derived from."""
    parameters: PoolParameters
    """Size, prize structure and versions."""
    commitment: str
    """SHA-256 of parameters and secret (hex): published before the sale."""
    created_at: dt.datetime
    """When the pool was built (UTC)."""

    def __repr__(self) -> str:
        """The pool without its secret (a repr ends up in logs)."""
        return (
            f"PoolFile(commitment={self.commitment!r}, size={self.parameters.size!r},"
            f" created_at={self.created_at!r})"
        )

    @classmethod
    def build(
        cls, parameters: PoolParameters, now: dt.datetime, secret: bytes | None = None
    ) -> PoolFile:
        """A new pool: a fresh secret (or ``secret``) and its commitment."""
        fixed = new_secret() if secret is None else secret
        return cls(fixed, parameters, commitment(fixed, parameters), now)

    def check(self) -> None:
        """Raise ``PoolFileError`` if the commitment is not the one the secret and parameters
        give (the file was altered)."""
        expected = commitment(self.secret, self.parameters)
        if expected != self.commitment:
            raise PoolFileError(
                f"the pool file's commitment {self.commitment[:16]}... is not the one its secret"
                f" and parameters give ({expected[:16]}...): the file was altered"
            )


def dumps(pool: PoolFile) -> str:
    """The JSON text of ``pool``."""
    data = {
        "format": FORMAT,
        "version": VERSION,
        "created_at": pool.created_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "secret": pool.secret.hex(),
        "parameters": json.loads(pool.parameters.text),
        "commitment": pool.commitment,
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def loads(text: str | bytes) -> PoolFile:
    """Read a pool file (it is not checked against its commitment: see :meth:`PoolFile.check`)."""
    if len(text) > MAX_BYTES:
        raise PoolFileError(f"a pool file is a few kilobytes, not {len(text):,} bytes")
    try:
        data = strict_json.parse(text)
    except strict_json.StrictJsonError as error:
        raise PoolFileError(f"the pool file {error}") from None
    names = {"format", "version", "created_at", "secret", "parameters", "commitment"}
    if not isinstance(data, dict):
        raise PoolFileError(f"a pool file is a JSON object, not {type(data).__name__}")
    missing = sorted(names - set(data))
    if missing:
        raise PoolFileError(f"the pool file lacks {', '.join(map(repr, missing))}")
    unknown = sorted(set(data) - names)
    if unknown:
        raise PoolFileError(f"the pool file has unknown field(s) {unknown!r}")
    if data["format"] != FORMAT:
        raise PoolFileError(f"field 'format' must be {FORMAT!r}, not {data['format']!r}")
    if type(data["version"]) is not int or data["version"] != VERSION:
        raise PoolFileError(f"field 'version' must be {VERSION}, not {data['version']!r}")
    created = data["created_at"]
    try:
        if not isinstance(created, str) or not created.endswith("Z"):
            raise ValueError(created)
        created_at = dt.datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    except ValueError:
        raise PoolFileError(
            f"field 'created_at' must be a UTC time YYYY-MM-DDTHH:MM:SSZ, not {created!r}"
        ) from None
    if not isinstance(data["secret"], str):
        raise PoolFileError(f"field 'secret' must be 64 hex digits, not {data['secret']!r}")
    commitment_text = data["commitment"]
    if (
        not isinstance(commitment_text, str)
        or len(commitment_text) != 64
        or commitment_text.strip("0123456789abcdef")
    ):
        raise PoolFileError(
            f"field 'commitment' must be 64 lower-case hex digits, not {commitment_text!r}"
        )
    try:
        secret = secret_from_hex(data["secret"])
    except PoolDealError as error:
        raise PoolFileError(f"field 'secret': {error}") from None
    canonical = json.dumps(
        data["parameters"], sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    try:
        parameters = PoolParameters.from_text(canonical)
    except PoolDealError as error:
        raise PoolFileError(f"field 'parameters': {error}") from None
    return PoolFile(secret, parameters, commitment_text, created_at)
