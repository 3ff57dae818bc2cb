"""Who may send which message (server/net/access.py): the one check, for every type."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
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
            want = "forbidden" if kind in access.OPERATOR_TYPES else None
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
        access.check(kind, ALICE)
    assert (refused.value.code, refused.value.message) == ("forbidden", message)
