"""Prize pools: load one for sale, close one and publish its secret, and what anyone may see.

A pool is fixed by a secret before its sale (``game.pool_deal``): the order of its outcomes and
every play. The operator loads its pool file into the server; the server keeps the secret
**sealed** (XORed with an HMAC of the pool's commitment under a key derived from the server's
``SECRET_KEY``), so the database, its backups and an operator's console hold nothing that tells
the order. Purchases deal the pool's positions in order (``service.outcomes.PoolSource``); the
pools go on sale in the order they were loaded. Closing a pool publishes its secret, after which
anyone can regenerate any of its plays and check it against the commitment published before
the sale (docs/pools.md).
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from colour_collector.game.pool_deal import (
    Dealer,
    ProgressCallback,
    categories,
    checkpoints,
    commitment,
)
from colour_collector.game.pool_file import PoolFile, PoolFileError
from colour_collector.game.pool_parameters import PoolParameters, PoolVersionError, check_versions
from colour_collector.service import audit
from colour_collector.service.clock import utcnow
from colour_collector.service.errors import (
    DuplicatePoolError,
    PoolNotClosedError,
    PoolNotFoundError,
    PoolRefusedError,
    PoolSecretError,
)
from colour_collector.service.models import AuditKind
from colour_collector.service.pool_models import PoolId, SoldPlay, StoredPool
from colour_collector.service.pool_sale_check import check_none_beyond, check_sold
from colour_collector.service.ports import UnitOfWorkFactory

log = logging.getLogger(__name__)

SEAL_KEY_LABEL = b"colour-collector pool seal key/1"
"""HMAC message deriving the seal key from the server's ``SECRET_KEY``."""
SEAL_LABEL = b"colour-collector pool seal/1\x00"
"""HMAC message prefix (then the commitment) of a pool's seal."""
CHECKPOINT_EVERY = 4_096
"""Positions between the checkpoints stored when a pool closes: a play of a closed pool is
regenerated from the checkpoint before it in at most this many deals."""


def parameters_of(pool: StoredPool) -> PoolParameters:
    """The stored pool's parameters (read once a process: the text is a memo's key)."""
    return PoolParameters.from_text(pool.parameters)


# -- the seal --------------------------------------------------------------------------------------


def published(pool: StoredPool | None, pool_id: PoolId) -> tuple[StoredPool, bytes]:
    """``pool`` (read by ``pool_id``) and its published secret, for what checks its plays:
    ``PoolNotFoundError`` when there is no such pool, ``PoolNotClosedError`` until its secret is
    published."""
    if pool is None:
        raise PoolNotFoundError(f"there is no pool {pool_id!r}")
    if pool.secret is None:
        raise PoolNotClosedError(
            f"pool {pool_id}'s secret is not published yet: it is published once the pool is"
            " closed and every play of it is finished"
        )
    return pool, bytes.fromhex(pool.secret)


def seal_key(server_secret: str) -> bytes:
    """The key sealing pool secrets, derived from the server's ``SECRET_KEY``."""
    return hmac.digest(server_secret.encode("utf-8"), SEAL_KEY_LABEL, "sha256")


def _pad(commitment_hex: str, key: bytes) -> bytes:
    return hmac.digest(key, SEAL_LABEL + commitment_hex.encode("ascii"), "sha256")


def seal(secret: bytes, commitment_hex: str, key: bytes) -> str:
    """``secret`` sealed for the pool with this commitment (hex)."""
    return bytes(a ^ b for a, b in zip(secret, _pad(commitment_hex, key), strict=True)).hex()


def unseal(pool: StoredPool, parameters: PoolParameters, key: bytes) -> bytes:
    """The pool's secret; ``PoolSecretError`` if ``key`` is not the one it was sealed with."""
    sealed = bytes.fromhex(pool.sealed_secret)
    secret = bytes(a ^ b for a, b in zip(sealed, _pad(pool.commitment, key), strict=True))
    if commitment(secret, parameters) != pool.commitment:
        raise PoolSecretError(
            f"pool {pool.id}'s secret cannot be unsealed with this COLOUR_COLLECTOR_SECRET_KEY:"
            " the pool was loaded with another. Load the pool file again (pool load) from a"
            " shell with the server's key"
        )
    return secret


# -- whether the pool on sale can be sold from ----------------------------------------------------


def _check_sellable(pool: StoredPool, *, published_only: bool) -> PoolParameters:
    """``pool``'s parameters; ``PoolRefusedError`` saying why (for the operator: the fix) when
    this server may not sell it, whatever its key: built with another version of the game, or
    (``published_only``, a production server) of another prize structure than the published
    one."""
    parameters = parameters_of(pool)
    try:
        check_versions(parameters)
    except PoolVersionError as error:
        raise PoolRefusedError(str(error)) from None
    if published_only and not parameters.is_published:
        raise PoolRefusedError(
            f"pool {pool.id} of {parameters.size:,} plays does not have the published prize"
            " structure, and a production server sells no other: withdraw it"
            f" (pool close {pool.id} --withdraw)"
        )
    return parameters


@dataclass(frozen=True, slots=True)
class Sale:
    """How a server that deals its plays from the pools sells them: one that draws every play
    independently has none (``None`` wherever a ``Sale`` is asked for)."""

    key: bytes
    """The key the pools' secrets are sealed with (:func:`seal_key` of the server's)."""
    published_only: bool
    """Whether it sells only pools of the published prize structure (production)."""

    def secret(self, pool: StoredPool) -> bytes:
        """The secret of ``pool``, to deal from it; ``PoolRefusedError`` saying why when this
        server cannot sell it: :func:`_check_sellable`, or a secret sealed with another key."""
        parameters = _check_sellable(pool, published_only=self.published_only)
        try:
            return unseal(pool, parameters, self.key)
        except PoolSecretError as error:
            raise PoolRefusedError(str(error)) from None

    def refusal(self, pool: StoredPool) -> str | None:
        """Why no play of ``pool`` can be sold, for the operator (None when they can): what
        :meth:`secret` would raise."""
        try:
            self.secret(pool)
        except PoolRefusedError as error:
            return str(error)
        return None


def sale_problem(factory: UnitOfWorkFactory, sale: Sale | None) -> str | None:
    """Why plays cannot be sold from the pools loaded, for the console and ``pool list`` (None
    when they can, or when none is waiting): the pool on sale, and each queued after it that
    this server will refuse when its turn comes. ``sale``: the server's (None: it draws every
    play independently)."""
    with factory() as uow:
        unsold = uow.pools.unsold()
    if not unsold:
        return None
    if sale is None:
        return (
            f"{len(unsold)} prize pool{'s' if len(unsold) != 1 else ''} loaded and not sold out,"
            " but this server draws every play independently (COLOUR_COLLECTOR_DRAW_MODE is not"
            " pool): nothing is sold from them"
        )
    problems = []
    for place, pool in enumerate(unsold):
        refused = sale.refusal(pool)
        if refused is None:
            continue
        if place == 0:  # on sale
            problems.append(f"no play can be sold: {refused}")
        else:
            problems.append(f"pool {pool.id}, queued, will not sell when its turn comes: {refused}")
    return "; ".join(problems) or None


# -- loading ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Loaded:
    """The answer to loading a pool file."""

    pool: StoredPool
    """The pool as stored."""
    created: bool
    """False when the pool was loaded before (its secret is sealed again with the key in use)."""
    ahead: int
    """Pools that go on sale before it (loaded before it, neither sold out nor closed)."""
    other_keys: tuple[PoolId, ...] = ()
    """Pools waiting to sell (this one, if it was loaded before) that were sealed with another
    key than this load's: a server with this key cannot sell them, and, if its key is theirs,
    cannot sell this one."""


def load(
    factory: UnitOfWorkFactory,
    pool_file: PoolFile,
    key: bytes,
    *,
    published_only: bool,
    now: dt.datetime | None = None,
) -> Loaded:
    """Load a pool for sale after the pools loaded before it.

    Refused (``PoolRefusedError``) if the file was altered, was built with another version of the
    game, or (``published_only``) holds another prize structure than the published one. Loading
    the same pool again seals its secret with ``key`` again and changes nothing else.
    """
    try:
        pool_file.check()
        check_versions(pool_file.parameters)
    except (PoolFileError, PoolVersionError) as error:
        raise PoolRefusedError(str(error)) from None
    parameters = pool_file.parameters
    if published_only and not parameters.is_published:
        raise PoolRefusedError(
            f"this pool of {parameters.size:,} plays does not have the published prize structure"
            " (6,500,000 plays, the counts of `colour-collector prizes`); only test and"
            " development servers sell other structures"
        )
    at = now or utcnow()
    sealed = seal(pool_file.secret, pool_file.commitment, key)
    with factory() as uow:
        found = uow.pools.by_commitment(pool_file.commitment)
        unsold = uow.pools.unsold()
        # Told before the seal changes: which pools waiting to sell this key does not unseal.
        other_keys = tuple(p.id for p in unsold if not _unseals(p, key))
        if found is not None:
            locked = uow.pools.get_for_update(found.id)
            if locked is None or locked.closed_at is not None:
                raise PoolRefusedError(f"pool {found.id} is closed: it cannot be loaded again")
            uow.pools.save(replace(locked, sealed_secret=sealed))
            pool, created = locked, False
        else:
            try:
                pool = uow.pools.add(
                    StoredPool(
                        id=0,
                        commitment=pool_file.commitment,
                        parameters=parameters.text,
                        size=parameters.size,
                        sealed_secret=sealed,
                        secret=None,
                        remaining=parameters.start,
                        dealt=0,
                        loaded_at=at,
                        started_at=None,
                        sold_out_at=None,
                        closed_at=None,
                    )
                )
            except DuplicatePoolError:
                raise PoolRefusedError("this pool was loaded meanwhile; load it again") from None
            created = True
        ahead = sum(1 for p in unsold if p.id < pool.id)
        audit.append(
            uow,
            AuditKind.POOL_LOADED,
            None,
            {
                "pool": pool.id,
                "commitment": pool.commitment,
                "size": pool.size,
                "published_structure": parameters.is_published,
                "again": not created,
            },
            now=at,
        )
        uow.commit()
    return Loaded(pool, created, ahead, other_keys)


def _unseals(pool: StoredPool, key: bytes) -> bool:
    """Whether ``key`` is the one ``pool``'s secret was sealed with (whatever else a server would
    refuse it for: ``pool load`` warns of the key alone)."""
    try:
        unseal(pool, parameters_of(pool), key)
    except PoolSecretError:
        return False
    return True


# -- closing ---------------------------------------------------------------------------------------


def _remaining_from_checkpoints(
    secret: bytes, marks: Sequence[tuple[int, tuple[int, ...]]], position: int
) -> tuple[int, ...]:
    base, remaining = max((m for m in marks if m[0] <= position), key=lambda m: m[0])
    dealer = Dealer(secret, remaining, base)
    dealer.skip(position - base)
    return dealer.remaining


def close(
    factory: UnitOfWorkFactory,
    pool_id: PoolId,
    key: bytes,
    *,
    withdraw: bool,
    secret: bytes | None = None,
    now: dt.datetime | None = None,
    progress: ProgressCallback | None = None,
    checking: ProgressCallback | None = None,
) -> StoredPool:
    """Close a pool (no more sales) and publish its secret once no play of it is unfinished;
    the pool as it is then (as it was, if its secret was published before).

    The secret is unsealed with ``key``, or given (from the pool file) when the key changed. A
    pool with plays still unsold is closed only when ``withdraw`` is true: it stops selling. Its
    checkpoints are worked out from the secret (every ``CHECKPOINT_EVERY`` positions, a pass over
    the whole pool; ``progress``), and the sale is checked against them: what the stored pool
    says remains undealt must be what the secret's deal leaves after as many plays. Then each
    sold play is checked against the secret's deal (a pass over the positions sold;
    ``checking``): the tier and prize it was sold with must be its position's
    (``service.pool_sale_check``).

    While a play of the pool is in progress its prize is not revealed yet, and the secret would
    tell it: the pool is closed (its ``closed_at``: no more sales, the next pool goes on sale)
    but its secret stays sealed (``secret`` None). Closing it again once its plays are finished
    (by their players, or by the auto-finisher after ``finish_by``) publishes it.
    """
    with factory() as uow:
        found = uow.pools.get(pool_id)
    if found is None:
        raise PoolNotFoundError(f"there is no pool {pool_id!r}")
    if found.secret is not None:
        return found
    parameters = parameters_of(found)
    if secret is None:
        try:
            secret = unseal(found, parameters, key)
        except PoolSecretError as error:
            raise PoolSecretError(
                f"{error}, or close it with the pool file (pool close {pool_id} --pool-file FILE)"
            ) from None
    elif commitment(secret, parameters) != found.commitment:
        raise PoolSecretError(
            f"this secret does not match pool {pool_id}'s commitment {found.commitment[:16]}..."
        )
    if found.closed_at is None and not found.sold_out and not withdraw:
        raise PoolRefusedError(
            f"pool {pool_id} still has {found.left:,} of {found.size:,} plays unsold; to stop"
            " selling it and publish its secret, withdraw it (pool close --withdraw)"
        )
    marks = checkpoints(secret, parameters, CHECKPOINT_EVERY, progress)
    checked = found.dealt  # the plays sold so far keep their positions and tiers: checked outside

    def read(after: int, limit: int) -> Sequence[SoldPlay]:  # a transaction a batch
        with factory() as uow:
            return uow.plays.sold_from(pool_id, after, limit)

    check_sold(pool_id, read, categories(secret, parameters, 0, checked, checking))
    at = now or utcnow()
    with factory() as uow:
        pool = uow.pools.get_for_update(pool_id)
        if pool is None:
            raise PoolNotFoundError(f"there is no pool {pool_id!r}")
        if pool.secret is not None:
            return pool
        if pool.closed_at is None and not pool.sold_out and not withdraw:
            raise PoolRefusedError(f"pool {pool_id} is not sold out; withdraw it to close it")
        if _remaining_from_checkpoints(secret, marks, pool.dealt) != pool.remaining:
            raise PoolRefusedError(
                f"pool {pool_id}'s sale does not follow its secret: after {pool.dealt:,} plays"
                " the stored remaining counts differ from the deal's; nothing was published"
            )
        locked = partial(uow.plays.sold_from, pool_id)
        if pool.dealt > checked:  # sold while the check ran: a pool withdrawn while on sale
            later = categories(secret, parameters, checked, pool.dealt)
            check_sold(pool_id, locked, later, checked)
        check_none_beyond(pool_id, locked, pool.dealt, uow.plays.count_in_pool(pool_id))
        unfinished, _ = uow.plays.unfinished_in_pool(pool_id)
        publish = unfinished == 0
        closed = replace(
            pool,
            secret=secret.hex() if publish else None,
            closed_at=pool.closed_at or at,
        )
        uow.pools.save(closed)
        if publish:
            uow.pools.add_checkpoints(pool_id, marks)
        if pool.closed_at is None:
            audit.append(
                uow,
                AuditKind.POOL_CLOSED,
                None,
                {
                    "pool": pool_id,
                    "commitment": pool.commitment,
                    "dealt": pool.dealt,
                    "withdrawn": not pool.sold_out,
                    "secret": secret.hex() if publish else None,
                    "unfinished": unfinished,
                },
                now=at,
            )
        elif publish:
            audit.append(
                uow,
                AuditKind.POOL_SECRET_PUBLISHED,
                None,
                {"pool": pool_id, "commitment": pool.commitment, "secret": secret.hex()},
                now=at,
            )
        uow.commit()
    return closed


def unfinished(factory: UnitOfWorkFactory, pool_id: PoolId) -> tuple[int, dt.datetime | None]:
    """How many plays dealt from the pool are in progress, and when the last of them is finished
    by the server if its player does not (its ``finish_by``)."""
    with factory() as uow:
        return uow.plays.unfinished_in_pool(pool_id)
