"""Club events over a real WebSocket (v1.4, PROTOCOL.md "Club
events", "Visibility and entry codes", "Summaries"): a club's leaders create, close,
cancel and disqualify without being admins; lists depend on who asks; the entry code is
shown only to its creator, the club's leaders and admins, and no list, standings, record,
bundle or calendar carries it; every refusal changes nothing. On SQLite only (suite
time): the same parts run on PostgreSQL in tests/competition/test_club_events.py,
tests/store/test_club_events.py and across node processes in tests/e2e/test_clubs_nodes.py."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from server.store.models import Entry, Schedule, TournamentRow
from tests.support.harness import T0, Client, Running, create_msg, http_get, running_server

CODE = "Sexta-42_x"
SCHEDULE_CODE = "Sabado-77_y"


async def _rows(srv: Running) -> Any:
    async with srv.app.store._session() as s:
        return [
            [
                (r.id, r.status)
                for r in await s.scalars(select(TournamentRow).order_by(TournamentRow.id))
            ],
            [(r.id, r.cancelled) for r in await s.scalars(select(Schedule).order_by(Schedule.id))],
            [r.id for r in await s.scalars(select(Entry).order_by(Entry.id))],
        ]


async def _refused(srv: Running, c: Client, error: str, why: str, /, **msg: Any) -> dict[str, Any]:
    before = await _rows(srv)
    reply = await c.req(**msg)
    assert (reply["type"], reply.get("code"), reply.get("reason")) == ("error", error, why), reply
    assert await _rows(srv) == before
    return reply


def _ids(reply: dict[str, Any]) -> list[int]:
    return [t["id"] for t in reply["items"]]


async def _get(srv: Running, path: str) -> bytes:
    status, body = await asyncio.to_thread(http_get, srv.http + path)
    assert status == 200, (path, status)
    return body


def _schedule(**over: Any) -> dict[str, Any]:
    msg = {
        "type": "create_schedule",
        "name": "Sabado",
        "game": "gaps",
        "first_starts_at": (T0 + timedelta(minutes=30)).isoformat(),
        "every_s": 86400,
        "duration_s": 3600,
    }
    return msg | over


async def test_club_events_over_the_wire(sqlite_url: str) -> None:
    async with (
        running_server(sqlite_url) as srv,
        srv.client() as ana,
        srv.client() as bo,
        srv.client() as cy,
        srv.client() as anon,
    ):
        op = await srv.admin()
        for c, name in ((ana, "Ana"), (bo, "Bo"), (cy, "Cy")):
            await c.ok(type="register", name=name)
        club = (await ana.ok(type="create_club", name="Clube"))["club"]
        other = (await cy.ok(type="create_club", name="Outro"))["club"]
        await bo.ok(type="join_club", code=club["invite"])
        one = club["id"]

        # creation: a leader, unrated, the code shown to its creator
        made = await ana.ok(**create_msg(club=one, visibility="unlisted", entry_code=CODE))
        t = made["tournament"]
        assert (t["club"], t["battle"], t["visibility"], t["rated"]) == (
            one,
            None,
            "unlisted",
            False,
        )
        assert (t["code_required"], t["entry_code"]) == (True, CODE)
        await _refused(srv, bo, "forbidden", "club_leaders_only", **create_msg(club=one))
        await _refused(srv, ana, "forbidden", "operator_only", **create_msg())
        await _refused(srv, ana, "forbidden", "club_leaders_only", **create_msg(club=other["id"]))
        await _refused(
            srv, ana, "forbidden", "club_event_unrated", **create_msg(club=one, rated=True)
        )
        reply = await _refused(srv, ana, "not_found", "no_club", **create_msg(club=99))
        assert reply["params"] == {"id": 99}
        await _refused(
            srv, ana, "bad_request", "bad_entry_code", **create_msg(club=one, entry_code="abc")
        )
        await _refused(
            srv, ana, "bad_request", "bad_shape", **create_msg(club=one, visibility="secret")
        )
        battle = {"clubs": [one, other["id"]], "counted": 2}
        await _refused(srv, ana, "forbidden", "club_leaders_only", **create_msg(battle=battle))
        await _refused(
            srv, op, "bad_request", "battle_with_club", **create_msg(club=one, battle=battle)
        )
        await _refused(srv, ana, "bad_request", "bad_shape", **_schedule(club=one, battle=battle))
        rated = (await op.ok(**create_msg(club=one, name="Rated")))["tournament"]
        assert (rated["rated"], rated["club"], rated["code_required"]) == (True, one, False)
        sched = await ana.ok(**_schedule(club=one, visibility="unlisted", entry_code=SCHEDULE_CODE))
        s = sched["schedule"]
        assert (s["club"], s["visibility"], s["rated"], s["entry_code"]) == (
            one,
            "unlisted",
            False,
            SCHEDULE_CODE,
        )
        assert "battle" not in s and s["next"][0]["entry_code"] == SCHEDULE_CODE  # its occurrence

        # lists depend on who asks; the code only for its creator, leaders and admins
        tid, rid = t["id"], rated["id"]
        occurrence = s["next"][0]["id"]
        listed = {
            name: await c.ok(type="tournaments")
            for name, c in (("op", op), ("ana", ana), ("bo", bo), ("cy", cy), ("anon", anon))
        }
        assert {tid, occurrence} <= set(_ids(listed["op"])) and {tid, occurrence} <= set(
            _ids(listed["bo"])
        )
        for name in ("cy", "anon"):
            assert not {tid, occurrence} & set(_ids(listed[name])) and rid in _ids(listed[name])
        shown = {name: {i["id"]: i for i in listed[name]["items"]} for name in ("op", "ana", "bo")}
        assert shown["op"][tid]["entry_code"] == CODE and shown["ana"][tid]["entry_code"] == CODE
        assert "entry_code" not in shown["bo"][tid] and shown["bo"][tid]["code_required"]
        assert [x["id"] for x in (await cy.ok(type="schedules"))["items"]] == []
        assert "entry_code" not in (await bo.ok(type="schedules"))["items"][0]
        for path in ("/schedules.json", "/calendar.ics"):
            body = await _get(srv, path)
            assert (
                SCHEDULE_CODE.encode() not in body
                and b"Sabado" not in body
                and b"Friday" not in body
            )

        # joining: members, with the code; managing: the club's leaders
        reply = await _refused(
            srv, cy, "forbidden", "condition_club", type="join", tournament=tid, code=CODE
        )
        assert reply["params"] == {"condition": "club"}
        await _refused(srv, bo, "forbidden", "entry_code_needed", type="join", tournament=tid)
        await bo.ok(type="join", tournament=tid, code=CODE)
        await bo.ok(type="join", tournament=rid)
        await _refused(
            srv, bo, "forbidden", "club_leaders_only", type="close_tournament", tournament=tid
        )
        await _refused(
            srv, bo, "forbidden", "club_leaders_only", type="cancel_schedule", schedule=s["id"]
        )
        await _refused(
            srv,
            ana,
            "forbidden",
            "rated_club_disqualify",
            type="disqualify",
            tournament=rid,
            player="Bo",
            reason="x",
        )
        await ana.ok(type="disqualify", tournament=tid, player="Bo", reason="two accounts")
        closed = (await ana.ok(type="close_tournament", tournament=tid))["tournament"]
        assert closed["status"] == "closed" and closed["entry_code"] == CODE
        assert (await ana.ok(type="cancel_schedule", schedule=s["id"]))["schedule"]["cancelled"]
        await ana.ok(type="close_tournament", tournament=rid)  # a leader closes a rated one
        await op.ok(type="disqualify", tournament=rid, player="Bo", reason="checked")

        # after the close: public by id, and nothing carries the code
        seen = [await anon.ok(type="standings_page", tournament=tid)]
        seen.append(await anon.ok(type="record", tournament=tid, player="Bo"))
        for path in (
            f"/tournaments/{tid}/bundle.json",
            f"/tournaments/{tid}/standings.json",
            f"/tournaments/{tid}/calendar.ics",
            f"/tournaments/{tid}/results.csv",
            "/players/Bo.json",
        ):
            assert CODE.encode() not in await _get(srv, path), path
        assert all(CODE not in str(x) for x in seen)
        assert CODE not in str(anon.received) and CODE not in str(cy.received)
        assert CODE not in str(bo.received)  # a member, not a leader: never shown it
