"""Several nodes are one server for clubs (v1.4, PROTOCOL.md "Clubs"), as real processes
on PostgreSQL: a club made on one node is joined on another, its members, leaders and
owner read the same everywhere, a new code made on one node kills the old one on the
others, and wrong codes count across nodes; a club event made by a leader on one node is
listed with its code to the owner on another, joined there with the code, and hidden from
an anonymous list and refused to a non-member on a third (v1.4 "Club events")."""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

from tests.e2e.test_nodes import client
from tests.support.processes import ServerProcess


async def test_nodes_agree_on_club_membership(nodes: list[ServerProcess]) -> None:
    a, b, c = nodes
    async with AsyncExitStack() as stack:
        ana = await stack.enter_async_context(client(a))
        bo = await stack.enter_async_context(client(b))
        cy = await stack.enter_async_context(client(c))
        watcher = await stack.enter_async_context(client(c))
        await ana.ok(type="register", name="Ana")
        await bo.ok(type="register", name="Bo")
        token = (await cy.ok(type="register", name="Cy"))["token"]
        cy_on_a = await stack.enter_async_context(client(a))
        await cy_on_a.ok(type="auth", token=token)
        made = (await ana.ok(type="create_club", name="Clube"))["club"]
        joined = (await bo.ok(type="join_club", code=made["invite"]))["club"]
        assert (joined["id"], joined["members"], joined["role"]) == (made["id"], 2, "member")
        await ana.ok(type="set_leader", club=made["id"], player="Bo", leader=True)
        seen = (await watcher.ok(type="club", club=made["id"]))["club"]
        assert (seen["owner"], seen["leaders"], seen["member_names"]) == (
            "Ana",
            ["Bo"],
            ["Ana", "Bo"],
        )
        fresh = (await bo.ok(type="new_invite", club=made["id"]))["club"]["invite"]
        assert (await cy.req(type="join_club", code=made["invite"]))["code"] == "not_found"
        for i in range(9):  # Cy's wrong codes on two nodes count together: 10 in all
            node = cy if i % 2 else cy_on_a
            assert (await node.req(type="join_club", code=f"nope{i}"))["code"] == "not_found"
        limited = await cy_on_a.req(type="join_club", code=fresh)
        assert (limited["code"], limited["limit"]) == ("rate_limited", "codes")
        assert (await ana.req(type="join_club", code="nope"))["code"] == "not_found"  # per player
        on_c = (await watcher.ok(type="club", club=made["id"]))["club"]
        assert on_c["member_names"] == ["Ana", "Bo"]
        listed = await watcher.ok(type="clubs")
        assert [(x["name"], x["members"]) for x in listed["items"]] == [("Clube", 2)]

        ends = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        event = {"type": "create_tournament", "name": "Sexta", "game": "gaps", "ends_at": ends}
        made_t = await bo.ok(**event, club=made["id"], visibility="unlisted", entry_code="Sx-2026")
        t = made_t["tournament"]
        assert (t["club"], t["rated"], t["entry_code"]) == (made["id"], False, "Sx-2026")
        mine = {x["id"]: x for x in (await ana.ok(type="tournaments"))["items"]}
        assert mine[t["id"]]["entry_code"] == "Sx-2026"  # the owner, on another node
        assert t["id"] not in [x["id"] for x in (await watcher.ok(type="tournaments"))["items"]]
        await ana.ok(type="join", tournament=t["id"], code="Sx-2026")
        refused = await cy.req(type="join", tournament=t["id"], code="Sx-2026")
        assert (refused["code"], refused["reason"]) == ("forbidden", "condition_club")
