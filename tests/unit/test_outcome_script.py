"""The outcome script a test server reads (``COLOUR_COLLECTOR_OUTCOME_SCRIPT``): a bad file is
refused naming the setting and what is wrong with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from colour_collector.server.runtime import scripted_outcomes
from colour_collector.service.errors import InvalidInputError


def test_a_list_of_tier_names_and_nulls_is_read(tmp_path: Path) -> None:
    script = tmp_path / "outcomes.json"
    script.write_text('["£5", null, "£1,000,000"]', "utf-8")
    assert scripted_outcomes(script) == ["£5", None, "£1,000,000"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "cannot be read: No such file or directory"),
        (b'["\xa35"]', "is not JSON"),  # Latin-1, not UTF-8
        (b'["\\u00a35",', "is not JSON"),
        (b'{"a": 1}', "must be a JSON list of tier names or nulls"),
        (b"[5]", "must be a JSON list of tier names or nulls"),
        (b'["five pounds"]', "no prize tier is named 'five pounds'"),
    ],
)
def test_a_bad_script_is_named_with_its_setting(
    tmp_path: Path, content: bytes | None, said: str
) -> None:
    script = tmp_path / "outcomes.json"
    if content is not None:
        script.write_bytes(content)
    with pytest.raises(InvalidInputError) as refused:
        scripted_outcomes(script)
    assert str(refused.value).startswith(f"COLOUR_COLLECTOR_OUTCOME_SCRIPT ({script})")
    assert said in str(refused.value)
