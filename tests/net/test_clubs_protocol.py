"""The club messages over a real WebSocket (v1.4, PROTOCOL.md "Clubs"): their replies'
shapes, who may send them, `invite` only for leaders, refusals with `reason`, `params`
and, for quotas and guessing, `limit`."""

from __future__ import annotations

from server import i18n
from tests.support.harness import running_server


async def test_club_messages_over_the_wire(sqlite_url: str) -> None:
    async with running_server(sqlite_url) as srv, srv.client() as ana, srv.client() as bo:
        await ana.ok(type="register", name="Ana")
        await bo.ok(type="register", name="Bo")
        made = (await ana.ok(type="create_club", name="Clube", description="Sextas"))["club"]
        assert set(made) == {
            "id",
            "name",
            "description",
            "owner",
            "leaders",
            "members",
            "created_at",
            "role",
            "invite",
        }
        assert (made["owner"], made["leaders"], made["members"], made["role"]) == (
            "Ana",
            [],
            1,
            "owner",
        )
        joined = (await bo.ok(type="join_club", code=made["invite"]))["club"]
        assert joined["role"] == "member" and "invite" not in joined
        led = await ana.ok(type="set_leader", club=made["id"], player="bo", leader=True)
        assert led["type"] == "club" and led["club"]["leaders"] == ["Bo"]
        shown = (await bo.ok(type="club", club=made["id"]))["club"]
        assert (shown["role"], shown["invite"]) == ("leader", made["invite"])  # every CLUB
        assert shown["member_names"] == ["Ana", "Bo"]
        fresh = (await bo.ok(type="new_invite", club=made["id"]))["club"]
        assert fresh["invite"] and fresh["invite"] != made["invite"]
        listed = await bo.ok(type="clubs", mine=True)
        assert listed["total"] == 1 and listed["items"][0]["role"] == "leader"
        assert listed["items"][0]["invite"] == fresh["invite"]  # the current code
        err = await bo.err("forbidden", type="kick_member", club=made["id"], player="Ana")
        assert err["reason"] == "club_role" and err["message"]
        err = await ana.err("not_found", type="club", club=99)
        assert (err["reason"], err["params"]) == ("no_club", {"id": 99})
        assert i18n.translate("es", "reason.no_club", **err["params"]) == "No existe el club 99."
        for name in ("Two", "Three"):
            await ana.ok(type="create_club", name=name)
        err = await ana.err("rate_limited", type="create_club", name="Four")
        assert (err["limit"], err["reason"], err["params"]) == (
            "clubs_owned",
            "clubs_owned",
            {"max": 3},
        )
        await ana.err("bad_request", type="create_club", name="Five", extra=1)
        await ana.err("bad_request", type="clubs", limit=101)
        assert (await bo.req(type="join_club", code=12))["code"] == "bad_request"  # not counted
        for i in range(10):  # a code of any length is a wrong code like any other
            code = f"nope{i}" if i else "x" * 500
            assert (await bo.req(type="join_club", code=code))["code"] == "not_found"
        err = await bo.req(type="join_club", code=fresh["invite"])
        assert err["code"] == "rate_limited"
        assert err["limit"] == "codes" and err["reason"] == "code_guesses"

    async with running_server(sqlite_url) as srv, srv.client() as anon:
        listed = await anon.ok(type="clubs")  # public
        assert listed["total"] == 3 and all(c["role"] is None for c in listed["items"])
        assert all("invite" not in c for c in listed["items"])
        assert (await anon.ok(type="club", club=1))["club"]["member_names"] == ["Ana", "Bo"]
        err = await anon.err("unauthorized", type="clubs", mine=True)
        assert err["reason"] == "sign_in_first"
        for msg in (
            {"type": "create_club", "name": "X"},
            {"type": "leave_club", "club": 1},
            {"type": "new_invite", "club": 1},
            {"type": "set_owner", "club": 1, "player": "Bo"},
            {"type": "kick_member", "club": 1, "player": "Bo"},
            {"type": "set_leader", "club": 1, "player": "Bo", "leader": False},
        ):
            await anon.err("unauthorized", **msg)
        assert (await anon.req(type="join_club", code="x"))["code"] == "unauthorized"
