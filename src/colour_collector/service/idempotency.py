"""Idempotency-Keys: what a client sends with a request that moves money (a purchase, a
deposit) so that a retry after a lost answer gets the first answer instead of a second action."""

from __future__ import annotations

from typing import NoReturn

from colour_collector.service.errors import InvalidInputError

MAX_IDEMPOTENCY_KEY = 255
"""Longest accepted Idempotency-Key."""


def check_idempotency_key(key: str | None) -> str | None:
    """The key, if acceptable: 1 to 255 printable ASCII characters."""
    if key is None:
        return None
    if not 0 < len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise InvalidInputError(
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters",
            field="Idempotency-Key",
        )
    return key


def refuse_reuse(key: str, earlier: str) -> NoReturn:
    """Refuse a request whose Idempotency-Key an earlier, different request used (``earlier``
    says what that one was): answering the earlier one would hide the difference from the
    client, and acting on this one would break the key's promise."""
    raise InvalidInputError(
        f"Idempotency-Key {key!r} was used for another request ({earlier})",
        field="Idempotency-Key",
    )
