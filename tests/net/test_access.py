"""Who may send which message (server/net/access.py): the one check, for every type, and
(v1.4) the club events' judgement: an admin, or the event's club leaders."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
from server.domain.club_events import EventFields, Viewer
from server.domain.model import PlayerInfo
from server.net import access, protocol

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
