"""Files and folders the server's settings name, checked at start: the outcome script a test
server reads (``COLOUR_COLLECTOR_OUTCOME_SCRIPT``) and the mail outbox. A bad one is refused
naming the setting and what is wrong with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from colour_collector.server.runtime import scripted_outcomes, usable_outbox
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


def test_a_mail_outbox_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", "utf-8")
    with pytest.raises(InvalidInputError) as refused:
        usable_outbox(blocker / "outbox")
    assert str(refused.value) == (
        f"COLOUR_COLLECTOR_MAIL_OUTBOX_DIR ({blocker / 'outbox'}) cannot be made: Not a directory"
    )
    made = usable_outbox(tmp_path / "new" / "outbox")
    assert made.is_dir()
