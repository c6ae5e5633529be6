"""Play Numbers: unique, readable, with a check character.

``CC-7K3D-9QXM-4``: eight random Crockford base-32 characters (40 bits from ``secrets``) in two
groups, then one check character: the value of the eight characters modulo 37, written with
Crockford's check symbols. A mistyped character or two swapped neighbours are caught before any
database look-up.
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford base 32: no I, L, O or U."""
CHECK_SYMBOLS = ALPHABET + "*~$=U"
"""The 37 check symbols of Crockford's scheme."""
PATTERN = re.compile(r"^CC-([0-9A-HJKMNP-TV-Z]{4})-([0-9A-HJKMNP-TV-Z]{4})-([0-9A-Z*~$=])$")


class PlayNumberError(ValueError):
    """Text that cannot be a Play Number."""


def check_symbol(body: str) -> str:
    """The check character of eight base-32 characters."""
    value = 0
    for char in body:
        value = value * 32 + ALPHABET.index(char)
    return CHECK_SYMBOLS[value % 37]


def new_play_number() -> str:
    """A fresh random Play Number."""
    body = "".join(secrets.choice(ALPHABET) for _ in range(8))
    return f"CC-{body[:4]}-{body[4:]}-{check_symbol(body)}"


def parse_play_number(text: str) -> str:
    """The canonical Play Number in ``text`` (case and surrounding spaces ignored), or raise."""
    canonical = text.strip().upper()
    match = PATTERN.match(canonical)
    if match is None:
        raise PlayNumberError(f"{text!r} is not a Play Number (expected the form CC-XXXX-XXXX-C)")
    body = match.group(1) + match.group(2)
    if check_symbol(body) != match.group(3):
        raise PlayNumberError(f"{text!r} is not a Play Number: its check character is wrong")
    return canonical
