"""server/cli/operator.py: admin grant, tournament create|close|list, ratings rebuild, on
the database (the same commands as tests/e2e/test_process.py, in this process)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from server.cli.operator import tournament_spec
from server.domain.tournament_options import TournamentRequest
from tests.cli.conftest import Server


def test_create_list_close_print_the_protocols_summaries(server: Server) -> None:
    code, out, err = server(
        "tournament", "create", "--name", "Cup", "--game", "klondike",
        "--options", '{"draw": 3}', "--hours", "2", "--time-limit-s", "600", "--json",
    )  # fmt: skip
    assert code == 0, err
    made = json.loads(out)
    assert (made["name"], made["game"], made["time_limit_s"]) == ("Cup", "klondike", 600)
    assert made["options"]["draw"] == 3 and "seed" not in made
    code, out, _ = server("tournament", "list", "--json")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [made["id"]]
    code, out, err = server("tournament", "close", str(made["id"]), "--json")
    assert code == 0, err
    closed = json.loads(out)
    assert closed["status"] == "closed" and len(closed["seed"]) == 64


def test_entry_conditions_and_unrated_reach_the_tournament(server: Server) -> None:
    code, out, err = server(
        "tournament", "create", "--name", "Club night", "--min-rated", "2", "--no-bots",
        "--unrated", "--json",
    )  # fmt: skip
    assert code == 0, err
    made = json.loads(out)
    assert made["conditions"] == {"min_rated": 2, "bots": False} and made["rated"] is False


def test_a_bad_flag_is_one_line_and_status_2_and_nothing_is_created(server: Server) -> None:
    for argv, says in [
        (["--options", "{redeals: 2}"], "--options is not JSON"),
        (["--options", "[1, 2]"], "--options must be a JSON object"),
        (["--hours", "0"], "--hours is a positive number of hours"),
        (["--starts-at", "tomorrow"], "--at is a time like 18:00, 21:00-03:00 or 2026-"),
        (["--join-until", "soon"], "--join-until is a time like"),
        (["--duration", "an hour"], "--duration is a span like"),
        (["--time-limit-s", "0"], "--time-limit-s is a positive number of seconds"),
        (["--ends-at", "2026-13-45"], "--ends-at is a time like"),
        (["--beacon", "nowhere"], "nowhere"),
        (["--min-account-age", "soon"], "--min-account-age is a span"),
    ]:
        code, out, err = server("tournament", "create", "--name", "Oops", *argv)
        assert (code, out) == (2, ""), err
        assert err.count("\n") == 1 and says in err, err
    assert server("tournament", "list", "--json")[1] == ""


def test_a_refusal_is_one_line_and_status_1(server: Server) -> None:
    code, _, err = server("tournament", "close", "99")
    assert code == 1 and err.startswith("samedeal-server: not_found") and err.count("\n") == 1
    code, _, err = server("admin", "grant", "nobody")
    assert code == 1 and "no player named 'nobody'" in err


def test_ratings_rebuild_of_nothing(server: Server) -> None:
    code, out, _ = server("ratings", "rebuild")
    assert code == 0 and out.startswith("rebuilt from 0 closed tournaments: 0 ratings")


def test_the_spec_starts_now_unless_asked_and_carries_conditions() -> None:
    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    ends = datetime(2026, 12, 1, 10, tzinfo=UTC)
    request = TournamentRequest("Cup", "gaps", {}, ends, conditions={"bots": False}, rated=False)
    spec = tournament_spec(request, now)
    assert spec.starts_at == now and spec.ends_at == ends
    assert spec.series.conditions == {"bots": False} and spec.series.rated is False
