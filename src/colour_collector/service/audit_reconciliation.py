"""The ledger and the plays, reconciled against the audit log and the rules.

The hash chain proves the log was not edited; it says nothing of the tables beside it. Every
money movement and every play is written in the same transaction as the entry recording it, so
each must match its entry exactly:

- a deposit or withdrawal row: the ``deposit`` or ``withdrawal`` entry naming its movement id,
  account and amount (a withdrawal's row is the amount taken, negative);
- a stake row: the ``purchase`` entry of its play (account, price);
- a prize row: the ``finish`` or ``auto_finish`` entry of its play (the prize);
- a play: its ``purchase`` entry (account, price, tier) and its stake; a finished play its
  settling entry (status, prize, the digest of its record) and, if it won, its prize row; a play
  in progress neither; and every play's record replays through the rules to its stored prize.

Anything else (a movement of a kind nothing audits, an entry without its row) is a discrepancy.
A prize credited a hundred times over, a stored prize edited, a deposit row inserted by hand:
each is named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from colour_collector.game.errors import GameError
from colour_collector.game.prize_table import load_tiers
from colour_collector.game.replay import replay
from colour_collector.service import records
from colour_collector.service.models import AuditKind, Movement, MovementKind
from colour_collector.service.play_models import PlayStatus, StoredPlay
from colour_collector.service.ports import UnitOfWork, UnitOfWorkFactory
from colour_collector.service.records import record_sha256


class _Row(Protocol):
    @property
    def id(self) -> int: ...


T = TypeVar("T", bound=_Row)

BATCH = 1000
"""Rows read a unit of work."""
SETTLING = {
    AuditKind.FINISH.value: PlayStatus.FINISHED,
    AuditKind.AUTO_FINISH.value: PlayStatus.AUTO_FINISHED,
}
"""The entries that settle a play, and the status each leaves it in."""
TRANSFERS = {AuditKind.DEPOSIT.value: 1, AuditKind.WITHDRAWAL.value: -1}
"""The entries that move money in or out of a wallet, and the sign of their ledger rows."""


@dataclass
class Reconciliation:
    """What the reconciliation found."""

    plays: int = 0
    """Plays checked."""
    movements: int = 0
    """Ledger movements checked."""
    problems: list[str] = field(default_factory=list)
    """Every discrepancy, described."""


@dataclass
class _Log:
    """What the audit log says of money and plays, by what it refers to."""

    transfers: dict[int, tuple[str, int | None, int]] = field(default_factory=dict)
    """Movement id -> (kind, account, amount) of each ``deposit`` and ``withdrawal`` entry."""
    purchases: dict[str, tuple[int | None, dict[str, Any]]] = field(default_factory=dict)
    """Play Number -> (account, payload) of each ``purchase`` entry."""
    settled: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """Play Number -> (kind, payload) of each ``finish``/``auto_finish`` entry."""


def _read_log(factory: UnitOfWorkFactory, found: Reconciliation) -> _Log:
    log = _Log()
    after = 0
    while True:
        with factory() as uow:
            entries = uow.audit.entries(after_seq=after, limit=BATCH)
        if not entries:
            return log
        for entry in entries:
            after = entry.seq
            payload = json.loads(entry.payload)
            if entry.kind in TRANSFERS:
                movement = payload.get("movement_id")
                if isinstance(movement, int):
                    amount = payload.get("amount_pence")
                    log.transfers[movement] = (entry.kind, entry.account_id, amount)
            elif entry.kind == AuditKind.PURCHASE.value:
                number = payload.get("play_number")
                if number in log.purchases:
                    found.problems.append(f"play {number}: two purchase entries")
                log.purchases[number] = (entry.account_id, payload)
            elif entry.kind in SETTLING:
                number = payload.get("play_number")
                if number in log.settled:
                    found.problems.append(f"play {number}: settled twice in the log")
                log.settled[number] = (entry.kind, payload)


def _each(
    factory: UnitOfWorkFactory, read: Callable[[UnitOfWork, int], Sequence[T]]
) -> Iterator[T]:
    """Every row ``read(uow, after_id)`` gives, a batch a unit of work, by id."""
    after = 0
    while True:
        with factory() as uow:
            batch = read(uow, after)
        if not batch:
            return
        yield from batch
        after = batch[-1].id


def reconcile(factory: UnitOfWorkFactory) -> Reconciliation:
    """Check every movement and every play against the log and the rules (see the module)."""
    found = Reconciliation()
    books = _Books(_read_log(factory, found), found)
    for movement in _each(factory, lambda uow, after: uow.wallets.after(after, BATCH)):
        found.movements += 1
        books.movement(movement)
    for play in _each(factory, lambda uow, after: uow.plays.after(after, BATCH)):
        found.plays += 1
        books.play(play)
    books.unmatched()
    return found


class _Books:
    """The ledger and the plays, checked one row at a time against the log."""

    def __init__(self, log: _Log, found: Reconciliation) -> None:
        self.log = log
        self.found = found
        self.names = {tier.index: tier.name for tier in load_tiers()}
        self.stakes: dict[str, Movement] = {}
        self.prizes: dict[str, Movement] = {}
        self.transfers: set[int] = set()
        self.numbers: set[str] = set()

    def problem(self, text: str) -> None:
        self.found.problems.append(text)

    def movement(self, movement: Movement) -> None:
        where = (
            f"movement id={movement.id} ({movement.kind.value}, {movement.amount_pence} pence,"
            f" account {movement.account_id})"
        )
        if movement.kind.value in TRANSFERS:
            entry = self.log.transfers.get(movement.id)
            self.transfers.add(movement.id)
            recorded = (movement.kind.value, movement.account_id, movement.amount_pence)
            if entry is None:
                self.problem(f"{where}: no {movement.kind.value} entry in the audit log")
            elif (
                entry[2] is None or (entry[0], entry[1], TRANSFERS[entry[0]] * entry[2]) != recorded
            ):
                self.problem(
                    f"{where}: the audit log recorded a {entry[0]} to account {entry[1]},"
                    f" {entry[2]} pence"
                )
        elif movement.kind is MovementKind.STAKE:
            number = movement.reference or ""
            self._once(self.stakes, number, movement, where)
            purchase = self.log.purchases.get(number)
            if purchase is None:
                self.problem(f"{where}: no purchase entry for play {number!r}")
            elif (purchase[0], -purchase[1].get("price_pence", 0)) != (
                movement.account_id,
                movement.amount_pence,
            ):
                self.problem(
                    f"{where}: the purchase entry recorded account {purchase[0]},"
                    f" {purchase[1].get('price_pence')} pence"
                )
        elif movement.kind is MovementKind.PRIZE:
            number = movement.reference or ""
            self._once(self.prizes, number, movement, where)
            settled = self.log.settled.get(number)
            if settled is None:
                self.problem(f"{where}: no finish entry for play {number!r}")
            elif settled[1].get("prize_pence") != movement.amount_pence:
                self.problem(
                    f"{where}: the {settled[0]} entry recorded a prize of"
                    f" {settled[1].get('prize_pence')} pence"
                )
        else:
            self.problem(f"{where}: no kind of audit entry accounts for it")

    def _once(self, book: dict[str, Movement], number: str, movement: Movement, where: str) -> None:
        if number in book:
            self.problem(f"{where}: a second {movement.kind.value} for play {number}")
        book[number] = movement

    def play(self, play: StoredPlay) -> None:
        number = play.play_number
        self.numbers.add(number)
        where = f"play {number} (account {play.account_id})"
        tier = None if play.tier_index is None else self.names.get(play.tier_index, "?")
        purchase = self.log.purchases.get(number)
        if purchase is None:
            self.problem(f"{where}: no purchase entry in the audit log")
        else:
            account, payload = purchase
            recorded = (account, payload.get("price_pence"), payload.get("tier"))
            if recorded != (play.account_id, play.price_pence, tier):
                self.problem(
                    f"{where}: stored as account {play.account_id}, {play.price_pence} pence,"
                    f" tier {tier!r}; the purchase entry recorded account {recorded[0]},"
                    f" {recorded[1]} pence, tier {recorded[2]!r}"
                )
        if number not in self.stakes:
            self.problem(f"{where}: no stake in the ledger")
        try:
            result = replay(records.decode(play.record))
        except GameError as error:
            self.problem(f"{where}: its record does not replay: {error}")
            return
        if result.prize != play.prize_pence:
            self.problem(
                f"{where}: stored prize {play.prize_pence} pence, its record pays {result.prize}"
            )
        self._settling(play, where)

    def _settling(self, play: StoredPlay, where: str) -> None:
        settled = self.log.settled.get(play.play_number)
        prize = self.prizes.get(play.play_number)
        if play.status is PlayStatus.IN_PROGRESS:
            if settled is not None:
                self.problem(f"{where}: in progress, but the log has its {settled[0]} entry")
            if prize is not None:
                self.problem(f"{where}: in progress, but its prize was credited")
            return
        if settled is None:
            self.problem(f"{where}: {play.status.value}, but no settling entry in the log")
            return
        kind, payload = settled
        if SETTLING[kind] is not play.status:
            self.problem(f"{where}: stored {play.status.value}, the log says {kind}")
        if payload.get("prize_pence") != play.prize_pence:
            self.problem(
                f"{where}: stored prize {play.prize_pence} pence, the {kind} entry recorded"
                f" {payload.get('prize_pence')}"
            )
        digest = record_sha256(play.record)
        if payload.get("record_sha256") != digest:
            self.problem(f"{where}: its stored record is not the one its {kind} entry hashed")
        credited = 0 if prize is None else prize.amount_pence
        if credited != play.prize_pence:
            self.problem(f"{where}: prize {play.prize_pence} pence, {credited} credited")

    def unmatched(self) -> None:
        """What the log or the ledger names that is not there."""
        for movement_id in sorted(set(self.log.transfers) - self.transfers):
            kind = self.log.transfers[movement_id][0]
            self.problem(f"{kind} entry for movement id={movement_id}: no such movement")
        for number in sorted(set(self.log.purchases) - self.numbers):
            self.problem(f"purchase entry for play {number}: no such play")
        for number in sorted((set(self.stakes) | set(self.prizes)) - self.numbers):
            self.problem(f"movements for play {number!r}: no such play")
