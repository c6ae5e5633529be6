"""``colour-collector pool`` end to end on SQLite and PostgreSQL: build, verify, load, sell,
exhaust, roll to the next pool, close and check; an altered pool file or a wrong secret fails
verify and check; bad input gets a clear error and no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from plays_fixtures import SECRET, assert_problem, buy, deposit, play_settings, play_to_end
from sqlalchemy import make_url
from typer.testing import CliRunner

from colour_collector.cli.app import app as cli
from colour_collector.cli.base import PENDING
from colour_collector.game.prize_table import load_tiers
from colour_collector.server.app import create_app
from colour_collector.server.settings import Settings

ENV = {
    "COLOUR_COLLECTOR_ENVIRONMENT": "test",
    "COLOUR_COLLECTOR_SECRET_KEY": SECRET,
}


def run(*args: str, env: dict[str, str | None] | None = None) -> Any:
    """Run ``colour-collector ARGS`` in this process; the result (exit code, output)."""
    result = CliRunner().invoke(cli, list(args), env={**ENV, **(env or {})})
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def build(tmp: Path, name: str, plays: int, counts: dict[str, int]) -> Path:
    (tmp / f"{name}.counts.json").write_text(json.dumps(counts), encoding="utf-8")
    out = tmp / f"{name}.json"
    done = run("pool", "build", "--plays", str(plays), "--counts", str(tmp / f"{name}.counts.json"),
               "--out", str(out))  # fmt: skip
    assert done.exit_code == 0, done.output
    assert out.stat().st_mode & 0o077 == 0  # readable by its owner only: it holds the secret
    return out


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return play_settings(database_url, tmp_path, draw_mode="pool")


def test_pools_are_built_certified_sold_rolled_closed_and_checked(
    settings: Settings, database_url: str, tmp_path: Path, new_client: Any
) -> None:
    first = build(tmp_path, "first", 6, {"£5": 2, "£14 (£6 + £8)": 1})
    second = build(tmp_path, "second", 5, {"£1,000,000": 1})
    for pool in (first, second):
        verified = run("pool", "verify", str(pool))
        assert verified.exit_code == 0, verified.output
        assert (
            "OK: the pool holds together, with another prize structure (for tests)"
            in verified.output
        )
        assert "every tier's count is the prize structure's, exactly" in verified.output
    loaded = run("pool", "load", str(first), "--database-url", database_url)
    assert loaded.exit_code == 0, loaded.output
    # This shell's draw mode is not ``pool``: the pool is first in line, not said to be on sale.
    assert "Loaded pool 1: 6 plays" in loaded.output and "; first in line." in loaded.output
    # It names the database it wrote to (without its password), and, since this shell's draw
    # mode is not ``pool``, that only a server dealing from pools sells it.
    url = make_url(database_url)
    assert f"Database:    {url.render_as_string(hide_password=True)}\n" in loaded.output
    assert url.password is None or str(url.password) not in loaded.output
    assert "Sold only by a server with COLOUR_COLLECTOR_DRAW_MODE=pool" in loaded.output
    loaded = run(
        "pool", "load", str(second), "--database-url", database_url,
        env={"COLOUR_COLLECTOR_DRAW_MODE": "pool"},
    )  # fmt: skip
    assert "Loaded pool 2" in loaded.output and "on sale after 1 pool(s)" in loaded.output
    assert "Sold only by" not in loaded.output
    again = run(
        "pool", "load", str(first), "--database-url", database_url,
        env={"COLOUR_COLLECTOR_DRAW_MODE": "pool"},
    )  # fmt: skip
    assert "Pool 1 was loaded before" in again.output and "on sale now" in again.output
    # Listed as a server with this shell's settings would sell them: one drawing independently
    # sells none of them, so none is on sale.
    listed = json.loads(run("pool", "list", "--json", "--database-url", database_url).output)
    assert [(p["id"], p["status"]) for p in listed["pools"]] == [(2, "queued"), (1, "queued")]
    assert "this server draws every play independently" in listed["sale_problem"]
    pool_mode = {"COLOUR_COLLECTOR_DRAW_MODE": "pool"}
    listed = json.loads(
        run("pool", "list", "--json", "--database-url", database_url, env=pool_mode).output
    )
    assert [(p["id"], p["status"]) for p in listed["pools"]] == [(2, "queued"), (1, "on_sale")]
    assert listed["sale_problem"] is None
    table = run("pool", "list", "--database-url", database_url, env=pool_mode).output.splitlines()
    assert table[0].split() == ["id", "status", "sold", "of", "commitment", "when"]
    assert [line.split()[:2] for line in table[1:]] == [["2", "queued"], ["1", "on_sale"]]

    app = create_app(settings)
    try:
        sold = []
        for n in range(11):
            player = new_client(app)
            player.sign_up(f"p{n}@example.com")
            deposit(player, 500)
            bought = buy(player).json()["play"]
            sold.append((player, bought))
        assert [(b["pool_id"], b["pool_position"]) for _, b in sold] == [
            (1, k) for k in range(6)
        ] + [(2, k) for k in range(5)]
        late = new_client(app)
        late.sign_up("late@example.com")
        deposit(late, 500)
        assert_problem(buy(late), 503, "sold_out")
        again = run("pool", "load", str(second), "--database-url", database_url)
        assert "Loaded pool 2: 5 plays" in again.output and "sold out." in again.output
        # Its plays are in progress: the pool closes, but its secret (which would tell their
        # prizes) waits until they are finished.
        # A script tells "stopped selling, still sealed" (3) from "published" (0).
        early = run("pool", "close", "1", "--database-url", database_url)
        assert early.exit_code == PENDING == 3, early.output
        assert "Closed pool 1 (6 of 6 plays sold): no more sales." in early.output
        assert "6 of its plays are in progress, and it would tell their prizes." in early.output
        assert "Secret:" not in early.output and "Database:    " in early.output
        still = run("pool", "close", "1", "--database-url", database_url)
        assert still.exit_code == PENDING and "not published yet" in still.output, still.output
        # Closed, its secret not published yet: that is what every refusal says.
        sealed = new_client(app).get("/api/pools/1")
        assert (sealed.json()["status"], sealed.json()["secret"]) == ("closed", None)
        (tmp_path / "sealed.json").write_text(sealed.text, encoding="utf-8")
        not_yet = (
            "secret is not published yet (it is once the pool is closed and every play of it is"
            " finished)"
        )
        sealed_file = str(tmp_path / "sealed.json")
        for args in (("verify", sealed_file), ("check", "--pool", sealed_file, "--position", "0")):
            refused = run("pool", *args)
            assert refused.exit_code == 2, refused.output
            assert not_yet in refused.output and "not closed" not in refused.output
        play = assert_problem(new_client(app).get("/api/pools/1/plays/0"), 409, "pool_not_closed")
        assert play["title"] == "The prize pool's secret is not published yet", play
        assert "once the pool is closed and every play of it is finished" in play["detail"]
        for player, bought in sold:
            answer = player.get(f"/api/plays/{bought['play_number']}").json()
            play_to_end(player, bought["play_number"], answer["board"])
            finished = player.post(f"/api/plays/{bought['play_number']}/finish", json={})
            assert finished.status_code == 200, finished.text
        for pool_id, said in ((1, "Published the secret of pool 1"), (2, "Closed pool 2")):
            closed = run("pool", "close", str(pool_id), "--database-url", database_url)
            assert closed.exit_code == 0, closed.output
            assert said in closed.output and "plays sold" in closed.output
            assert "Secret:" in closed.output and "Database:    " in closed.output
        again = run("pool", "close", "1", "--database-url", database_url)
        assert again.exit_code == 0, again.output
        assert "Pool 1 was closed before" in again.output and "6 of 6 plays sold" in again.output
        assert "nothing changed" in again.output and "Secret:" in again.output
        anyone = new_client(app)
        published = anyone.get("/api/pools/1").json()
        (tmp_path / "pool-1.json").write_text(json.dumps(published), encoding="utf-8")
        # A position the pool did not sell (a withdrawn pool's) is said to be one.
        (tmp_path / "partly.json").write_text(json.dumps({**published, "dealt": 3}), "utf-8")
        unsold = run("pool", "check", "--pool", str(tmp_path / "partly.json"), "--position", "4")
        assert unsold.exit_code == 0, unsold.output
        assert "Sold:           no: the pool sold 3 plays (positions 0 to 2)" in unsold.output
        for position, sold_there in (("4", False), ("2", True)):
            said = run("pool", "check", "--pool", str(tmp_path / "partly.json"), "--position",
                       position, "--json")  # fmt: skip
            assert json.loads(said.output)["sold"] is sold_there
        assert "Sold:" not in run("pool", "check", "--pool", str(first), "--position", "4").output
        (tmp_path / "odd.json").write_text(json.dumps({**published, "dealt": "3"}), "utf-8")
        odd = run("pool", "check", "--pool", str(tmp_path / "odd.json"), "--position", "4")
        assert odd.exit_code == 2 and "'dealt' must be a whole number, not '3'" in odd.output
        # The lab can write the report of a closed pool from what the server publishes.
        reported = run("pool", "report", str(tmp_path / "pool-1.json"), "--out",
                       str(tmp_path / "report-1"), "--naturalness-plays", "50")  # fmt: skip
        assert reported.exit_code == 0, reported.output
        page = (tmp_path / "report-1" / "index.html").read_text(encoding="utf-8")
        assert published["commitment"] in page
        assert "read from the server&#x27;s description of the closed pool" in page
        assert "built " not in page  # its build time is not published
        assert "pool verify POOL --commitment C" in reported.output
        player, play = sold[3]
        recalled = player.get(f"/api/my-games/{play['play_number']}").json()
        checked = run(
            "pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position", "3",
            "--expect-sha256", recalled["record_sha256"], "--json",
        )  # fmt: skip
        assert checked.exit_code == 0, checked.output
        answer = json.loads(checked.output)
        assert answer["ok"] and answer["record_sha256"] == recalled["record_sha256"]
        assert answer["commitment"] == published["commitment"]
        tiers = load_tiers()
        tier_index = next(
            t.index for t in tiers if t.name == answer["tier"]
        ) if answer["tier"] else None  # fmt: skip
        with app.state.database() as uow:
            stored = uow.plays.get(play["play_number"])
        assert stored is not None and stored.tier_index == tier_index
        # Another play's record is not this one; a secret that is not the pool's is refused.
        other = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position", "4",
                    "--expect-sha256", recalled["record_sha256"])  # fmt: skip
        assert other.exit_code == 1 and "it is not that play" in other.output
        wrong = ("0" if published["secret"][0] != "0" else "1") + published["secret"][1:]
        refused = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position", "3",
                      "--secret", wrong)  # fmt: skip
        assert refused.exit_code == 1
        mismatch = "FAILED: this secret and these parameters do not match the commitment"
        assert mismatch in refused.output
        as_json = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position",
                      "3", "--secret", wrong, "--json")  # fmt: skip
        assert as_json.exit_code == 1
        assert json.loads(as_json.output)["ok"] is False  # one JSON object, failures too
        empty = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position", "3",
                    "--secret", "")  # fmt: skip
        assert empty.exit_code == 2 and "--secret" in empty.output
        # The commitment the player saw before the sale is the one the closed pool publishes.
        before_sale = json.loads(first.read_text("utf-8"))["commitment"]
        seen = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position", "3",
                   "--commitment", before_sale)  # fmt: skip
        assert seen.exit_code == 0, seen.output
        assert "fixed before the sale by the commitment you saw" in seen.output
        other_pool = json.loads(second.read_text("utf-8"))["commitment"]
        swapped = run("pool", "check", "--pool", str(tmp_path / "pool-1.json"), "--position",
                      "3", "--commitment", other_pool)  # fmt: skip
        assert swapped.exit_code == 1
        assert "not the one you saw before the sale" in swapped.output
        # Anyone can certify the whole closed pool from what the server publishes.
        certified = run("pool", "verify", str(tmp_path / "pool-1.json"))
        assert (
            certified.exit_code == 0
            and "OK: the pool holds together, with another prize structure (for tests)"
            in certified.output
        )
        published["secret"] = wrong
        (tmp_path / "forged.json").write_text(json.dumps(published), encoding="utf-8")
        forged = run("pool", "verify", str(tmp_path / "forged.json"))
        assert forged.exit_code == 1 and "the file was altered" in forged.output
        from_file = run("pool", "check", "--pool", str(first), "--position", "0")
        assert from_file.exit_code == 0
        assert "OK: this play is the one the pool's secret fixes" in from_file.output
        assert "(--commitment)" in from_file.output  # it says what it did not check
    finally:
        app.state.database.dispose()


def test_an_altered_pool_file_fails_verify(tmp_path: Path) -> None:
    pool = build(tmp_path, "pool", 8, {"£5": 2})
    data = json.loads(pool.read_text())
    data["parameters"]["counts"][0][1] = 3  # one more £5 winner...
    data["parameters"]["no_win"] -= 1  # ...and one loser fewer: still a consistent file
    altered = tmp_path / "altered.json"
    altered.write_text(json.dumps(data), encoding="utf-8")
    failed = run("pool", "verify", str(altered))
    assert failed.exit_code == 1
    assert "FAILED: the pool file's commitment" in failed.output and "altered" in failed.output
    inconsistent = dict(data, parameters=dict(data["parameters"], no_win=99))
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(inconsistent), encoding="utf-8")
    refused = run("pool", "verify", str(damaged))
    assert refused.exit_code == 1, refused.output
    assert "is an altered or damaged pool file" in refused.output
    assert "no_win must be" in refused.output  # the reason, not a side effect of it
    # With --json every refusal is one JSON object on stdout, with the same status.
    counted = json.loads(pool.read_text())
    counted["parameters"]["counts"][0][1] += 1  # one more £5 winner than the file can hold
    (tmp_path / "counted.json").write_text(json.dumps(counted), encoding="utf-8")
    for path in (damaged, tmp_path / "counted.json", altered):
        as_json = CliRunner().invoke(cli, ["pool", "verify", str(path), "--json"], env=ENV)
        assert as_json.exit_code == 1, as_json.output
        answer = json.loads(as_json.stdout)
        assert answer["ok"] is False and len(answer["problems"]) == 1, answer
        assert "altered" in answer["problems"][0], answer
    mismatch = run("pool", "verify", str(pool), "--commitment", "0" * 64)
    assert mismatch.exit_code == 1 and "is not '0000" in mismatch.output
    sliced = run("pool", "verify", str(pool), "--positions", "2:5", "--json")
    assert sliced.exit_code == 0, sliced.output
    answer = json.loads(sliced.output)
    assert (answer["start"], answer["stop"], answer["plays"], answer["whole"]) == (2, 5, 3, False)


def test_verify_of_a_published_pool_says_whether_it_is_the_pool_committed_to(
    tmp_path: Path,
) -> None:
    """A server can publish, after the close, another pool that holds together (another secret,
    its own commitment and parameters): ``pool verify`` of what it publishes certified it as
    "OK" without a word on the commitment, where ``pool check`` says it did not compare it with
    the one published before the sale. Now verify says so too, and ``--commitment`` compares."""
    sold = json.loads(build(tmp_path, "sold", 10, {"£5": 1}).read_text("utf-8"))
    other = json.loads(build(tmp_path, "other", 10, {"£5": 1}).read_text("utf-8"))
    parameters = json.dumps(
        other["parameters"], sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    described = tmp_path / "published.json"  # as GET /api/pools/ID answers, once closed
    described.write_text(
        json.dumps(
            {"commitment": other["commitment"], "parameters": parameters,
             "secret": other["secret"]}
        ),
        encoding="utf-8",
    )  # fmt: skip
    unchecked = run("pool", "verify", str(described))
    assert unchecked.exit_code == 0, unchecked.output
    assert (
        "to know the pool was fixed before the sale, check this commitment is the one published"
        " then (--commitment)" in unchecked.output
    ), unchecked.output
    as_json = json.loads(run("pool", "verify", str(described), "--json").output)
    assert as_json["ok"] is True and as_json["commitment_checked"] is False, as_json
    swapped = run("pool", "verify", str(described), "--commitment", sold["commitment"])
    assert swapped.exit_code == 1 and f"is not {sold['commitment']!r}" in swapped.output
    seen = run("pool", "verify", str(described), "--commitment", other["commitment"])
    assert seen.exit_code == 0, seen.output
    assert "(--commitment)" not in seen.output
    assert "it is the pool of the commitment given" in seen.output, seen.output
    # A pool file is the pool itself: nothing to say about a commitment not given.
    from_file = run("pool", "verify", str(tmp_path / "sold.json"))
    assert from_file.exit_code == 0 and "(--commitment)" not in from_file.output


def test_verify_says_it_compared_the_commitment_given(tmp_path: Path) -> None:
    """An operator's walkthrough: ``pool verify FILE --commitment C`` with the right commitment
    said nothing of it but with ``--json``, so the text read as if it had not compared it. Now a
    line says the pool's commitment is the one given, and without ``--commitment`` none does."""
    pool = build(tmp_path, "pool", 10, {"£5": 1})
    given = json.loads(pool.read_text("utf-8"))["commitment"]
    compared = run("pool", "verify", str(pool), "--commitment", given.upper())
    assert compared.exit_code == 0, compared.output
    assert (
        "Commitment:    the pool's commitment equals the one given with --commitment"
        in compared.output
    ), compared.output
    assert compared.output.index("Commitment:") < compared.output.index("OK: ")
    unchecked = run("pool", "verify", str(pool))
    assert unchecked.exit_code == 0 and "Commitment:" not in unchecked.output, unchecked.output
    wrong = run("pool", "verify", str(pool), "--commitment", "f" * 64)
    assert wrong.exit_code == 1 and f"is not {'f' * 64!r}" in wrong.output, wrong.output
    assert "is the one given" not in wrong.output


def test_a_pool_file_is_never_overwritten(tmp_path: Path) -> None:
    pool = build(tmp_path, "pool", 10, {"£5": 1})
    before = pool.read_bytes()
    again = run("pool", "build", "--plays", "6500000", "--out", str(pool))
    assert again.exit_code == 2 and "never overwritten" in again.output
    assert pool.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.counts.json", "pool.json"]


def test_a_pool_loaded_with_the_development_key_says_so(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    """A shell without the server's SECRET_KEY seals the pool with the development placeholder,
    which a server with its own key cannot unseal: the command says so at once."""
    pool = build(tmp_path, "dev", 4, {"£5": 1})
    loaded = run(
        "pool", "load", str(pool), "--database-url", database_url,
        env={"COLOUR_COLLECTOR_ENVIRONMENT": "development", "COLOUR_COLLECTOR_SECRET_KEY": None},
    )  # fmt: skip
    assert loaded.exit_code == 0, loaded.output
    assert "Sealed with the development placeholder key" in loaded.output
    again = run("pool", "load", str(pool), "--database-url", database_url)
    assert "placeholder" not in again.output  # with the server's key


def test_help_keeps_its_sentences_whole() -> None:
    """Each paragraph of a command's help is wrapped as one (Rich markup kept the docstring's
    line breaks in every paragraph after the first: "the play does" then, a line down, "not
    replay")."""
    shown = run("pool", "check", "--help")
    assert shown.exit_code == 0, shown.output
    assert "the play does not replay to its outcome" in shown.output, shown.output


def test_a_pool_sealed_with_another_key_is_listed_as_not_on_sale_and_why(
    database_url: str, tmp_path: Path
) -> None:
    """A server with another ``SECRET_KEY`` than ``pool load``'s refuses every purchase from the
    pool: ``pool list`` with its settings does not call it on sale, and says what to do; ``pool
    load`` says so when the pools waiting to sell were sealed with another key than its own,
    queued ones included, and ``pool close`` names the pool file as the way round."""
    first = build(tmp_path, "first", 6, {"£5": 2})
    second = build(tmp_path, "second", 5, {"£5": 1})
    assert run("pool", "load", str(first), "--database-url", database_url).exit_code == 0
    other = {"COLOUR_COLLECTOR_SECRET_KEY": SECRET + "!"}
    server = {"COLOUR_COLLECTOR_DRAW_MODE": "pool", **other}
    listed = json.loads(
        run("pool", "list", "--json", "--database-url", database_url, env=server).output
    )
    assert [(p["id"], p["status"]) for p in listed["pools"]] == [(1, "queued")]
    assert listed["sale_problem"].startswith(
        "no play can be sold: pool 1's secret cannot be unsealed with this"
        " COLOUR_COLLECTOR_SECRET_KEY: the pool was loaded with another"
    )
    table = run("pool", "list", "--database-url", database_url, env=server).output.splitlines()
    assert table[1].split()[:2] == ["1", "queued"]
    assert table[-1].startswith("With this shell's settings, no play can be sold: pool 1's")
    assert table[-1].endswith("(pool load) from a shell with the server's key.")
    # Loading another pool with another key: told that the pool waiting was sealed otherwise.
    loaded = run("pool", "load", str(second), "--database-url", database_url, env=other)
    assert loaded.exit_code == 0, loaded.output
    assert "Pool 1, waiting to sell, was sealed with another COLOUR_COLLECTOR_SECRET_KEY" in (
        loaded.output
    )
    # With the first key, the queued pool is the one that will not sell, and the list says so.
    first_key = {"COLOUR_COLLECTOR_DRAW_MODE": "pool"}
    listed = json.loads(
        run("pool", "list", "--json", "--database-url", database_url, env=first_key).output
    )
    assert [(p["id"], p["status"]) for p in listed["pools"]] == [(2, "queued"), (1, "on_sale")]
    assert listed["sale_problem"].startswith(
        "pool 2, queued, will not sell when its turn comes: pool 2's secret cannot be unsealed"
    )
    # Loading the first pool again with the other key moves its seal: told, before the sale stops.
    again = run("pool", "load", str(first), "--database-url", database_url, env=other)
    assert "Pool 1 was sealed with another COLOUR_COLLECTOR_SECRET_KEY before" in again.output
    assert "waiting to sell" not in again.output  # pool 2 has this key
    closing = run("pool", "close", "2", "--withdraw", "--database-url", database_url)
    assert closing.exit_code == 1, closing.output
    assert "or close it with the pool file (pool close 2 --pool-file FILE)" in closing.output
