"""Who a per-client limit counts: the failed logins, the Try plays and the mails asked for an
address are each limited per client as well as in other ways."""

from __future__ import annotations

import ipaddress

COUNTED_CLIENT_MAX = 64
"""The longest client a limit keeps (an IPv4 address, an IPv6 /64 network, or another name a
proxy gave, cut to this)."""


def counted_client(address: str) -> str:
    """The client a limit counts a request for: its IPv4 address, or for IPv6 the /64 network
    the address is in (a host is usually given a whole /64 and may send from any address in
    it, so counting addresses would let one host be thousands of clients); anything else, cut
    to ``COUNTED_CLIENT_MAX`` characters."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:COUNTED_CLIENT_MAX]
    if isinstance(parsed, ipaddress.IPv4Address):
        return str(parsed)
    if parsed.ipv4_mapped is not None:  # IPv4 written as IPv6
        return str(parsed.ipv4_mapped)
    return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
