"""Who a per-client limit counts (``service.clients``): an IPv4 address, an IPv6 client's /64
network; and the limits that use it (players' and operators' failed logins and Try plays here;
the mails asked for an address in test_service_registration.py), on fakes."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from colour_collector.game.pool import load_pool
from colour_collector.service import accounts, operators, try_plays
from colour_collector.service.clients import counted_client
from colour_collector.service.errors import (
    InvalidCredentialsError,
    OperatorCredentialsError,
    TooManyAttemptsError,
    TooManyTriesError,
)
from colour_collector.service.outcomes import IndependentSource
from fakes import FakeDatabase

T0 = dt.datetime(2026, 12, 8, 12, 0, tzinfo=dt.UTC)
POLICY = accounts.AccountPolicy(
    passwords=accounts.Passwords(time_cost=1, memory_kib=8, parallelism=1),
    max_failures_per_email=3,
    max_failures_per_client=5,
)
NETWORK = "2001:db8:1:2::"
"""One host's /64: it can send from any address in it."""


@pytest.mark.parametrize(
    ("address", "counted_as"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::14", "2001:db8:1:2::/64"),  # the same host's network
        ("2001:DB8:1:3::1", "2001:db8:1:3::/64"),  # another network
        ("fe80::1%eth0", "fe80::/64"),  # a zone is not part of the network
        ("::ffff:203.0.113.9", "203.0.113.9"),  # IPv4 written as IPv6
        ("testclient", "testclient"),  # not an address (a test client, a proxy's name)
        ("", ""),
        ("x" * 100, "x" * 64),
    ],
)
def test_a_client_is_its_ipv4_address_or_its_ipv6_network(address: str, counted_as: str) -> None:
    assert counted_client(address) == counted_as


def fail_login(db: FakeDatabase, email: str, client: str) -> None:
    """A player's login with a wrong password from ``client``."""
    accounts.login(db, POLICY, email=email, password="wrong password!", client=client, now=T0)


def test_failed_logins_from_one_ipv6_network_are_one_clients() -> None:
    db = FakeDatabase()
    for host in range(1, 6):  # POLICY allows 5 failures a client, each at another address
        with pytest.raises(InvalidCredentialsError):
            fail_login(db, f"nobody{host}@example.com", f"{NETWORK}{host:x}")
    with pytest.raises(TooManyAttemptsError):
        fail_login(db, "other@example.com", f"{NETWORK}99")
    with pytest.raises(InvalidCredentialsError):  # another network is another client
        fail_login(db, "other@example.com", "2001:db8:1:3::1")


def test_try_plays_from_one_ipv6_network_are_one_clients() -> None:
    db = FakeDatabase()
    source = IndependentSource(load_pool())
    rng = random.Random(7)
    for host in (1, 2):
        try_plays.start(db, source, rng, client=f"{NETWORK}{host}", per_hour=2, now=T0)
    with pytest.raises(TooManyTriesError):
        try_plays.start(db, source, rng, client=f"{NETWORK}3", per_hour=2, now=T0)
    later = T0 + dt.timedelta(hours=1)
    try_plays.start(db, source, rng, client=f"{NETWORK}3", per_hour=2, now=later)


def test_failed_console_logins_from_one_ipv6_network_are_one_clients() -> None:
    db = FakeDatabase()
    rules = operators.OperatorPolicy(passwords=POLICY.passwords, max_client_failures=3)

    def fail(name: str, client: str) -> None:
        operators.login(db, rules, name=name, password="wrong password!", client=client, now=T0)

    for host in range(1, 4):  # three names, three addresses of one /64
        with pytest.raises(OperatorCredentialsError):
            fail(f"nobody{host}", f"{NETWORK}{host}")
    with pytest.raises(TooManyAttemptsError):
        fail("someone", f"{NETWORK}4")
    with pytest.raises(OperatorCredentialsError):  # another network is another client
        fail("someone", "192.0.2.1")
