"""Playing without sockets: join, act (durable before acknowledged, receipts chained),
duplicates and out-of-sync resends, refusals, rebuilding from the log."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from server.audit import receipts
from server.competition.errors import CompetitionError
from server.competition.live_game import Snapshot
from server.competition.service import Competition
from server.competition.tournament import EntryChanged
from server.domain.model import PlayerInfo, TournamentInfo, TournamentStatus
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import Clock


@pytest.fixture
async def gaps(competition: Competition) -> TournamentInfo:
    return await competition.catalogue.create(gaps_spec())


def first_move(snap: Snapshot) -> dict[str, Any]:
    return {"kind": "move", **snap.view["legal"][0]}


async def test_join_deals_once_and_resumes(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo, events: Recorder
) -> None:
    first = await competition.play.join(alice, gaps.id)
    assert first.seq == 0 and first.status == "playing"
    assert first.log_hash == receipts.genesis(gaps.commitment, alice.id).hex()
    again = await competition.play.join(alice, gaps.id)
    assert again.view == first.view and again.log_hash == first.log_hash
    assert events.heard == [  # its creation, then one new entry, announced once
        ("tournament", gaps.id, TournamentStatus.OPEN),
        ("standings", gaps.id),
    ]


async def test_an_action_is_acknowledged_with_the_chained_receipt(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo, clock: Clock
) -> None:
    snap = await competition.play.join(alice, gaps.id)
    clock.advance(1.5)
    action = first_move(snap)
    after = await competition.play.act(alice, gaps.id, 1, action)
    assert after.seq == 1 and after.events
    head = receipts.step(
        receipts.genesis(gaps.commitment, alice.id), 1, 1500, receipts.action_text(action)
    )
    assert after.log_hash == head.hex()
    entry = await competition.store.entry(gaps.id, alice.id)
    assert entry is not None and entry.seq == 1
    # seq 1 is no checkpoint: the row still caches the join's head
    assert (entry.log_seq, entry.log_hash) == (0, receipts.genesis(gaps.commitment, alice.id).hex())


async def test_a_resend_is_a_duplicate_and_a_wrong_seq_says_which_is_expected(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo
) -> None:
    snap = await competition.play.join(alice, gaps.id)
    action = first_move(snap)
    acked = await competition.play.act(alice, gaps.id, 1, action)
    again = await competition.play.act(alice, gaps.id, 1, action)
    assert again.duplicate and again.seq == 1 and again.log_hash == acked.log_hash
    with pytest.raises(CompetitionError) as refused:
        await competition.play.act(alice, gaps.id, 5, {"kind": "resign"})
    assert refused.value.code == "out_of_sync" and refused.value.extra["seq"] == 2
    assert len(await competition.store.actions(await entry_id(competition, gaps, alice))) == 1


async def entry_id(competition: Competition, t: TournamentInfo, p: PlayerInfo) -> int:
    entry = await competition.store.entry(t.id, p.id)
    assert entry is not None
    return entry.id


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"kind": "fly"}, "bad_request"),
        ({"kind": "move", "card": "ZZ", "to": [0, 0]}, "bad_request"),
        ({"kind": "move", "card": "KS", "to": [0, 0]}, "illegal_action"),
    ],
)
async def test_a_refused_action_changes_nothing(
    competition: Competition,
    gaps: TournamentInfo,
    alice: PlayerInfo,
    action: dict[str, Any],
    code: str,
) -> None:
    before = await competition.play.join(alice, gaps.id)
    with pytest.raises(CompetitionError) as refused:
        await competition.play.act(alice, gaps.id, 1, action)
    assert refused.value.code == code
    after = await competition.play.state(alice, gaps.id)
    assert after.seq == 0 and after.view == before.view and after.log_hash == before.log_hash


async def test_no_action_after_the_deadline(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo, clock: Clock
) -> None:
    await competition.play.join(alice, gaps.id)
    clock.advance(901)
    with pytest.raises(CompetitionError) as refused:
        await competition.play.act(alice, gaps.id, 1, {"kind": "resign"})
    assert refused.value.code == "closed"
    assert (await competition.play.state(alice, gaps.id)).status == "timed_out"


async def test_a_forgotten_game_is_rebuilt_from_its_log_with_its_receipt(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo, clock: Clock
) -> None:
    snap = await competition.play.join(alice, gaps.id)
    for seq in range(1, 6):
        clock.advance(0.25)
        if not snap.view["legal"]:
            break
        snap = await competition.play.act(alice, gaps.id, seq, first_move(snap))
    fresh = Competition.build(competition.store, now=clock)  # a restarted server
    rebuilt = await fresh.play.state(alice, gaps.id)
    assert (rebuilt.seq, rebuilt.view, rebuilt.log_hash) == (snap.seq, snap.view, snap.log_hash)


async def test_hints_only_where_the_options_allow(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo
) -> None:
    await competition.play.join(alice, gaps.id)
    with pytest.raises(CompetitionError) as refused:
        await competition.play.hint(alice, gaps.id)
    assert refused.value.code == "forbidden"
    klondike = await competition.catalogue.create(
        gaps_spec(game="klondike", options={"draw": 1, "hints": True})
    )
    await competition.play.join(alice, klondike.id)
    action, no_moves = await competition.play.hint(alice, klondike.id)
    assert (action is None) == no_moves


async def test_no_entry_no_state(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo
) -> None:
    with pytest.raises(CompetitionError) as refused:
        await competition.play.state(alice, gaps.id)
    assert refused.value.code == "not_found"


async def test_entries_close_at_join_until(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec(join_until=clock() + timedelta(minutes=1)))
    clock.advance(61)
    with pytest.raises(CompetitionError) as refused:
        await competition.play.join(alice, t.id)
    assert refused.value.code == "closed"


async def test_a_late_notice_of_an_older_seq_changes_no_standings(
    competition: Competition, gaps: TournamentInfo, alice: PlayerInfo
) -> None:
    from server.domain.model import Status
    from tests.support.factories import figures

    snap = await competition.play.join(alice, gaps.id)
    await competition.standings.window(gaps.id)  # someone watches: the table is in memory
    after = await competition.play.act(alice, gaps.id, 1, first_move(snap))
    entry = await competition.store.entry(gaps.id, alice.id)
    assert entry is not None
    tournaments = competition.catalogue.tournaments
    stale = EntryChanged(entry.id, 0, figures(Status.PLAYING, score=-5))  # seq 0: old
    assert not tournaments.receive(gaps.id, stale)
    now = await competition.standings.window(gaps.id)
    assert now.rows[0].score == after.progress["score"]  # not the stale notice's -5
    newer = EntryChanged(entry.id, 2, figures(Status.RESIGNED, 9, 0, 9, 500))
    assert tournaments.receive(gaps.id, newer)
    assert (await competition.standings.window(gaps.id)).rows[0].status == Status.RESIGNED
