"""The club messages' handlers (server/net/clubs_session.py), through one connection's
session in-process: each answers the CLUB as its asker sees it (`invite` for its owner
and leaders only), `clubs` lists, `club` shows the members, and every verb reaches the
clubs part with the signed-in player."""

from __future__ import annotations

from server.net import clubs_session
from server.net.app import App
from server.net.clubs_protocol import CLUB_MESSAGES
from tests.net.conftest import Wire, signed_in


def test_every_club_message_has_its_handler() -> None:
    kinds = {m.model_fields["type"].annotation.__args__[0] for m in CLUB_MESSAGES}  # type: ignore[union-attr]
    assert set(clubs_session.HANDLERS) == kinds


async def test_a_club_made_joined_led_and_handed_over(app: App) -> None:
    ana, bo, cy = [await signed_in(app, name) for name in ("ana", "bo", "cy")]
    made = await ana.ok(type="create_club", name="Clube", description="Sextas")
    club = made["club"]
    assert made["type"] == "club" and (club["owner"], club["role"], club["members"]) == (
        "ana",
        "owner",
        1,
    )
    assert club["invite"] and club["description"] == "Sextas"
    joined = (await bo.ok(type="join_club", code=club["invite"]))["club"]
    assert (joined["role"], joined["members"], "invite" in joined) == ("member", 2, False)
    await cy.ok(type="join_club", code=club["invite"])
    led = (await ana.ok(type="set_leader", club=club["id"], player="bo", leader=True))["club"]
    assert led["leaders"] == ["bo"]
    fresh = (await bo.ok(type="new_invite", club=club["id"]))["club"]
    assert fresh["role"] == "leader" and fresh["invite"] not in (None, club["invite"])
    kicked = (await bo.ok(type="kick_member", club=club["id"], player="cy"))["club"]
    assert kicked["members"] == 2
    shown = (await Wire(app).ok(type="club", club=club["id"]))["club"]
    assert shown["member_names"] == ["ana", "bo"] and shown["role"] is None
    assert "invite" not in shown  # nobody signed in
    handed = (await ana.ok(type="set_owner", club=club["id"], player="bo"))["club"]
    assert (handed["owner"], handed["role"]) == ("bo", "leader")  # the old owner leads
    left = (await ana.ok(type="leave_club", club=club["id"]))["club"]
    assert (left["members"], left["role"]) == (1, None)


async def test_clubs_are_listed_for_anyone_and_mine_for_a_player(app: App) -> None:
    ana = await signed_in(app, "ana")
    await ana.ok(type="create_club", name="Um")
    await ana.ok(type="create_club", name="Dois")
    bo = await signed_in(app, "bo")
    listed = await Wire(app).ok(type="clubs", limit=1)
    assert listed["type"] == "clubs" and listed["total"] == 2 and len(listed["items"]) == 1
    assert (await bo.ok(type="clubs", mine=True))["total"] == 0
    mine = await ana.ok(type="clubs", mine=True)
    assert {c["name"] for c in mine["items"]} == {"Um", "Dois"}
    assert all(c["role"] == "owner" and c["invite"] for c in mine["items"])
    refused = await Wire(app).err("unauthorized", type="clubs", mine=True)
    assert refused["reason"] == "sign_in_first"


async def test_a_club_verb_refused_by_the_part_changes_nothing(app: App) -> None:
    ana, bo = await signed_in(app, "ana"), await signed_in(app, "bo")
    club = (await ana.ok(type="create_club", name="Clube"))["club"]
    await bo.ok(type="join_club", code=club["invite"])
    refused = await bo.err("forbidden", type="kick_member", club=club["id"], player="ana")
    assert refused["reason"] == "club_role"
    assert (await ana.ok(type="club", club=club["id"]))["club"]["members"] == 2
    assert (await ana.err("not_found", type="club", club=99))["params"] == {"id": 99}
