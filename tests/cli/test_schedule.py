"""server/cli/schedule.py: `schedule create|list|cancel` on the database (also by
subprocess in tests/client/commands/test_schedule.py)."""

from __future__ import annotations

import json

import pytest

from server.cli.schedule import beacon_config
from tests.cli.conftest import Server


def test_create_list_cancel(server: Server) -> None:
    code, out, err = server(
        "schedule", "create", "--name", "Nightly", "--at", "2099-01-01T20:00:00Z",
        "--every", "1d", "--duration", "2h", "--no-bots", "--json",
    )  # fmt: skip
    assert code == 0, err
    made = json.loads(out)
    assert (made["name"], made["every_s"], made["duration_s"]) == ("Nightly", 86400, 7200)
    assert made["conditions"] == {"bots": False}
    listed = [json.loads(line) for line in server("schedule", "list", "--json")[1].splitlines()]
    assert [s["id"] for s in listed] == [made["id"]]
    code, out, _ = server("schedule", "cancel", str(made["id"]), "--json")
    assert code == 0 and json.loads(out)["cancelled"] is True
    code, _, err = server("schedule", "cancel", "99")
    assert code == 1 and err.startswith("samedeal-server: ") and err.count("\n") == 1


def test_a_network_nobody_knows_is_refused_before_the_database() -> None:
    assert beacon_config(None, None).networks  # the built-in ones
    assert beacon_config({"network": "quicknet"}, None)
    with pytest.raises(ValueError, match="nowhere"):
        beacon_config({"network": "nowhere"}, None)


def test_an_operators_club_schedule_and_tournament(server: Server) -> None:
    """v1.4: --club, --visibility, --entry-code on the operator's command line (an
    admin's: rated by default, the code shown); an unknown club is refused."""
    code, _, err = server(
        "schedule", "create", "--name", "Club night", "--at", "2099-01-01T20:00:00Z",
        "--club", "1", "--visibility", "unlisted", "--entry-code", "Noite-1",
    )  # fmt: skip
    assert code == 1 and "club" in err and err.count("\n") == 1
    code, _, err = server(
        "tournament", "create", "--name", "Cup", "--battle", "1,2", "--counted", "3",
    )  # fmt: skip
    assert code == 1 and "club" in err
    code, _, err = server("tournament", "create", "--name", "Cup", "--entry-code", "ab")
    assert code == 2 and "--entry-code" in err
    code, out, err = server(
        "tournament", "create", "--name", "Cup", "--visibility", "unlisted",
        "--entry-code", "Copa-1", "--json",
    )  # fmt: skip
    assert code == 0, err
    made = json.loads(out)
    assert (made["visibility"], made["entry_code"], made["rated"]) == ("unlisted", "Copa-1", True)
    assert (made["club"], made["battle"], made["code_required"]) == (None, None, True)
