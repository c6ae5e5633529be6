"""Amounts of money as the procedures print them: whole pounds bare, otherwise with their
pence (``£5``, ``£1,000,000``, ``£2.50``)."""

from __future__ import annotations


def pounds(pence: int) -> str:
    """``pence`` in pounds, as the procedures print an amount."""
    sign = "-" if pence < 0 else ""
    whole, rest = divmod(abs(pence), 100)
    return f"{sign}£{whole:,}" if rest == 0 else f"{sign}£{whole:,}.{rest:02d}"
