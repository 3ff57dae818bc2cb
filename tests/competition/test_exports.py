"""Exports of a closed tournament (server/competition/exports.py): a player's record and
the bundle, refused (`not_revealed`) before the close; the seed revealed with the root of
the receipts, computed once from the entries' cached heads and the actions after them."""

from __future__ import annotations

from typing import Any

import pytest

from server.audit import receipts
from server.audit.verify import verify_document
from server.competition.errors import CompetitionError
from server.competition.exports import log_root_of
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import gaps_spec


def first_move(view: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "move", **view["legal"][0]}


async def test_records_wait_for_the_close(competition: Competition, alice: PlayerInfo) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, t.id)
    for ask in (competition.exports.bundle(t.id), competition.exports.record(t.id, "alice")):
        with pytest.raises(CompetitionError) as refused:
            await ask
        assert refused.value.code == "not_revealed"
    await competition.lifecycle.close(t.id)
    record = await competition.exports.record(t.id, "ALICE")
    assert record["player"]["name"] == "alice" and verify_document(record).ok
    with pytest.raises(CompetitionError) as refused:
        await competition.exports.record(t.id, "nobody")
    assert refused.value.code == "not_found"


async def test_the_revealed_root_is_the_bundles_and_the_records_log_hashes(
    competition: Competition, alice: PlayerInfo
) -> None:
    t = await competition.catalogue.create(gaps_spec())
    bob, _ = await competition.players.register("bob")
    snap = await competition.play.join(alice, t.id)
    for seq in range(1, 4):
        snap = await competition.play.act(alice, t.id, seq, first_move(snap.view))
    await competition.play.join(bob, t.id)
    with pytest.raises(CompetitionError) as early:
        await competition.exports.reveal(competition.catalogue.get(t.id))
    assert early.value.code == "not_revealed"
    await competition.lifecycle.close(t.id)
    closed = competition.catalogue.get(t.id)
    seed, root = await competition.exports.reveal(closed)
    bundle = await competition.exports.bundle(t.id)
    assert (bundle["tournament"]["seed"], bundle["log_root"]) == (seed, root)
    assert await log_root_of(competition.store, closed) == root
    hashes = {r["player"]["id"]: r["log_hash"] for r in bundle["records"]}
    assert receipts.log_root(sorted(hashes.items())) == root
    record = await competition.exports.record(t.id, "alice")
    assert record["log_hash"] == hashes[alice.id] and len(record["actions"]) == 3
    assert verify_document(bundle).ok
