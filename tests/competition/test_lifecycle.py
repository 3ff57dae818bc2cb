"""The lifecycle: opening at the start, closing at the end (timing out running games,
revealing the seed with the receipts' root), closes made by another process."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.audit.verify import verify_document
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo, TournamentStatus
from tests.competition.conftest import Recorder, gaps_spec
from tests.support.harness import T0, Clock


async def test_the_clock_opens_a_scheduled_tournament_at_its_start(
    competition: Competition, events: Recorder, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec(starts_at=T0 + timedelta(seconds=30)))
    await competition.lifecycle.tick()
    assert competition.catalogue.get(t.id).status == TournamentStatus.SCHEDULED
    clock.advance(30)
    await competition.lifecycle.tick()
    assert competition.catalogue.get(t.id).status == TournamentStatus.OPEN
    assert ("tournament", t.id, TournamentStatus.OPEN) in events.heard


async def test_the_clock_closes_at_the_end_and_reveals_with_the_log_root(
    competition: Competition, alice: PlayerInfo, events: Recorder, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec(time_limit_s=None))
    snap = await competition.play.join(alice, t.id)
    clock.advance(2)
    await competition.play.act(alice, t.id, 1, {"kind": "move", **snap.view["legal"][0]})
    clock.advance(3600)
    await competition.lifecycle.tick()
    closed = competition.catalogue.get(t.id)
    assert closed.status == TournamentStatus.CLOSED
    entry = await competition.store.entry(t.id, alice.id)
    assert entry is not None
    assert entry.figures.status == "timed_out" and entry.figures.time_ms == 3_600_000
    seed = await competition.catalogue.revealed(closed)
    bundle = await competition.exports.bundle(t.id)
    assert events.heard[-1] == ("closed", t.id, seed, bundle["log_root"])
    assert verify_document(bundle).ok
    with pytest.raises(CompetitionError) as refused:
        await competition.play.act(alice, t.id, 2, {"kind": "resign"})
    assert refused.value.code == "closed"


async def test_a_tournament_closes_only_once(competition: Competition) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.lifecycle.close(t.id)
    with pytest.raises(CompetitionError) as refused:
        await competition.lifecycle.close(t.id)
    assert refused.value.code == "closed"


async def test_a_close_by_another_process_is_learnt_and_announced(
    competition: Competition, alice: PlayerInfo, events: Recorder, clock: Clock
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.lifecycle.start()
    await competition.play.join(alice, t.id)
    operator = Competition.build(competition.store, now=clock)  # the operator's command line
    await operator.lifecycle.close(t.id)
    await competition.lifecycle.tick()
    assert competition.catalogue.get(t.id).status == TournamentStatus.CLOSED
    assert events.heard[-1][:2] == ("closed", t.id)
    assert (await competition.play.state(alice, t.id)).status == "timed_out"
