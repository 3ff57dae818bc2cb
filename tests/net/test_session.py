"""One connection's session (server/net/session.py), fed frames in-process: every frame
gets one reply (an error for a bad one, with `re` when its id could be read), messages
past the rate are refused and sustained abuse closes, who may send what is checked once,
each message reaches its part of the competition, and a device signed out elsewhere is
told after the reply in hand."""

from __future__ import annotations

from typing import Any

import pytest

from server.net import session as session_mod
from server.net.app import App
from server.net.limits import TokenBucket
from tests.net.conftest import Wire, signed_in
from tests.support.harness import Clock, create_msg


async def test_a_frame_that_is_no_message_gets_a_bad_request_and_changes_nothing(
    app: App,
) -> None:
    wire = Wire(app)
    cases: list[tuple[str | bytes, Any, str, str]] = [
        ("not json", None, "not_json", "not JSON"),
        (b"\x00binary", None, "binary_frame", "binary frames are not supported"),
        ("[1, 2]", None, "bad_shape", "a message is a JSON object"),
        ('{"id": 4, "type": "fly"}', 4, "bad_shape", "unknown message type 'fly'"),
        ('{"id": "a", "type": 3}', "a", "bad_shape", "a message's type is a string, not a number"),
        ('{"type": null}', None, "bad_shape", "a message's type is a string, not null"),
        ('{"type": [1]}', None, "bad_shape", "a message's type is a string, not an array"),
        ('{"id": 9, "type": "ping", "x": 1}', 9, "bad_shape", "bad ping: "),
    ]
    for frame, re, reason, message in cases:
        reply = await wire.session.handle(frame)
        assert (reply["code"], reply["re"], reply["reason"]) == ("bad_request", re, reason), frame
        assert reply["message"].startswith(message), reply
    assert app.competition.catalogue.known() == []


async def test_the_reply_echoes_an_id_it_can_carry_and_no_other(app: App) -> None:
    wire = Wire(app)
    for given, echoed in (("abc", "abc"), (7, 7), (-(2**53) + 1, -(2**53) + 1)):
        assert (await wire.ok(type="ping", id=given))["re"] == echoed
    for bad in ("x" * 129, 2**53, True, 1.5, None):
        assert (await wire.req(type="fly", id=bad))["re"] is None, bad
    pong = await wire.ok(type="ping")
    assert pong == {"type": "pong", "server_time": "2026-11-30T18:00:00.000Z", "re": None}


async def test_past_the_rate_a_message_is_refused_and_sustained_abuse_closes(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_mod, "ABUSE_STRIKES", 3)
    wire = Wire(app)
    wire.session.bucket = TokenBucket(rate=0.0, burst=2)
    await wire.ok(type="ping", id=1)
    await wire.ok(type="ping", id=2)
    refused = await wire.err("rate_limited", type="ping", id=3)
    assert (refused["re"], refused["reason"]) == (3, "too_many_messages")
    await wire.err("rate_limited", type="ping")
    with pytest.raises(session_mod.Abuse):
        await wire.req(type="ping")  # the third refusal in a row


async def test_register_and_auth_sign_the_connection_in(app: App) -> None:
    wire = Wire(app)
    reg = await wire.ok(type="register", name="Ana", device="laptop")
    assert reg["player"] == {"id": reg["player"]["id"], "name": "Ana"}
    assert reg["device"]["label"] == "laptop" and reg["device"]["kind"] == "token"
    assert wire.session.player is not None and wire.session.player.name == "Ana"
    other = Wire(app)
    authed = await other.ok(type="auth", token=reg["token"])
    assert authed["player"] == {"id": reg["player"]["id"], "name": "Ana", "admin": False}
    assert authed["device"] == reg["device"]
    bot = await Wire(app).ok(type="register", name="Robo", bot=True)
    assert bot["player"]["bot"] is True
    await Wire(app).err("unauthorized", type="auth", token="x" * 43)
    assert (await Wire(app).err("name_taken", type="register", name="ana"))["reason"] == (
        "name_taken"
    )


async def test_a_registration_past_the_addresss_limit_is_refused(app: App) -> None:
    wire = Wire(app)
    wire.session.may_register = lambda: False
    refused = await wire.err("rate_limited", type="register", name="Ana")
    assert refused["reason"] == "too_many_registrations"
    assert wire.session.player is None


async def test_who_may_send_what_is_checked_before_the_handler(app: App) -> None:
    anonymous = Wire(app)
    await anonymous.err("unauthorized", type="join", tournament=1)
    player = await signed_in(app, "ana")
    await player.err("forbidden", **create_msg())
    assert app.competition.catalogue.known() == []


async def test_playing_a_tournament_through_the_session(app: App) -> None:
    op = await signed_in(app, "op", admin=True)
    made = (await op.ok(**create_msg(), id="c"))["tournament"]
    assert (made["name"], made["status"], "seed" not in made) == ("Friday Gaps", "open", True)
    ana = await signed_in(app, "ana")
    joined = await ana.ok(type="join", tournament=made["id"])
    assert (joined["type"], joined["seq"], joined["status"]) == ("state", 0, "playing")
    state = await ana.ok(type="state", tournament=made["id"])
    assert state["log_hash"] == joined["log_hash"]
    await ana.err("forbidden", type="hint", tournament=made["id"])  # Gaps gives no hints
    before = app.metrics.actions_accepted
    acted = await ana.ok(type="act", tournament=made["id"], seq=1, action={"kind": "resign"})
    assert (acted["seq"], acted["status"]) == (1, "resigned")
    assert app.metrics.actions_accepted == before + 1
    assert app.metrics.action_seconds.total == 1
    stale = await ana.err(
        "out_of_sync", type="act", tournament=made["id"], seq=5, action={"kind": "resign"}
    )
    assert stale["seq"] == 2 and app.metrics.actions_rejected["out_of_sync"] == 1
    listed = await Wire(app).ok(type="tournaments")
    assert [t["id"] for t in listed["items"]] == [made["id"]]
    await Wire(app).err("not_revealed", type="record", tournament=made["id"], player="ana")
    await op.ok(type="close_tournament", tournament=made["id"])
    record = await Wire(app).ok(type="record", tournament=made["id"], player="ana")
    assert record["record"]["player"]["name"] == "ana"


async def test_subscribing_to_a_closed_tournament_brings_its_reveal_after_the_reply(
    app: App, clock: Clock
) -> None:
    op = await signed_in(app, "op", admin=True)
    tid = (await op.ok(**create_msg()))["tournament"]["id"]
    watcher = Wire(app)
    live = await watcher.ok(type="subscribe", tournament=tid, top=5, around=1)
    assert (live["type"], live["final"], live["total"]) == ("standings", False, 0)
    assert app.fanout.watching(tid, watcher.conn)
    assert await watcher.pushed() == []
    closed = (await op.ok(type="close_tournament", tournament=tid))["tournament"]
    assert closed["status"] == "closed" and len(closed["seed"]) == 64
    late = Wire(app)
    final = await late.ok(type="subscribe", tournament=tid)
    assert final["final"] is True
    [reveal] = await late.pushed()
    assert reveal == {
        "type": "closed",
        "tournament": tid,
        "seed": closed["seed"],
        "log_root": reveal["log_root"],
    }
    page = await late.ok(type="standings_page", tournament=tid, offset=0, limit=10)
    assert page["type"] == "standings" and page["final"] is True
    gone = await late.ok(type="unsubscribe", tournament=tid)
    assert gone == {"type": "unsubscribed", "tournament": tid, "re": None}
    assert not app.fanout.watching(tid, late.conn)
    await late.err("not_found", type="unsubscribe", tournament=tid + 1)


async def test_an_unexpected_failure_is_an_internal_error_and_an_act_says_send_again(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(_session: Any, _message: Any) -> dict[str, Any]:
        raise RuntimeError("a bug")

    monkeypatch.setitem(session_mod._HANDLERS, "ping", broken)
    monkeypatch.setitem(session_mod._HANDLERS, "act", broken)
    wire = await signed_in(app, "ana")
    failed = await wire.err("internal", type="ping", id=1)
    assert failed["message"] == "internal error; nothing was changed" and failed["re"] == 1
    act = await wire.err("internal", type="act", tournament=1, seq=1, action={})
    assert act["reason"] == "act_not_acknowledged"
    assert app.metrics.actions_rejected["internal"] == 1


async def test_a_device_signed_out_meanwhile_is_told_after_the_reply(app: App) -> None:
    wire = await signed_in(app, "ana")
    deleted = await wire.ok(type="delete_account", confirm="ana")
    assert deleted["type"] == "account_deleted"
    assert wire.session.player is None and wire.session.device is None
    assert await wire.pushed() == [{"type": "signed_out"}]  # after, not instead of, the reply
    await wire.err("unauthorized", type="devices")


async def test_ratings_and_fair_play_messages_reach_their_parts(app: App) -> None:
    anonymous = Wire(app)
    board = await anonymous.ok(type="leaderboard", game="gaps")
    assert (board["type"], board["total"], board["rows"]) == ("leaderboard", 0, [])
    await signed_in(app, "ana")
    page = await anonymous.ok(type="player", name="ana")
    assert page["player"]["name"] == "ana" and page["ratings"] == {}
    op = await signed_in(app, "op", admin=True)
    tid = (await op.ok(**create_msg()))["tournament"]["id"]
    report = await op.ok(type="fairplay_report", tournament=tid)
    assert report == {"type": "fairplay_report", "tournament": tid, "findings": [], "re": None}
    await op.err("not_found", type="disqualify", tournament=tid, player="nobody", reason="r")
