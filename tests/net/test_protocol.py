"""Protocol v1's messages (server/net/protocol.py): every client message parsed strictly
by its `type`, and the replies built from the competition's records (error, SUMMARY,
state, closed, standings); a standings frame is bounded by its window, never by the
number of entrants."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from server.competition.live_game import Snapshot
from server.competition.standings.leaderboard import EntryRow, Leaderboard
from server.competition.standings.reading import View
from server.domain.club_events import ANONYMOUS, EventFields, Viewer
from server.domain.model import TournamentInfo, TournamentStatus
from server.domain.ranking import Standing, Unranked
from server.net import protocol
from tests.support.factories import figures

T0 = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)

KIB = 1024


def crowded(entrants: int) -> Leaderboard:
    """Long names, big ranks and times, every status: the largest rows there can be."""
    rnd = random.Random(entrants)
    board = Leaderboard(now=10**12)
    statuses = ["playing", "won", "lost", "resigned", "timed_out"]
    for i in range(entrants):
        progress = rnd.randrange(49)
        board.upsert(
            EntryRow(
                f"{i:06d}" + "x" * 26,  # 32 characters, the longest name
                figures(
                    rnd.choice(statuses),
                    progress,
                    rnd.randrange(3),
                    score=progress - 10,
                    time_ms=rnd.randrange(10**9),
                ),
                10**12 - rnd.randrange(10**9),
                10**12 + 10**9,
            )
        )
    return board


def frame_bytes(board: Leaderboard, top: int, around: int, player: str | None) -> int:
    rows, gap = board.window_and_gap(top, around, player)
    view = View(rows, board.total, 123456, False, board.now, gap)
    return len(orjson.dumps(protocol.standings_message(7, view)))


def test_a_default_window_stays_under_16_kib_whatever_the_entrants() -> None:
    sizes = {}
    for entrants in (10, 1_000, 10_000, 50_000):
        board = crowded(entrants)
        middle = f"{entrants // 2:06d}" + "x" * 26
        sizes[entrants] = frame_bytes(board, 10, 5, middle)
        assert sizes[entrants] < 16 * KIB
    assert sizes[50_000] <= sizes[1_000] + 64  # flat: only ranks' digits grow


def test_the_largest_window_the_protocol_allows_is_bounded_too() -> None:
    board = crowded(20_000)
    middle = f"{10_000:06d}" + "x" * 26
    size = frame_bytes(board, 100, 50, middle)  # 100 + 2 * 50 + 1 rows
    assert size < 32 * KIB


# -- client messages ------------------------------------------------------------------
def parse(**message: Any) -> Any:
    return protocol.CLIENT_MESSAGE.validate_python(message)


def test_a_message_is_parsed_by_its_type_into_its_model() -> None:
    act = parse(type="act", id="a1", tournament=3, seq=2, action={"kind": "resign"})
    assert isinstance(act, protocol.Act)
    assert (act.id, act.tournament, act.seq, act.action) == ("a1", 3, 2, {"kind": "resign"})
    sub = parse(type="subscribe", tournament=3)
    assert (sub.top, sub.around, sub.id) == (10, 5, None)  # the defaults of the contract
    made = parse(type="create_tournament", name="F", game="gaps", ends_at="2026-11-30T19:00:00Z")
    assert made.ends_at == T0 + timedelta(hours=1) and made.visibility == "public"
    assert isinstance(parse(type="devices"), protocol.DevicesRequest)  # v1.4 accounts
    assert isinstance(parse(type="club", club=1), protocol.ClubRequest)  # v1.4 clubs


@pytest.mark.parametrize(
    "message",
    [
        {"type": "ping", "extra": 1},  # no field beyond the contract
        {"type": "fly"},
        {"type": "join", "tournament": "3"},  # strict: no number in a string
        {"type": "join", "tournament": True},
        {"type": "join", "tournament": 0},
        {"type": "join", "tournament": 2**31},
        {"type": "act", "tournament": 1, "seq": 0, "action": {}},
        {"type": "subscribe", "tournament": 1, "top": 101},
        {"type": "register", "name": "x" * 65},
        {"type": "register", "name": "ana", "bot": "yes"},
        {"type": "create_tournament", "name": "F", "game": "gaps", "ends_at": "2026-11-30T19:00"},
        {"type": "create_tournament", "name": "", "game": "gaps", "ends_at": "2026-11-30T19:00Z"},
        {"type": "ping", "id": 1.5},
        {
            "type": "create_schedule",
            "name": "S",
            "game": "gaps",
            "every_s": 59,
            "first_starts_at": "2026-11-30T19:00:00Z",
            "duration_s": 60,
        },
    ],
)
def test_a_message_off_its_shape_is_refused(message: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        protocol.CLIENT_MESSAGE.validate_python(message)


def test_every_message_type_is_known_and_parsed() -> None:
    assert {"register", "act", "schedules", "devices", "passkey_login", "set_leader"} <= (
        protocol.MESSAGE_TYPES
    )
    assert len(protocol.MESSAGE_TYPES) == 43
    with pytest.raises(ValidationError) as refused:
        protocol.CLIENT_MESSAGE.validate_python({"type": "nope"})
    assert all(kind in str(refused.value) for kind in ("register", "set_leader"))


# -- replies ----------------------------------------------------------------------------
def test_an_error_carries_its_reason_and_params_beside_the_contracts_fields() -> None:
    assert protocol.error(7, "not_found", "no such tournament") == {
        "type": "error",
        "re": 7,
        "code": "not_found",
        "message": "no such tournament",
        "reason": "not_found",  # the code when no finer reason is given
        "params": {},
    }
    finer = protocol.error(
        None, "out_of_sync", "expected 3", reason="out_of_sync", params={"seq": 3}, seq=3
    )
    assert (finer["reason"], finer["params"], finer["seq"]) == ("out_of_sync", {"seq": 3}, 3)
    with pytest.raises(AssertionError):
        protocol.error(None, "no_such_code", "x")


def info(**over: Any) -> TournamentInfo:
    fields: dict[str, Any] = dict(
        id=4,
        name="Friday",
        game="gaps",
        options={"redeals": 2},
        commitment="c" * 64,
        starts_at=T0,
        ends_at=T0 + timedelta(hours=1),
        join_until=T0 + timedelta(minutes=30),
        time_limit_s=900,
        status=TournamentStatus.OPEN,
        deal_attempt=0,
        guaranteed=True,
        solution=None,
        created_at=T0 - timedelta(days=1),
        closed_at=None,
        entrants=3,
    )
    return TournamentInfo(**(fields | over))


def test_a_summary_shows_the_seed_and_close_only_once_closed() -> None:
    open_one = protocol.summary(info(), None)
    assert open_one["id"] == 4 and open_one["status"] == "open"
    assert open_one["starts_at"] == "2026-11-30T18:00:00.000Z"
    assert open_one["join_until"] == "2026-11-30T18:30:00.000Z"
    assert "seed" not in open_one and "closed_at" not in open_one
    assert (open_one["club"], open_one["battle"], open_one["code_required"]) == (None, None, False)
    closed = protocol.summary(
        info(status=TournamentStatus.CLOSED, closed_at=T0 + timedelta(hours=1)), "ab" * 32
    )
    assert closed["seed"] == "ab" * 32 and closed["closed_at"] == "2026-11-30T19:00:00.000Z"
    assert list(open_one) == list(closed)[: len(open_one)]  # the contract's order kept


def test_the_entry_code_is_shown_only_to_whom_the_viewer_says() -> None:
    event = EventFields(club_id=9, visibility="unlisted", entry_code="Sexta-42", created_by=5)
    told = protocol.club_fields(event, ANONYMOUS)
    assert told == {
        "club": 9,
        "battle": None,
        "visibility": "unlisted",
        "code_required": True,
    }
    assert protocol.club_fields(event, Viewer(player_id=5))["entry_code"] == "Sexta-42"
    assert protocol.club_fields(event, Viewer(admin=True))["entry_code"] == "Sexta-42"
    leader = Viewer(player_id=6, leads=frozenset({9}))
    assert protocol.club_fields(event, leader, battle=False) == {
        "club": 9,
        "visibility": "unlisted",
        "code_required": True,
        "entry_code": "Sexta-42",
    }
    summary = protocol.summary(info(club_id=9, entry_code="Sexta-42"), None, Viewer(player_id=8))
    assert summary["code_required"] and "entry_code" not in summary


def test_a_state_message_and_the_reveal() -> None:
    snap = Snapshot(
        tournament_id=4,
        game="gaps",
        seq=2,
        status="playing",  # type: ignore[arg-type]
        started_iso="2026-11-30T18:00:00.000Z",
        deadline_iso="2026-11-30T18:15:00.000Z",
        time_ms=1500,
        progress={"placed": 5},
        view={"grid": []},
        events=[{"kind": "moved"}],
        log_hash="h" * 64,
    )
    state = protocol.state_message(snap, re="x")
    assert list(state) == [
        *("type", "re", "tournament", "game", "seq", "status", "started_at", "deadline"),
        *("time_ms", "progress", "view", "events", "log_hash"),
    ]
    assert (state["re"], state["seq"], state["deadline"]) == ("x", 2, snap.deadline_iso)
    again = protocol.state_message(snap._replace(duplicate=True))
    assert again["duplicate"] is True and again["re"] is None
    assert protocol.closed_message(4, "ab", "cd") == {
        "type": "closed",
        "tournament": 4,
        "seed": "ab",
        "log_root": "cd",
    }


def test_standings_rows_carry_par_after_the_close_and_a_battles_clubs() -> None:
    ranked = Standing(1, "ana", "won", 48, 0, 60_000, 48)
    dq = Unranked("bo", "won", 48, 0, 1000, 48, "a second account", bot=True)
    live = View([ranked, dq], 2, 9, False, 1_764_525_600_000, gap_after=1)
    message = protocol.standings_message(4, live)
    assert message["server_time"] == "2025-11-30T18:00:00.000Z"
    assert (message["total"], message["version"], message["gap_after"]) == (2, 9, 1)
    assert message["rows"][0] == {
        "rank": 1,
        "player": "ana",
        "status": "won",
        "progress": 48,
        "resets": 0,
        "time_ms": 60_000,
        "score": 48,
        "bot": False,
    }
    assert message["rows"][1]["rank"] is None
    assert message["rows"][1]["disqualified"] == "a second account"
    assert "clubs" not in message and "par" not in message["rows"][0]
    closed = live._replace(
        final=True, gap_after=None, par={"ana": (40, 1)}, club_of={"ana": 3}, clubs=[{"id": 3}]
    )
    message = protocol.standings_message(4, closed)
    assert "gap_after" not in message and message["clubs"] == [{"id": 3}]
    assert message["rows"][0]["par"] == {"progress": 40, "resets": 1}
    assert message["rows"][1]["par"] is None  # not computed yet
    assert (message["rows"][0]["club"], message["rows"][1]["club"]) == (3, None)
