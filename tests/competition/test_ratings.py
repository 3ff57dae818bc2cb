"""Ratings at the close: once per tournament, bots and unrated tournaments out, equal to
openskill 6.2.0 tournament after tournament, and a rebuild that gives exactly the stored
ratings (SQLite and PostgreSQL); leaderboards and player pages made of them."""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

import pytest
from openskill.models import PlackettLuce

from server.competition import ratings
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo, TournamentInfo
from server.domain.ranking import Result, standings
from server.store import ratings as stored
from tests.competition.conftest import first_moves, gaps_spec, leaderboard_message, player_message
from tests.support.harness import T0, Clock

MODEL = PlackettLuce()


async def players(comp: Competition, names: list[str]) -> list[PlayerInfo]:
    return [(await comp.players.register(n))[0] for n in names]


async def play_and_close(
    comp: Competition, clock: Clock, field: list[PlayerInfo], moves: list[int], hours: int
) -> TournamentInfo:
    """A Gaps tournament in which each player makes up to moves[i] legal moves (the
    first legal move each time), then resigns; closed by the clock at its end."""
    start = T0 + timedelta(hours=hours)
    if clock.t < start:
        clock.t = start
    t = await comp.catalogue.create(
        gaps_spec(starts_at=start, ends_at=start + timedelta(minutes=50), time_limit_s=None)
    )
    await comp.lifecycle.tick()
    for p, n in zip(field, moves, strict=True):
        _, made = await first_moves(comp, clock, p, t.id, n)
        clock.advance(1)
        await comp.play.act(p, t.id, made + 1, {"kind": "resign"})
    clock.t = start + timedelta(minutes=50)
    await comp.lifecycle.tick()  # the close, and with it the rating step (a task)
    await ratings.settle()
    return comp.catalogue.get(t.id)


async def expected_by_openskill(
    comp: Competition, tournaments: list[TournamentInfo], bots: set[str]
) -> dict[str, tuple[float, float, int]]:
    """Each player's rating after these tournaments in order, by openskill itself."""
    state: dict[str, tuple[float, float, int]] = {}
    for t in tournaments:
        entries = await comp.store.entries(t.id)
        rows = standings(Result(e.player_name, e.figures) for e in entries)
        field = [r for r in rows if r.player not in bots]
        if len(field) < 2:
            continue
        teams = [
            [
                MODEL.rating(
                    mu=state.get(r.player, (25.0,))[0], sigma=state.get(r.player, (0, 25 / 3))[1]
                )
            ]
            for r in field
        ]
        new = MODEL.rate(teams, ranks=[r.rank for r in field])
        for r, team in zip(field, new, strict=True):
            count = state.get(r.player, (0, 0, 0))[2] + 1
            state[r.player] = (team[0].mu, team[0].sigma, count)
    return state


async def stored_by_name(comp: Competition) -> dict[str, tuple[float, float, int]]:
    rows, _ = await stored.snapshot(comp.store)
    names = {
        e.player_id: e.player_name
        for t in await comp.store.tournaments()
        for e in await comp.store.entries(t.id)
    }
    return {names[r.player_id]: (r.mu, r.sigma, r.tournaments) for r in rows}


def close_to(
    a: dict[str, tuple[float, float, int]], b: dict[str, tuple[float, float, int]]
) -> bool:
    return a.keys() == b.keys() and all(
        abs(a[k][0] - b[k][0]) <= 1e-9 and abs(a[k][1] - b[k][1]) <= 1e-9 and a[k][2] == b[k][2]
        for k in a
    )


async def test_closes_rate_like_openskill_and_the_rebuild_gives_exactly_the_stored(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob", "carol", "dave"])
    bot, _ = await comp.players.register_bot("robot")
    assert bot.bot
    done = [
        await play_and_close(comp, clock, [*field, bot], [3, 0, 5, 1, 9], hours=0),
        await play_and_close(comp, clock, [field[1], field[2], bot], [4, 4, 0], hours=1),
        await play_and_close(comp, clock, field[:3], [0, 2, 7], hours=2),
    ]
    expected = await expected_by_openskill(comp, done, {"robot"})
    assert close_to(await stored_by_name(comp), expected)
    ratings_before, placings_before = await stored.snapshot(comp.store)
    assert len(placings_before) == 5 + 3 + 3  # every entry placed, the bot too
    assert all(p.mu is None for p in placings_before if p.player_id == bot.id)

    rebuilt = await ratings.rebuild(comp.store)
    assert rebuilt == ratings.Rebuilt(tournaments=3, ratings=4, changed=0)
    assert await stored.snapshot(comp.store) == (ratings_before, placings_before)  # exactly


async def test_a_tournament_is_taken_in_once_however_often_or_concurrently_asked(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob"])
    t = await play_and_close(comp, clock, field, [2, 0], hours=0)
    once = await stored.snapshot(comp.store)
    await asyncio.gather(*(ratings.rate_closed(comp.store, t.id) for _ in range(4)))
    await ratings.settle()
    assert await ratings.catch_up(comp.store, "gaps") == 0
    assert await stored.snapshot(comp.store) == once
    assert [r.tournaments for r in once[0]] == [1, 1]


async def test_unrated_tournaments_and_lone_rated_entrants_place_without_rating(
    comp: Competition, clock: Clock
) -> None:
    alice, bob = await players(comp, ["alice", "bob"])
    bot, _ = await comp.players.register_bot("robot")
    await play_and_close(comp, clock, [alice, bot], [1, 1], hours=0)  # one rated entrant
    start = T0 + timedelta(hours=1)
    clock.t = start
    t = await comp.catalogue.create(
        gaps_spec(starts_at=start, ends_at=start + timedelta(minutes=5))
    )
    assert await stored.set_rated(comp.store, t.id, False)
    await comp.lifecycle.tick()
    for p in (alice, bob):
        await comp.play.join(p, t.id)
    clock.t = start + timedelta(minutes=5)
    await comp.lifecycle.tick()
    await ratings.settle()
    rows, placings = await stored.snapshot(comp.store)
    assert rows == [] and len(placings) == 4 and all(p.mu is None for p in placings)


async def test_a_tournament_left_waiting_is_taken_in_first_and_out_of_order_rebuilds(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob", "carol"])
    first = await play_and_close(comp, clock, field, [1, 2, 3], hours=0)
    async with comp.store._session() as s:  # as if its node died before the rating step
        from sqlalchemy import delete, update

        from server.store.models import Placing, PlayerRating, TournamentRow

        await s.execute(delete(Placing))
        await s.execute(delete(PlayerRating))
        await s.execute(update(TournamentRow).values(rated_at=None))
        await s.commit()
    second = await play_and_close(comp, clock, field, [3, 2, 1], hours=1)
    expected = await expected_by_openskill(comp, [first, second], set())
    assert close_to(await stored_by_name(comp), expected)
    # a close committed out of order: the second taken in, the first closed before it
    # and still waiting: the game is computed again from scratch, in close order
    async with comp.store._session() as s:
        from server.store.models import TournamentRow as T

        await s.execute(update(T).where(T.id == first.id).values(rated_at=None))
        await s.commit()
    assert await ratings.catch_up(comp.store, "gaps") == 1
    assert close_to(await stored_by_name(comp), expected)


async def test_leaderboard_and_player_messages(comp: Competition, clock: Clock) -> None:
    alice, bob, carol = await players(comp, ["alice", "bob", "carol"])
    bot, _ = await comp.players.register_bot("robot")
    ts = [
        await play_and_close(comp, clock, [alice, bob, carol, bot], [9, 3, 0, 5], hours=0),
        await play_and_close(comp, clock, [alice, bob, carol], [8, 0, 4], hours=1),
    ]
    board = await leaderboard_message(comp, "gaps")
    assert board["total"] == 3 and [r["rank"] for r in board["rows"]] == [1, 2, 3]
    shown = [r["rating"] for r in board["rows"]]
    assert shown == sorted(shown, reverse=True)
    assert all(r["provisional"] and r["tournaments"] == 2 for r in board["rows"])
    assert all(abs(r["rating"] - (r["mu"] - 3 * r["sigma"])) < 1e-12 for r in board["rows"])
    page = await leaderboard_message(comp, "gaps", offset=1, limit=1)
    assert page["rows"] == [{**board["rows"][1]}] and page["total"] == 3
    assert (await leaderboard_message(comp, "klondike"))["total"] == 0
    with pytest.raises(CompetitionError) as refused:
        await leaderboard_message(comp, "chess")
    assert refused.value.code == "not_found"

    top = board["rows"][0]["player"]
    me = await player_message(comp, top.upper())  # names are case-insensitive
    assert me["player"]["name"] == top and me["player"]["bot"] is False
    assert me["ratings"]["gaps"]["rank"] == 1
    assert [r["tournament"] for r in me["recent"]] == [ts[1].id, ts[0].id]  # newest first
    for r in me["recent"]:
        entries = await comp.store.entries(r["tournament"])
        rows = standings(Result(e.player_name, e.figures) for e in entries)
        mine = next(x for x in rows if x.player == top)
        assert r["rank"] == mine.rank and r["entrants"] == len(entries)
        assert r["percentile"] == round(100 * (len(rows) - mine.rank + 1) / len(rows), 1)
    ranks = [(r["rank"], r["entrants"]) for r in me["recent"]]
    streak = 0
    for rank, n in ranks:
        if 2 * rank > n:
            break
        streak += 1
    assert me["streak"] == {"gaps": streak}
    assert [p["tournament"] for p in me["history"]["gaps"]] == [ts[0].id, ts[1].id]
    robot = await player_message(comp, "robot")
    assert robot["player"]["bot"] is True and robot["ratings"] == {}
    assert len(robot["recent"]) == 1 and robot["history"] == {}
    with pytest.raises(CompetitionError) as refused:
        await player_message(comp, "nobody")
    assert refused.value.code == "not_found"


async def test_a_bot_name_is_checked_like_any(comp: Competition, clock: Clock) -> None:
    await players(comp, ["alice"])
    for name, code in (("ALICE", "name_taken"), ("", "bad_request"), ("a b", "bad_request")):
        with pytest.raises(CompetitionError) as refused:
            await comp.players.register_bot(name)
        assert refused.value.code == code
    bot, token = await comp.players.register_bot("robot")
    assert (await comp.devices.authenticate(token))[0] == bot


async def test_the_rebuild_command_finds_the_stored_ratings_exact(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob", "carol"])
    await play_and_close(comp, clock, field, [1, 6, 3], hours=0)
    await play_and_close(comp, clock, field[:2], [2, 2], hours=1)
    before = await stored.snapshot(comp.store)
    run = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server",
        "ratings",
        "rebuild",
        "--database-url",
        comp.store.url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await run.communicate()
    assert run.returncode == 0, err.decode()
    assert "from 2 closed tournaments: 3 ratings; the stored ratings were exact" in out.decode()
    assert await stored.snapshot(comp.store) == before


async def test_a_close_meeting_another_taker_returns_at_once_and_is_taken_in_after(
    comp: Competition, clock: Clock
) -> None:
    field = await players(comp, ["alice", "bob"])
    busy = stored.game_lock(comp.store, ratings.lock_key("gaps"), True)
    await busy.__aenter__()  # another node taking a close of the game in
    try:
        settle, ratings.settle = ratings.settle, (lambda: asyncio.sleep(0.2))  # type: ignore[assignment]
        try:
            t = await play_and_close(comp, clock, field, [3, 0], hours=0)  # returns meanwhile
        finally:
            ratings.settle = settle
        assert (await stored.snapshot(comp.store))[1] == []
    finally:
        await busy.__aexit__(None, None, None)
    await ratings.settle()
    rows, placings = await stored.snapshot(comp.store)
    assert len(rows) == 2 and {p.tournament_id for p in placings} == {t.id}
