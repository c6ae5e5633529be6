"""Play Numbers: readable characters only, and every single typo or adjacent swap is caught.

The check is a linear sum in GF(32), so whether an error is caught depends only on the error, not
on the rest of the number; the tests below still try every error on several whole numbers.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from colour_collector.service.play_numbers import (
    ALPHABET,
    PlayNumberError,
    check_symbol,
    legacy_check_symbol,
    new_play_number,
    parse_play_number,
)

NEW_FORM = re.compile(r"^CC-[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$")
bodies = st.text(alphabet=ALPHABET, min_size=8, max_size=8)


def number_of(chars: str) -> str:
    """Nine characters laid out as a Play Number."""
    return f"CC-{chars[:3]}-{chars[3:6]}-{chars[6:]}"


def is_accepted(text: str) -> bool:
    try:
        parse_play_number(text)
    except PlayNumberError:
        return False
    return True


def sample_bodies(count: int) -> list[str]:
    rng = random.Random(20240518)
    return ["".join(rng.choice(ALPHABET) for _ in range(8)) for _ in range(count)]


def test_new_numbers_are_readable_and_valid() -> None:
    for _ in range(2000):
        number = new_play_number()
        assert NEW_FORM.match(number), number
        assert not set(number) & set("$~*=UILO"), number
        assert parse_play_number(number) == number


def test_the_alphabet_has_no_punctuation_or_lookalikes() -> None:
    assert len(ALPHABET) == len(set(ALPHABET)) == 32
    assert ALPHABET.isalnum()
    assert not set(ALPHABET) & set("ILOU")


@pytest.mark.parametrize("body", sample_bodies(4))
def test_every_single_character_typo_is_caught(body: str) -> None:
    chars = body + check_symbol(body)
    assert is_accepted(number_of(chars))
    caught = 0
    for position in range(9):
        for typo in ALPHABET:
            if typo == chars[position]:
                continue
            wrong = chars[:position] + typo + chars[position + 1 :]
            assert not is_accepted(number_of(wrong)), (chars, wrong)
            caught += 1
    assert caught == 9 * 31


@pytest.mark.parametrize("body", sample_bodies(3))
def test_every_adjacent_swap_is_caught(body: str) -> None:
    """Every pair of different characters, at every pair of neighbouring positions."""
    checked = 0
    for position in range(8):
        for first in ALPHABET:
            for second in ALPHABET:
                if first == second:
                    continue
                good = _valid_with(body, position, first, second)
                assert is_accepted(number_of(good)), good
                swapped = good[:position] + second + first + good[position + 2 :]
                assert not is_accepted(number_of(swapped)), (good, position)
                checked += 1
    assert checked == 8 * 32 * 31


def _valid_with(body: str, position: int, first: str, second: str) -> str:
    """A valid nine characters from ``body`` with ``first``, ``second`` at ``position``, +1."""
    chars = list(body)
    if position < 7:
        chars[position], chars[position + 1] = first, second
        return "".join(chars) + check_symbol("".join(chars))
    # The pair is the last body character and the check character: the first character has
    # a non-zero weight, so exactly one choice of it gives the wanted check character.
    chars[7] = first
    for lead in ALPHABET:
        chars[0] = lead
        if check_symbol("".join(chars)) == second:
            return "".join(chars) + second
    raise AssertionError(f"no body ending in {first!r} has check character {second!r}")


@given(bodies, st.integers(0, 8), st.sampled_from(ALPHABET))
def test_any_typo_is_caught(body: str, position: int, typo: str) -> None:
    chars = body + check_symbol(body)
    wrong = chars[:position] + typo + chars[position + 1 :]
    assert is_accepted(number_of(wrong)) == (wrong == chars)


@given(bodies)
def test_reading_it_out_loosely_still_finds_it(body: str) -> None:
    number = number_of(body + check_symbol(body))
    spoken = number.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert parse_play_number(f"  {spoken} ") == number
    assert parse_play_number(number.replace("-", "\u2013")) == number


@given(bodies)
def test_typed_without_separators_it_is_still_found(body: str) -> None:
    number = number_of(body + check_symbol(body))
    assert parse_play_number(number.replace("-", "")) == number
    assert parse_play_number(number.replace("-", "", 2).lower()) == number  # some left out
    assert parse_play_number(number[:6] + number[7:]) == number


@pytest.mark.parametrize("body", [*sample_bodies(20), "00000000", "ZZZZZZZZ"])
def test_numbers_issued_in_the_first_form_are_still_recognised(body: str) -> None:
    old = f"CC-{body[:4]}-{body[4:]}-{legacy_check_symbol(body)}"
    assert parse_play_number(old) == old
    assert parse_play_number(old.lower()) == old
    compact = old.replace("-", "")  # as long as the current form: read as one when it checks
    try:
        current = parse_play_number(f"CC-{compact[2:5]}-{compact[5:8]}-{compact[8:]}")
    except PlayNumberError:
        current = None
    assert parse_play_number(compact) == (current or old)
    wrong = "1" if old[-1] != "1" else "2"
    with pytest.raises(PlayNumberError):
        parse_play_number(old[:-1] + wrong)


def test_first_form_check_symbols_with_punctuation() -> None:
    found = {}
    for body in sample_bodies(3000):
        symbol = legacy_check_symbol(body)
        if symbol in "$~*=U":
            found[symbol] = f"CC-{body[:4]}-{body[4:]}-{symbol}"
    assert set(found) == set("$~*=U")
    for number in found.values():
        assert parse_play_number(number) == number


@pytest.mark.parametrize(
    "text",
    [
        "",
        "CC",
        "CC-7K3-D9Q-XM",
        "CC-7K3-D9Q-XM44",
        "XX-7K3-D9Q-XM4",
        "CC-7K3D9Q-XM4",
        "CC-UUU-UUU-UUU",
        "CC-IIII-LLLL-0",
        "CC-0000-0000-$0",
        "🎰",
    ],
)
def test_not_play_numbers(text: str) -> None:
    with pytest.raises(PlayNumberError):
        parse_play_number(text)
