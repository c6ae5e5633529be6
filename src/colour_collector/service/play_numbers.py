"""Play Numbers: unique, easy to read out, with a check character.

``CC-7K3-D9Q-XM4``: eight random Crockford base-32 characters (40 bits from ``secrets``) and one
check character, in three groups of three. Every character, the check character included, is one
of the 32 letters and digits of Crockford's alphabet (no I, L, O or U, no punctuation), so a
player can read the number to customer support over the phone.

The check character makes the weighted sum of the nine characters zero in the field GF(32)
(characters are the field's elements, the weight of position ``k`` from the end is ``x**k`` for a
primitive element ``x``). Because the sum is linear, a change ``e`` at one position changes it by
``x**k * e``, never zero: every single-character typo is caught. Swapping two different neighbours
``a``, ``b`` changes it by ``x**k * (x + 1) * (a + b)``, never zero either (``x`` is not 1): every
adjacent swap is caught, the one across a hyphen too. Both are caught before any database look-up;
``tests/unit/test_play_numbers.py`` checks them exhaustively.

Play Numbers issued before this form (``CC-7K3D-9QXM-4``: two groups of four, then a check
character modulo 37 from Crockford's check symbols, which include ``*``, ``~``, ``$``, ``=`` and
``U``) are still recognised, by their different grouping, and checked with their own scheme.
"""

from __future__ import annotations

import re
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford base 32: no I, L, O or U."""
ALIASES = str.maketrans({"O": "0", "I": "1", "L": "1"})
"""Crockford's decoding aliases: a letter read out for a digit means that digit."""
PATTERN = re.compile(r"^CC-([0-9A-Z]{3})-([0-9A-Z]{3})-([0-9A-Z]{3})$")
"""The form issued now, after separators are normalised (aliases not yet resolved)."""

LEGACY_CHECK_SYMBOLS = ALPHABET + "*~$=U"
"""The 37 check symbols of Crockford's modulo-37 scheme, used by the first Play Numbers."""
LEGACY_PATTERN = re.compile(r"^CC-([0-9A-HJKMNP-TV-Z]{4})-([0-9A-HJKMNP-TV-Z]{4})-([0-9A-Z*~$=])$")
"""The first form, ``CC-XXXX-XXXX-C``: still recalled, no longer issued."""

_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015]+")
"""Hyphens, dashes and spaces between groups: all read as one hyphen."""
_COMPACT = re.compile(r"^CC([0-9A-Z]{3})([0-9A-Z]{3})([0-9A-Z]{3})$")
"""The current form with its separators left out, or some of them."""
_LEGACY_COMPACT = re.compile(r"^CC([0-9A-HJKMNP-TV-Z]{4})([0-9A-HJKMNP-TV-Z]{4})([0-9A-Z*~$=])$")
"""The first form with its separators left out: as long as the current form's."""
_POLYNOMIAL = 0b100101
"""x**5 + x**2 + 1, primitive: GF(32) is the polynomials over GF(2) modulo it."""
_GENERATOR = 0b00010
"""x, a primitive element of GF(32): the weight of each position is a power of it."""


class PlayNumberError(ValueError):
    """Text that cannot be a Play Number."""


def _times(a: int, b: int) -> int:
    """``a * b`` in GF(32)."""
    product = 0
    while b:
        if b & 1:
            product ^= a
        b >>= 1
        a <<= 1
        if a & 0b100000:
            a ^= _POLYNOMIAL
    return product


def _weighted_sum(chars: str) -> int:
    """``sum(c_i * x**(n - 1 - i))`` over the characters, in GF(32) (Horner's rule)."""
    total = 0
    for char in chars:
        total = _times(total, _GENERATOR) ^ ALPHABET.index(char)
    return total


def check_symbol(body: str) -> str:
    """The check character of eight base-32 characters: the nine then sum to zero."""
    return ALPHABET[_times(_weighted_sum(body), _GENERATOR)]


def legacy_check_symbol(body: str) -> str:
    """The check character of a first-form Play Number (value of the body modulo 37)."""
    value = 0
    for char in body:
        value = value * 32 + ALPHABET.index(char)
    return LEGACY_CHECK_SYMBOLS[value % 37]


def new_play_number() -> str:
    """A fresh random Play Number."""
    body = "".join(secrets.choice(ALPHABET) for _ in range(8))
    full = body + check_symbol(body)
    return f"CC-{full[:3]}-{full[3:6]}-{full[6:]}"


def parse_play_number(text: str) -> str:
    """The canonical Play Number in ``text``, or raise :class:`PlayNumberError`.

    Case, surrounding spaces and the separators between groups (spaces, hyphens, dashes) are
    ignored, and so is their absence (``CC153WKQGAH``, as a number read out over the phone is
    often typed); in the current form O, I and L are read as 0, 1 and 1. A first-form number is
    returned as it was issued.
    """
    normal = _SEPARATORS.sub("-", text.strip().upper())
    if PATTERN.match(normal) is None and LEGACY_PATTERN.match(normal) is None:
        normal = _regrouped(normal.replace("-", ""))
    match = PATTERN.match(normal)
    if match is not None:
        chars = "".join(match.groups()).translate(ALIASES)
        if any(char not in ALPHABET for char in chars):
            raise PlayNumberError(f"{text!r} is not a Play Number: it has a letter never used")
        if _weighted_sum(chars) != 0:
            raise PlayNumberError(f"{text!r} is not a Play Number: its check character is wrong")
        return f"CC-{chars[:3]}-{chars[3:6]}-{chars[6:]}"
    legacy = LEGACY_PATTERN.match(normal)
    if legacy is not None:
        body = legacy.group(1) + legacy.group(2)
        if legacy_check_symbol(body) != legacy.group(3):
            raise PlayNumberError(f"{text!r} is not a Play Number: its check character is wrong")
        return normal
    raise PlayNumberError(f"{text!r} is not a Play Number (expected the form CC-XXX-XXX-XXX)")


def _regrouped(compact: str) -> str:
    """``compact``, a Play Number typed without (all) its separators, in the groups it was issued
    in. Both forms are as long: it is read in the first form only when that form's check
    character holds and the current form's does not (numbers are issued in the current form; a
    first-form number that also passes the current check, about one in 32, must be typed with
    its hyphens)."""
    current = _COMPACT.match(compact)
    grouped = None if current is None else "CC-{}-{}-{}".format(*current.groups())
    if grouped is not None:
        chars = grouped[3:].replace("-", "").translate(ALIASES)
        if all(char in ALPHABET for char in chars) and _weighted_sum(chars) == 0:
            return grouped
    legacy = _LEGACY_COMPACT.match(compact)
    if legacy is not None and legacy_check_symbol(legacy[1] + legacy[2]) == legacy[3]:
        return "CC-{}-{}-{}".format(*legacy.groups())
    return grouped or compact  # refused below, saying why
