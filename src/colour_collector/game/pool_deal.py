"""How a pool's secret fixes its plays: the commitment, the order the outcomes are dealt in, and
each play's seed. ``docs/pools.md`` states the same procedure for anyone to re-implement.

Notation: ``S`` the pool's 32-byte secret; ``N`` its size; positions ``0 .. N-1`` in the order
plays are sold; categories ``0 .. 98`` the prize tiers in table order and ``99`` no win;
``remaining[c]`` the plays of category ``c`` not dealt yet (at position 0: the tier counts, then
``N`` minus their sum).

- **parameters** (``pool_parameters``): the canonical JSON text (keys sorted, no spaces, ASCII
  only) of the procedure's name, ``size``, the ``counts`` as ``[tier name, count]`` pairs in
  table order, ``no_win`` and the game and generator versions (``game.versions``).
- **commitment** = SHA-256(parameters as UTF-8 ``||`` 0x0A ``||`` S), in hex.
- **deal number** of position ``k``, uniform in ``0 .. R-1`` where ``R = N - k``: for attempt
  ``a = 0, 1, ...``, ``v`` = HMAC-SHA256(key S, message ``"colour-collector-pool/1 deal"`` ``||``
  0x00 ``||`` k as 8 bytes big-endian ``||`` a as 4 bytes big-endian) read as a big-endian
  integer; the first ``v < 2**256 - 2**256 % R`` gives ``u = v % R`` (rejection, so no value of
  ``u`` is favoured).
- **outcome** of position ``k``: the smallest category ``c`` with
  ``u < remaining[0] + ... + remaining[c]`` (the ``u``-th undealt play when they are listed
  category by category); then ``remaining[c]`` goes down by one. Each position is thus a uniform
  pick among the plays not dealt yet: the order is a uniform shuffle of the exact counts.
- **seed** of position ``k``: HMAC-SHA256(key S, ``"colour-collector-pool/1 play"`` ``||`` 0x00
  ``||`` k as 8 bytes big-endian) as a big-endian integer; the play is
  ``generator.generate(outcome, random.Random(seed))``.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence

from colour_collector.game.draw import NO_WIN
from colour_collector.game.generator import generate
from colour_collector.game.pool_parameters import PROCEDURE, PoolDealError, PoolParameters
from colour_collector.game.prize_table import Tier, load_tiers
from colour_collector.game.record import PlayRecord

SECRET_BYTES = 32
"""Length of a pool secret: 256 bits."""
_DEAL = PROCEDURE.encode("ascii") + b" deal\x00"
_PLAY = PROCEDURE.encode("ascii") + b" play\x00"
_SPACE = 1 << 256
"""Values an HMAC-SHA256 output takes."""

Category = int
"""A position's outcome as the procedure numbers it: a tier index, or ``no_win_category()``."""
ProgressCallback = Callable[[int], None]
"""Called with the number of positions dealt so far."""


def no_win_category() -> Category:
    """The category of a play that wins nothing: one past the last tier."""
    return len(load_tiers())


def outcome_of(category: Category) -> Tier | None:
    """The tier of ``category``, or None for no win."""
    tiers = load_tiers()
    if category == len(tiers):
        return None
    if not 0 <= category < len(tiers):
        raise PoolDealError(f"category must be 0..{len(tiers)}, got {category!r}")
    return tiers[category]


def category_of_index(outcome_index: int) -> Category:
    """The category of an outcome index (``draw.NO_WIN`` or a tier index)."""
    return no_win_category() if outcome_index == NO_WIN else outcome_index


# -- the secret and the commitment ---------------------------------------------------------------


def new_secret() -> bytes:
    """A fresh pool secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def secret_from_hex(text: str) -> bytes:
    """A secret written as 64 hex digits."""
    cleaned = text.strip().lower()
    if len(cleaned) != 2 * SECRET_BYTES or cleaned.strip("0123456789abcdef"):
        raise PoolDealError(f"a pool secret is 64 hex digits, not {text[:80]!r}")
    return bytes.fromhex(cleaned)


def commitment(secret: bytes, parameters: PoolParameters) -> str:
    """The commitment: SHA-256(parameters text ``||`` 0x0A ``||`` secret), hex."""
    if len(secret) != SECRET_BYTES:
        raise PoolDealError(f"a pool secret is {SECRET_BYTES} bytes, not {len(secret)!r}")
    return hashlib.sha256(parameters.text.encode("utf-8") + b"\n" + secret).hexdigest()


# -- dealing ---------------------------------------------------------------------------------------


def deal_number(secret: bytes, position: int, total: int) -> int:
    """The deal number of ``position``: uniform in ``0 .. total-1``."""
    if total <= 0:
        raise PoolDealError(f"nothing is left to deal at position {position!r}")
    limit = _SPACE - _SPACE % total
    attempt = 0
    stem = _DEAL + position.to_bytes(8, "big")
    while True:
        value = int.from_bytes(
            hmac.digest(secret, stem + attempt.to_bytes(4, "big"), "sha256"), "big"
        )
        if value < limit:
            return value % total
        attempt += 1


def category_at(remaining: Sequence[int], number: int) -> Category:
    """The smallest category ``c`` with ``number < remaining[0] + ... + remaining[c]``."""
    running = 0
    for category, count in enumerate(remaining):
        running += count
        if number < running:
            return category
    raise PoolDealError(f"deal number {number!r} is not below the {running!r} plays remaining")


def deal_one(
    secret: bytes, position: int, remaining: Sequence[int]
) -> tuple[Category, tuple[int, ...]]:
    """Deal ``position`` from ``remaining``: its category and what remains after it."""
    category = category_at(remaining, deal_number(secret, position, sum(remaining)))
    after = list(remaining)
    after[category] -= 1
    return category, tuple(after)


class Dealer:
    """Deals positions one after the other, as ``deal_one`` does, fast enough for 6,500,000.

    Most deals are a £5 play (the first category) or no win (the last): two comparisons. The
    tiers between are found in a Fenwick tree of their remaining counts.
    """

    __slots__ = ("_base", "_fenwick", "_first", "_last", "_total", "position")

    def __init__(self, secret: bytes, remaining: Sequence[int], position: int = 0) -> None:
        """Start at ``position`` with ``remaining`` undealt plays of each category."""
        if len(remaining) != no_win_category() + 1:
            raise PoolDealError(
                f"remaining needs {no_win_category() + 1} counts, got {len(remaining)!r}"
            )
        self.position = position
        """The next position to deal."""
        self._base = hmac.new(secret, _DEAL, hashlib.sha256)
        self._first = remaining[0]
        self._last = remaining[-1]
        self._fenwick = _Fenwick(remaining[1:-1])
        self._total = sum(remaining)

    def _number(self) -> int:
        total = self._total
        if total <= 0:
            raise PoolDealError(f"nothing is left to deal at position {self.position!r}")
        limit = _SPACE - _SPACE % total
        stem = self.position.to_bytes(8, "big")
        attempt = 0
        while True:
            digest = self._base.copy()
            digest.update(stem + attempt.to_bytes(4, "big"))
            value = int.from_bytes(digest.digest(), "big")
            if value < limit:
                return value % total
            attempt += 1

    def deal(self) -> Category:
        """Deal the next position; its category."""
        number = self._number()
        if number < self._first:
            self._first -= 1
            category = 0
        elif number >= self._total - self._last:
            self._last -= 1
            category = self._fenwick.size + 1
        else:
            found = self._fenwick.find(number - self._first)
            self._fenwick.add(found, -1)
            category = found + 1
        self._total -= 1
        self.position += 1
        return category

    def skip(self, positions: int) -> None:
        """Deal ``positions`` positions without keeping their categories."""
        for _ in range(positions):
            self.deal()

    @property
    def remaining(self) -> tuple[int, ...]:
        """The undealt plays of each category."""
        return (self._first, *self._fenwick.values(), self._last)


class _Fenwick:
    """Prefix sums of a list of counts that go down one at a time (a Fenwick tree)."""

    __slots__ = ("_top", "size", "tree")

    def __init__(self, values: Sequence[int]) -> None:
        self.size = len(values)
        self.tree = [0] * (self.size + 1)
        for index, value in enumerate(values):
            self.add(index, value)
        self._top = 1 << (self.size.bit_length() - 1) if self.size else 0

    def add(self, index: int, delta: int) -> None:
        """Add ``delta`` to value ``index``."""
        position = index + 1
        tree, size = self.tree, self.size
        while position <= size:
            tree[position] += delta
            position += position & -position

    def find(self, number: int) -> int:
        """The smallest index ``i`` with ``number < values[0] + ... + values[i]``."""
        position, step, tree, size = 0, self._top, self.tree, self.size
        while step:
            upper = position + step
            if upper <= size and tree[upper] <= number:
                position = upper
                number -= tree[upper]
            step >>= 1
        return position

    def values(self) -> tuple[int, ...]:
        """The counts."""
        prefix = [0] * (self.size + 1)
        for index in range(1, self.size + 1):
            total, position = 0, index
            while position > 0:
                total += self.tree[position]
                position -= position & -position
            prefix[index] = total
        return tuple(prefix[i + 1] - prefix[i] for i in range(self.size))


def categories(
    secret: bytes,
    parameters: PoolParameters,
    start: int,
    stop: int,
    progress: ProgressCallback | None = None,
) -> bytes:
    """The categories of positions ``start .. stop-1``, one byte each (dealt from position 0)."""
    if not 0 <= start <= stop <= parameters.size:
        raise PoolDealError(
            f"positions {start!r}..{stop!r} are not within the pool's 0..{parameters.size!r}"
        )
    dealer = Dealer(secret, parameters.start)
    found = bytearray()
    step = 65_536
    while dealer.position < stop:
        upto = min(stop, dealer.position + step)
        if dealer.position < start:
            upto = min(upto, start)
            dealer.skip(upto - dealer.position)
        else:
            deal = dealer.deal
            found.extend(deal() for _ in range(upto - dealer.position))
        if progress is not None:
            progress(dealer.position)
    return bytes(found)


def remaining_at(
    secret: bytes,
    parameters: PoolParameters,
    position: int,
    progress: ProgressCallback | None = None,
) -> tuple[int, ...]:
    """What remains undealt before ``position`` is dealt."""
    if not 0 <= position <= parameters.size:
        raise PoolDealError(
            f"position {position!r} is not within the pool's 0..{parameters.size!r}"
        )
    dealer = Dealer(secret, parameters.start)
    while dealer.position < position:
        dealer.skip(min(65_536, position - dealer.position))
        if progress is not None:
            progress(dealer.position)
    return dealer.remaining


# -- the plays -------------------------------------------------------------------------------------


def play_seed(secret: bytes, position: int) -> int:
    """The seed of the play at ``position``."""
    return int.from_bytes(hmac.digest(secret, _PLAY + position.to_bytes(8, "big"), "sha256"), "big")


def play_rng(secret: bytes, position: int) -> random.Random:
    """The random source the play at ``position`` is generated from."""
    return random.Random(play_seed(secret, position))


def play_at(secret: bytes, position: int, category: Category) -> PlayRecord:
    """The play at ``position``, whose outcome is ``category``."""
    return generate(outcome_of(category), play_rng(secret, position))


def checkpoints(
    secret: bytes,
    parameters: PoolParameters,
    every: int,
    progress: ProgressCallback | None = None,
) -> list[tuple[int, tuple[int, ...]]]:
    """What remains undealt before positions ``0, every, 2 * every, ...`` of the pool."""
    if every <= 0:
        raise PoolDealError(f"checkpoints need a positive spacing, not {every!r}")
    dealer = Dealer(secret, parameters.start)
    found = [(0, dealer.remaining)]
    while dealer.position < parameters.size:
        dealer.skip(min(every, parameters.size - dealer.position))
        if dealer.position < parameters.size:
            found.append((dealer.position, dealer.remaining))
        if progress is not None:
            progress(dealer.position)
    return found
