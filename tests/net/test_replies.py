"""The v1.3 replies (server/net/replies.py) built from the competition's records: a
leaderboard, a player's page, a disqualification, a fair-play report and SCHEDULE objects
with their next occurrences, as a viewer sees them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from server.audit.fairplay import Finding
from server.competition.ratings import LeaderboardPage, PlayerPage
from server.competition.schedules import Listing, Upcoming
from server.domain.club_events import Viewer
from server.domain.model import Status
from server.domain.schedule import Occurrence, ScheduleInfo
from server.i18n.said import said
from server.net import replies
from server.store.rating_reads import Point, Profile, Ranked, TournamentResult
from tests.net.test_protocol import info
from tests.support.factories import figures

T0 = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


def test_a_leaderboard_ranks_from_its_offset_and_marks_the_provisional() -> None:
    page = LeaderboardPage(
        "gaps", 20, 30, [Ranked("ana", 30.0, 2.0, 24.0, 9), Ranked("bo", 25.0, 7.0, 4.0, 4)]
    )
    message = replies.leaderboard_message(page)
    assert (message["type"], message["game"], message["offset"], message["total"]) == (
        "leaderboard",
        "gaps",
        20,
        30,
    )
    assert message["rows"] == [
        {
            "rank": 21,
            "player": "ana",
            "rating": 24.0,
            "mu": 30.0,
            "sigma": 2.0,
            "tournaments": 9,
            "provisional": False,
        },
        {
            "rank": 22,
            "player": "bo",
            "rating": 4.0,
            "mu": 25.0,
            "sigma": 7.0,
            "tournaments": 4,
            "provisional": True,  # fewer than 5 rated tournaments
        },
    ]


def test_a_players_page_with_results_streaks_and_history() -> None:
    won = figures(Status.WON, 48, 1, score=48, time_ms=90_000)
    closed = T0 + timedelta(hours=1)
    page = PlayerPage(
        profile=Profile(1, "ana", False, T0),
        ratings={"gaps": (Ranked("ana", 30.0, 2.0, 24.0, 5), 3)},
        recent=[
            TournamentResult(4, "Friday", "gaps", closed, 1, 4, 5, won, 40, 2),
            TournamentResult(5, "Saturday", "gaps", None, None, 4, 5, won),
        ],
        streaks={"gaps": 2},
        history={"gaps": [Point(4, closed, 28.0, 4.0)]},
    )
    message = replies.player_message(page)
    assert message["player"] == {
        "name": "ana",
        "bot": False,
        "created_at": "2026-11-30T18:00:00.000Z",
    }
    assert message["ratings"] == {
        "gaps": {
            "rating": 24.0,
            "mu": 30.0,
            "sigma": 2.0,
            "tournaments": 5,
            "rank": 3,
            "provisional": False,
        }
    }
    first, disqualified = message["recent"]
    assert first == {
        "tournament": 4,
        "name": "Friday",
        "game": "gaps",
        "closed_at": "2026-11-30T19:00:00.000Z",
        "rank": 1,
        "entrants": 5,
        "percentile": 100.0,
        "status": "won",
        "progress": 48,
        "resets": 1,
        "time_ms": 90_000,
        "par": {"progress": 40, "resets": 2},
    }
    assert (disqualified["rank"], disqualified["percentile"], disqualified["par"]) == (None,) * 3
    assert disqualified["closed_at"] is None
    assert message["streak"] == {"gaps": 2}
    assert message["history"] == {
        "gaps": [
            {
                "tournament": 4,
                "closed_at": "2026-11-30T19:00:00.000Z",
                "rating": 16.0,  # mu - 3 sigma
                "mu": 28.0,
                "sigma": 4.0,
            }
        ]
    }


def test_a_disqualification_and_a_fairplay_report() -> None:
    done: Any = SimpleNamespace(tournament_id=4, player="bo", reason="r", at=T0, amendment=True)
    assert replies.amended_message(done) == {"type": "amended", "tournament": 4, "player": "bo"}
    why = said("fairplay.why.same_moves", a="ana", b="bo", moves=20)
    found = [Finding("same_moves", ("ana", "bo"), why, {"moves": 20})]
    report = replies.fairplay_report_message(4, found)
    assert report["type"] == "fairplay_report" and report["tournament"] == 4
    [finding] = report["findings"]
    assert finding["players"] == ["ana", "bo"] and finding["why"] == str(why)
    assert finding["why_params"] == {"a": "ana", "b": "bo", "moves": 20}


def schedule(**over: Any) -> ScheduleInfo:
    fields: dict[str, Any] = dict(
        id=2,
        name="Daily",
        game="gaps",
        options={"redeals": 2},
        first_starts_at=T0,
        every_s=86400,
        duration_s=3600,
        time_limit_s=None,
        join_for_s=None,
        conditions=None,
        rated=True,
        beacon=None,
        cancelled=False,
        created_at=T0 - timedelta(days=1),
    )
    return ScheduleInfo(**(fields | over))


def test_a_schedule_with_its_next_occurrences_created_or_not() -> None:
    s = schedule(club_id=9, entry_code="Sexta-42", created_by=5)
    later = Occurrence(3, "Daily #3", T0 + timedelta(days=2), T0 + timedelta(days=2, hours=1), T0)
    made = info(id=7, schedule_id=2, occurrence=2, club_id=9, entry_code="Sexta-42", created_by=5)
    item = replies.schedule_item(Listing(s, [Upcoming(later), Upcoming(later, made, None)]))
    assert item["id"] == 2 and item["first_starts_at"] == "2026-11-30T18:00:00.000Z"
    assert (item["club"], item["code_required"], "battle" in item) == (9, True, False)
    assert "entry_code" not in item
    assert item["next"][0] == {
        "occurrence": 3,
        "name": "Daily #3",
        "starts_at": "2026-12-02T18:00:00.000Z",
        "ends_at": "2026-12-02T19:00:00.000Z",
    }
    assert item["next"][1]["id"] == 7 and "entry_code" not in item["next"][1]  # a SUMMARY
    creator = replies.schedule_item(Listing(s, [Upcoming(later, made)]), Viewer(player_id=5))
    assert creator["entry_code"] == "Sexta-42"
    assert creator["next"][0]["entry_code"] == "Sexta-42"
    assert list(replies.schedule_json(s))[:13] == [
        *("id", "name", "game", "options", "first_starts_at", "every_s", "duration_s"),
        *("time_limit_s", "join_for_s", "conditions", "rated", "beacon", "cancelled"),
    ]
