"""The schedule messages' handlers (server/net/schedule_session.py), through one
connection's session in-process: `schedules` lists per viewer (an unlisted club schedule
only for its members), `create_schedule` and `cancel_schedule` answer the SCHEDULE with
its next occurrences; `series_fields` checks a hand-made tournament's conditions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from server.competition.errors import CompetitionError
from server.domain.schedule import SeriesFields
from server.net import schedule_session
from server.net.app import App
from tests.net.conftest import Wire, signed_in
from tests.support.harness import T0


def schedule_msg(**over: Any) -> dict[str, Any]:
    msg = {
        "type": "create_schedule",
        "name": "Daily",
        "game": "gaps",
        "first_starts_at": (T0 + timedelta(minutes=30)).isoformat(),
        "every_s": 86400,
        "duration_s": 3600,
    }
    return msg | over


def test_a_hand_made_tournaments_conditions_are_checked() -> None:
    fields = schedule_session.series_fields({"bots": False}, rated=False)
    assert fields == SeriesFields(conditions={"bots": False}, rated=False)
    assert schedule_session.series_fields(None, True) == SeriesFields()
    with pytest.raises(CompetitionError) as refused:
        schedule_session.series_fields({"luck": 3}, True)
    assert (
        refused.value.code == "bad_request" and "unknown condition 'luck'" in refused.value.message
    )
    assert set(schedule_session.HANDLERS) == {"schedules", "create_schedule", "cancel_schedule"}


async def test_a_schedule_made_listed_and_cancelled(app: App) -> None:
    op = await signed_in(app, "op", admin=True)
    made = await op.ok(**schedule_msg(conditions={"bots": False}), id=1)
    s = made["schedule"]
    assert (made["type"], made["re"], s["name"], s["cancelled"]) == ("schedule", 1, "Daily", False)
    assert s["conditions"] == {"bots": False} and s["rated"] is True
    assert s["first_starts_at"] == "2026-11-30T18:30:00.000Z"
    assert s["next"] and s["next"][0]["starts_at"] == "2026-11-30T18:30:00.000Z"
    listed = await Wire(app).ok(type="schedules")
    assert [item["id"] for item in listed["items"]] == [s["id"]]
    cancelled = (await op.ok(type="cancel_schedule", schedule=s["id"]))["schedule"]
    assert cancelled["cancelled"] is True and cancelled["id"] == s["id"]
    await op.err("not_found", type="cancel_schedule", schedule=s["id"] + 1)
    player = await signed_in(app, "ana")
    await player.err("forbidden", **schedule_msg())


async def test_an_unlisted_club_schedule_is_listed_for_its_members_only(app: App) -> None:
    ana, bo = await signed_in(app, "ana"), await signed_in(app, "bo")
    club = (await ana.ok(type="create_club", name="Clube"))["club"]
    made = await ana.ok(
        **schedule_msg(club=club["id"], visibility="unlisted", entry_code="Sexta-42")
    )
    s = made["schedule"]
    assert (s["club"], s["visibility"], s["entry_code"]) == (club["id"], "unlisted", "Sexta-42")
    assert s["rated"] is False  # a non-admin's club event: unrated by default
    assert (await bo.ok(type="schedules"))["items"] == []
    assert (await Wire(app).ok(type="schedules"))["items"] == []
    await bo.ok(type="join_club", code=club["invite"])
    [seen] = (await bo.ok(type="schedules"))["items"]
    assert seen["id"] == s["id"] and seen["code_required"] and "entry_code" not in seen
    await bo.err("forbidden", type="cancel_schedule", schedule=s["id"])
    assert (await ana.ok(type="cancel_schedule", schedule=s["id"]))["schedule"]["cancelled"]
