"""The competition without sockets: its parts on a real SQLite file in a temporary folder,
a clock the test moves and a sink that records every event."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from server.competition.catalogue import TournamentSpec
from server.competition.live_game import Snapshot
from server.competition.service import Competition
from server.domain.model import PlayerInfo, TournamentInfo
from server.net import replies
from server.store.repository import Store
from tests.conftest import at_head
from tests.support.harness import T0, Clock


class Recorder:
    """An `Events` sink keeping what it heard, in order."""

    def __init__(self) -> None:
        self.heard: list[tuple[Any, ...]] = []

    def standings_changed(self, tournament_id: int) -> None:
        self.heard.append(("standings", tournament_id))

    def tournament_changed(self, tournament: TournamentInfo) -> None:
        self.heard.append(("tournament", tournament.id, tournament.status))

    def tournament_closed(self, tournament_id: int, seed: str, log_root: str) -> None:
        self.heard.append(("closed", tournament_id, seed, log_root))


def gaps_spec(**over: Any) -> TournamentSpec:
    fields: dict[str, Any] = dict(
        name="Friday Gaps",
        game="gaps",
        options={"redeals": 2},
        starts_at=T0,
        ends_at=T0 + timedelta(hours=1),
        time_limit_s=900,
    )
    fields.update(over)
    return TournamentSpec(**fields)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def events() -> Recorder:
    return Recorder()


@pytest.fixture
async def store(sqlite_url: str, migrated_sqlite: Path) -> AsyncIterator[Store]:
    store = await Store.open(at_head(sqlite_url, migrated_sqlite))
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def competition(store: Store, events: Recorder, clock: Clock) -> Competition:
    return Competition.build(store, events, clock)


@pytest.fixture
async def alice(competition: Competition) -> PlayerInfo:
    player, _ = await competition.players.register("alice")
    return player


@pytest.fixture
def comp(any_store: Store, events: Recorder, clock: Clock) -> Competition:
    """The competition on `any_store` (tests/conftest.py: each database)."""
    return Competition.build(any_store, events, clock)


async def leaderboard_message(comp: Competition, *args: Any, **kw: Any) -> dict[str, Any]:
    """The `leaderboard` message of the ratings part's page (as the protocol sends it)."""
    return replies.leaderboard_message(await comp.ratings.leaderboard(*args, **kw))


async def player_message(comp: Competition, name: str) -> dict[str, Any]:
    """The `player` message of the ratings part's page (as the protocol sends it)."""
    return replies.player_message(await comp.ratings.player(name))


async def first_moves(
    comp: Competition, clock: Clock, player: PlayerInfo, tournament_id: int, n: int
) -> tuple[Snapshot, int]:
    """`player` joins and makes up to `n` moves, each the first legal one, a second apart
    (fewer when the deal blocks): the last snapshot and the moves made."""
    snap = await comp.play.join(player, tournament_id)
    made = 0
    while made < n and snap.view["legal"]:
        clock.advance(1)
        made += 1
        move = {"kind": "move", **snap.view["legal"][0]}
        snap = await comp.play.act(player, tournament_id, made, move)
    return snap, made
