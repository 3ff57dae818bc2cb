"""Series over the protocol and HTTP, on SQLite and PostgreSQL, with the server's clock
driven: schedules created and cancelled by an operator, read by anyone; SUMMARY's v1.3
fields; entry conditions on create_tournament; /schedules.json; /calendar.ics parsed as
iCalendar by the `icalendar` library."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import icalendar
import pytest
from websockets.asyncio.client import connect

from server.domain import timing
from tests.support.harness import T0, Client, create_msg, http_get, running_server


@pytest.fixture
async def srv(db_url):
    async with running_server(db_url) as running:
        yield running


async def get(srv, path: str) -> tuple[int, bytes]:
    return await asyncio.to_thread(http_get, f"{srv.http}{path}")


def schedule_msg(**over: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "type": "create_schedule",
        "name": "Daily Gaps",
        "game": "gaps",
        "options": {"redeals": 2},
        "first_starts_at": (T0 + timedelta(hours=1)).isoformat(),
        "every_s": 86400,
        "duration_s": 3600,
        "join_for_s": 600,
        "conditions": {"min_account_age_s": 60, "bots": False},
    }
    msg.update(over)
    return msg


async def test_an_operator_schedules_anyone_reads_the_next_occurrences(srv) -> None:
    op = await srv.admin("op")
    made = (await op.ok(**schedule_msg()))["schedule"]
    assert made["every_s"] == 86400 and made["cancelled"] is False and made["rated"] is True
    assert made["conditions"] == {"min_account_age_s": 60, "bots": False}
    first, second, third = made["next"]
    assert first["name"] == "Daily Gaps #1" and first["occurrence"] == 1  # a SUMMARY: created
    assert len(first["commitment"]) == 64 and "seed" not in first
    assert first["schedule"] == made["id"] and first["conditions"] == made["conditions"]
    assert first["created_at"] == timing.iso(T0) and first["rated"] is True
    assert first["beacon"] is None and first["void"] is False
    assert first["join_until"] == timing.iso(T0 + timedelta(hours=1, minutes=10))
    assert "commitment" not in second and second["occurrence"] == 2  # not yet created
    assert second["starts_at"] == timing.iso(T0 + timedelta(days=1, hours=1))
    assert third["ends_at"] == timing.iso(T0 + timedelta(days=2, hours=2))
    async with connect(srv.ws_url) as ws:  # public: no account needed
        anonymous = Client(ws, [])
        listed = (await anonymous.ok(type="schedules"))["items"]
        assert [s["id"] for s in listed] == [made["id"]] and listed[0]["next"] == made["next"]
        items = (await anonymous.ok(type="tournaments"))["items"]
        assert [t["name"] for t in items] == ["Daily Gaps #1"]
        await anonymous.err("unauthorized", type="create_schedule", **_body(schedule_msg()))
    status, body = await get(srv, "/schedules.json")
    assert status == 200 and json.loads(body)["items"] == listed
    gone = (await op.ok(type="cancel_schedule", schedule=made["id"]))["schedule"]
    assert gone["cancelled"] is True and [o["name"] for o in gone["next"]] == ["Daily Gaps #1"]
    srv.clock.advance(3 * 86400)
    await srv.tick()
    items = (await op.ok(type="tournaments"))["items"]
    assert [t["name"] for t in items] == ["Daily Gaps #1"]  # cancelled: no more, #1 stays


def _body(msg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in msg.items() if k != "type"}


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"every_s": 59}, "every_s"),
        ({"join_for_s": 7200}, "join_for_s"),
        ({"conditions": {"min_rating": "high"}}, "min_rating"),
        ({"game": "bridge"}, "unknown game"),
        ({"first_starts_at": "2026-12-01T18:00:00"}, "first_starts_at"),
    ],
)
async def test_bad_schedules_get_one_clear_error_and_change_nothing(srv, over, needle) -> None:
    op = await srv.admin("op")
    reply = await op.err("bad_request", **schedule_msg(**over))
    assert needle in reply["message"]
    assert (await op.ok(type="schedules"))["items"] == []
    assert (await op.ok(type="tournaments"))["items"] == []


async def test_players_may_not_schedule_or_cancel(srv) -> None:
    op = await srv.admin("op")
    made = (await op.ok(**schedule_msg()))["schedule"]
    async with srv.client() as c:
        await c.ok(type="register", name="alice")
        await c.err("forbidden", **schedule_msg())
        await c.err("forbidden", type="cancel_schedule", schedule=made["id"])
    await op.err("not_found", type="cancel_schedule", schedule=made["id"] + 1)


async def test_conditions_on_create_tournament_refuse_bots_and_new_accounts(srv) -> None:
    op = await srv.admin("op")
    msg = create_msg(conditions={"bots": False, "min_account_age_s": 600}, rated=False)
    t = (await op.ok(**msg))["tournament"]
    assert t["conditions"] == {"bots": False, "min_account_age_s": 600} and t["rated"] is False
    assert t["schedule"] is None and t["occurrence"] is None
    await op.err("bad_request", **create_msg(conditions={"min_age": 1}))
    async with srv.client() as bot, srv.client() as alice:
        await bot.ok(type="register", name="robo", bot=True)
        reply = await bot.err("forbidden", type="join", tournament=t["id"])
        assert "bots" in reply["message"]
        await alice.ok(type="register", name="alice")
        reply = await alice.err("forbidden", type="join", tournament=t["id"])
        assert "min_account_age_s" in reply["message"]
        srv.clock.advance(600)
        state = await alice.ok(type="join", tournament=t["id"])
        assert state["seq"] == 0
        reply = await bot.err("forbidden", type="join", tournament=t["id"])  # still a bot


async def test_the_calendar_is_icalendar_with_stable_unique_uids(srv) -> None:
    op = await srv.admin("op")
    made = (await op.ok(**schedule_msg(every_s=3600, duration_s=1800)))["schedule"]
    hand = (await op.ok(**create_msg(name="Friday, late; special")))["tournament"]
    status, body = await get(srv, "/calendar.ics")
    assert status == 200
    cal = icalendar.Calendar.from_ical(body)
    events = {str(e["UID"]): e for e in cal.walk("VEVENT")}
    sid = made["id"]
    host = "127.0.0.1"
    assert f"samedeal-{sid}-1@{host}" in events and f"samedeal-{sid}-3@{host}" in events
    assert f"samedeal-t-{hand['id']}@{host}" in events
    summaries = sorted(str(e["SUMMARY"]) for e in events.values())
    assert summaries == ["Daily Gaps #1", "Daily Gaps #2", "Daily Gaps #3", "Friday, late; special"]
    first = events[f"samedeal-{sid}-1@{host}"]
    assert first.decoded("DTSTART") == T0 + timedelta(hours=1)
    assert first.decoded("DTEND") == T0 + timedelta(hours=1, minutes=30)
    # an hour on: #1 runs, #2 is created (within a period); the UIDs stay
    srv.clock.advance(3600)
    await srv.tick()
    _, again = await get(srv, "/calendar.ics")
    later = {str(e["UID"]): e for e in icalendar.Calendar.from_ical(again).walk("VEVENT")}
    assert sorted(later) == [f"samedeal-{sid}-{k}@{host}" for k in (1, 2, 3)]  # hand: closed
    second = later[f"samedeal-{sid}-2@{host}"]
    assert str(second["SUMMARY"]) == "Daily Gaps #2"
    created = (await op.ok(type="schedules"))["items"][0]["next"][1]
    assert created["commitment"] in str(second["DESCRIPTION"])  # now with its commitment


async def test_a_bot_is_marked_in_standings_rows_paged_pushed_and_over_http(srv) -> None:
    op = await srv.admin("op")
    t = (await op.ok(**create_msg()))["tournament"]
    async with srv.client() as bot, srv.client() as alice:
        await bot.ok(type="register", name="robo", bot=True)
        await alice.ok(type="register", name="alice")
        await bot.ok(type="join", tournament=t["id"])
        await alice.ok(type="join", tournament=t["id"])
        window = await alice.ok(type="subscribe", tournament=t["id"])
        page = await alice.ok(type="standings_page", tournament=t["id"])
    for rows in (window["rows"], page["rows"]):
        assert {r["player"]: r["bot"] for r in rows} == {"robo": True, "alice": False}
    status, body = await get(srv, f"/tournaments/{t['id']}/standings.json")
    assert status == 200
    assert {r["player"]: r["bot"] for r in json.loads(body)["rows"]} == {
        "robo": True,
        "alice": False,
    }
