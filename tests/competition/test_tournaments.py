"""One object per tournament: every change enters through its `receive`, a closed and
announced tournament leaves memory (only a bounded cache of closed ones stays), and the
action limit of COMPETITION.md (v1.3) lives in the game's own transition."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from server.competition import live_game, tournaments
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo, TournamentStatus
from tests.competition.conftest import Recorder, first_moves, gaps_spec
from tests.support.harness import Clock


async def test_a_closed_tournament_is_dropped_from_memory_once_announced(
    competition: Competition, alice: PlayerInfo, events: Recorder, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    snap = await competition.play.join(alice, t.id)
    await competition.standings.window(t.id)  # someone watches: the table is in memory
    runtime = competition.catalogue.tournaments.get(t.id)
    assert runtime is not None and runtime.game(alice.id) is not None
    assert runtime.table.board is not None
    await competition.lifecycle.close(t.id)
    assert events.heard[-1][:2] == ("closed", t.id)
    assert competition.catalogue.tournaments.live() == []  # retired
    assert runtime.games() == [] and runtime.table.board is None
    # late watchers, records and bundles still work, from the store and the cache
    view = await competition.standings.window(t.id)
    assert view.final and [r.player for r in view.rows] == ["alice"]
    assert (await competition.exports.bundle(t.id))["log_root"] == runtime.log_root
    assert snap.seq == 0


async def test_the_cache_of_closed_tournaments_is_bounded(
    competition: Competition, alice: PlayerInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tournaments, "CLOSED_KEPT", 2)
    ids = []
    for _ in range(4):
        t = await competition.catalogue.create(gaps_spec())
        await competition.play.join(alice, t.id)
        await competition.lifecycle.close(t.id)
        ids.append(t.id)
    held = competition.catalogue.tournaments
    assert len(held) == 2 and held.get(ids[0]) is None and held.get(ids[-1]) is not None
    # one no longer held is read again from the store, closed (never announced again)
    again = await competition.catalogue.runtime(ids[0])
    assert again.info.status == TournamentStatus.CLOSED and again.announced


async def test_a_tick_and_a_timeout_are_changes_of_their_tournament(
    competition: Competition, alice: PlayerInfo, events: Recorder, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec(time_limit_s=60))
    await competition.play.join(alice, t.id)
    await competition.standings.window(t.id)
    heard = len(events.heard)
    clock.advance(61)
    await competition.lifecycle.tick()
    assert ("standings", t.id) in events.heard[heard:]
    runtime = competition.catalogue.tournaments.get(t.id)
    assert runtime is not None
    game = runtime.game(alice.id)
    assert game is not None and game.status == "timed_out" and game.time_ms == 60_000


async def test_after_9999_actions_only_resign_is_accepted(
    competition: Competition, alice: PlayerInfo, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec(ends_at=clock() + timedelta(days=2)))
    await competition.play.join(alice, t.id)
    game = competition.games.cached(t.id, alice.id)
    assert game is not None
    rules = game.rules
    full = replace(game, actions=["{}"] * (live_game.MAX_ACTIONS - 1))  # as if 9,999 accepted
    move = rules.parse_action({"kind": "move", **game.state.view()["legal"][0]})
    with pytest.raises(CompetitionError) as refused:
        full.judge(move, "{}", clock())
    assert refused.value.code == "illegal_action"
    assert "at most 10,000 actions" in refused.value.message
    assert "only resign" in refused.value.message
    step = full.judge(rules.parse_action({"kind": "resign"}), '{"kind":"resign"}', clock())
    assert step.seq == live_game.MAX_ACTIONS and step.status == "resigned"
    shorter = replace(game, actions=["{}"] * (live_game.MAX_ACTIONS - 2))
    assert shorter.judge(move, "{}", clock()).seq == live_game.MAX_ACTIONS - 1


async def test_the_limit_over_the_protocol_path_refuses_and_changes_nothing(
    competition: Competition, alice: PlayerInfo, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_game, "MAX_ACTIONS", 3)
    t = await competition.catalogue.create(gaps_spec())
    snap, _ = await first_moves(competition, clock, alice, t.id, 2)
    with pytest.raises(CompetitionError) as refused:
        await competition.play.act(alice, t.id, 3, {"kind": "move", **snap.view["legal"][0]})
    assert refused.value.code == "illegal_action"
    entry = await competition.store.entry(t.id, alice.id)
    assert entry is not None and entry.seq == 2
    done = await competition.play.act(alice, t.id, 3, {"kind": "resign"})
    assert done.seq == 3 and done.status == "resigned"
