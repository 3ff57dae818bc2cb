"""server/cli/schedule.py: `schedule create|list|cancel` on the database (also by
subprocess in tests/client/test_schedule_cli.py)."""

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
