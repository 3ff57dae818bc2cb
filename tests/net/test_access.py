"""Who may send which message (server/net/access.py): the one check, for every type, and
(v1.4) the club events' judgement: an admin, or the event's club leaders."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from server.competition.errors import CompetitionError
from server.domain.club_events import EventFields, Viewer
from server.domain.model import PlayerInfo
from server.net import access, protocol
from server.net.app import App
from server.store.models import DisqualificationRow, Entry, Schedule, TournamentRow
from tests.net.conftest import signed_in
from tests.support.harness import T0, create_msg

ALICE = PlayerInfo(1, "alice", admin=False)
OPERATOR = PlayerInfo(2, "op", admin=True)


def refusal(kind: str, player: PlayerInfo | None) -> str | None:
    try:
        access.check(kind, player)
    except CompetitionError as exc:
        return exc.code
    return None


def test_every_type_is_open_for_players_or_the_operators() -> None:
    declared = access.OPEN_TYPES | set(access.OPERATOR_TYPES)
    assert declared <= protocol.MESSAGE_TYPES
    assert not access.OPEN_TYPES & set(access.OPERATOR_TYPES)
    for kind in protocol.MESSAGE_TYPES:
        assert refusal(kind, OPERATOR) is None, kind
        if kind in access.OPEN_TYPES:
            assert refusal(kind, None) is None and refusal(kind, ALICE) is None, kind
        else:
            assert refusal(kind, None) == "unauthorized", kind
            operators = set(access.OPERATOR_TYPES) - access.CLUB_EVENT_TYPES
            want = "forbidden" if kind in operators else None  # club events: judged after
            assert refusal(kind, ALICE) == want, kind


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("create_tournament", "only an operator creates tournaments"),
        ("close_tournament", "only an operator closes tournaments"),
        ("create_schedule", "only an operator creates schedules"),
        ("cancel_schedule", "only an operator cancels schedules"),
        ("disqualify", "only an operator disqualifies"),
        ("fairplay_report", "only an operator reads fair-play reports"),
    ],
)
def test_an_operator_message_from_a_player_is_forbidden_saying_why(kind: str, message: str) -> None:
    with pytest.raises(CompetitionError) as refused:
        if kind not in access.CLUB_EVENT_TYPES:
            access.check(kind, ALICE)
        elif kind.startswith("create"):  # an event of no club: an operator's only
            access.creation(kind, PLAYER, EventFields(), None)
        else:
            access.manage(kind, PLAYER, EventFields(), False)
    assert (refused.value.code, refused.value.message) == ("forbidden", message)
    assert refused.value.reason == "operator_only"


PLAYER = Viewer(1, False, frozenset({7, 8}), frozenset({7}))
ADMIN = Viewer(2, True)


def _reason(call: object, *args: object) -> str | None:
    try:
        call(*args)  # type: ignore[operator]
    except CompetitionError as exc:
        assert exc.code == "forbidden"
        return exc.reason
    return None


def test_club_events_are_their_leaders_and_unrated() -> None:
    """v1.4: a leader of every named club creates and manages; a non-admin's event is
    unrated (`rated: true` refused); in a rated club event only admins disqualify."""
    ours, theirs = EventFields(club_id=7), EventFields(club_id=8)
    both = EventFields(battle={"clubs": [7, 8], "counted": 2})
    assert access.creation("create_tournament", PLAYER, ours, None) is False
    assert access.creation("create_schedule", PLAYER, ours, False) is False
    assert _reason(access.creation, "create_tournament", PLAYER, ours, True) == (
        "club_event_unrated"
    )
    for event in (theirs, both):  # a member, not a leader; a battle led only in part
        assert _reason(access.creation, "create_tournament", PLAYER, event, None) == (
            "club_leaders_only"
        )
        assert _reason(access.manage, "close_tournament", PLAYER, event, False) == (
            "club_leaders_only"
        )
    assert access.creation("create_tournament", ADMIN, theirs, None) is True
    assert access.creation("create_tournament", ADMIN, both, False) is False
    for kind in ("close_tournament", "cancel_schedule", "disqualify"):
        assert _reason(access.manage, kind, PLAYER, ours, False) is None
        assert _reason(access.manage, kind, ADMIN, theirs, True) is None
    assert _reason(access.manage, "close_tournament", PLAYER, ours, True) is None
    assert _reason(access.manage, "disqualify", PLAYER, ours, True) == "rated_club_disqualify"


SCHEDULE = {
    "name": "Sabado",
    "game": "gaps",
    "first_starts_at": (T0 + timedelta(minutes=30)).isoformat(),
    "every_s": 86400,
    "duration_s": 3600,
}


def operator_message(kind: str, tournament: int, schedule: int) -> dict[str, Any]:
    """A well-formed message of `kind` aimed at `tournament` / `schedule` (ids that may
    not exist), as an operator would send it."""
    messages: dict[str, dict[str, Any]] = {
        "create_tournament": create_msg(name="Not yours"),
        "close_tournament": {"tournament": tournament},
        "create_schedule": SCHEDULE,
        "cancel_schedule": {"schedule": schedule},
        "disqualify": {"tournament": tournament, "player": "bob", "reason": "engine"},
        "fairplay_report": {"tournament": tournament},
    }
    return messages[kind] | {"type": kind}


async def _state(app: App) -> list[Any]:
    async with app.store._session() as s:
        return [
            list((await s.execute(select(TournamentRow.id, TournamentRow.status))).all()),
            list((await s.execute(select(Schedule.id, Schedule.cancelled))).all()),
            list((await s.execute(select(Entry.id, Entry.status))).all()),
            list(await s.scalars(select(DisqualificationRow.entry_id))),
        ]


@pytest.mark.parametrize("kind", sorted(access.OPERATOR_TYPES))
async def test_every_operator_message_from_a_plain_player_is_refused_and_changes_nothing(
    app: App, kind: str
) -> None:
    """Enforced, not only declared: a signed-in player who is no admin and leads no club
    sends each operator type over the session, aimed at a tournament and a schedule that
    exist (`forbidden`) and at ones that do not (`forbidden`, or `not_found` where the
    club events' judgement needs the target first); nothing is stored."""
    operator = await signed_in(app, "op", admin=True)
    tournament = (await operator.ok(**create_msg()))["tournament"]["id"]
    schedule = (await operator.ok(type="create_schedule", **SCHEDULE))["schedule"]["id"]
    bob = await signed_in(app, "bob")
    await bob.ok(type="join", tournament=tournament)
    alice = await signed_in(app, "alice")
    before = await _state(app)
    reply = await alice.req(**operator_message(kind, tournament, schedule))
    assert (reply["type"], reply.get("code")) == ("error", "forbidden"), reply
    assert reply["message"] == access.OPERATOR_TYPES[kind]
    missing = await alice.req(**operator_message(kind, tournament + 100, schedule + 100))
    assert missing["type"] == "error" and missing.get("code") in ("forbidden", "not_found"), missing
    assert await _state(app) == before


def test_only_an_admin_is_the_operator_viewer_whose_creations_fit_no_club_limits() -> None:
    assert access.operator_viewer(OPERATOR) == Viewer(OPERATOR.id, True)
    assert access.operator_viewer(ALICE) is None and access.operator_viewer(None) is None
    battle = EventFields(battle={"clubs": [7, 8], "counted": 2})
    assert access.limited_clubs(ADMIN, battle) == ()
    assert access.limited_clubs(PLAYER, battle) == (7, 8)
