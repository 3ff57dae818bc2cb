"""Fair play in the competition (SQLite and PostgreSQL): a disqualification before the
close re-ranks the live standings and pushes them; after the close it is an amendment the
bundle carries and the verifier accepts, and ratings are computed again without the
entry; bad requests change nothing; the organiser's report over the stored games."""

from __future__ import annotations

import re
from datetime import timedelta

import orjson
import pytest

from server.audit.verify import verify_document
from server.competition.bundles import BundleCache
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from server.domain.ranking import Result, standings, standings_without
from server.net import protocol, replies
from server.store import fairplay as stored
from server.store.repository import Store
from tests.competition.conftest import Recorder, first_moves, gaps_spec
from tests.competition.test_ratings import (
    close_to,
    expected_by_openskill,
    play_and_close,
    players,
    stored_by_name,
)
from tests.support.factories import figures
from tests.support.harness import T0, Clock


async def admin(comp: Competition) -> PlayerInfo:
    await comp.players.register("organiser")
    assert await comp.store.set_admin("organiser")
    found = await comp.store.player_by_name("organiser")
    assert found is not None and found.admin
    return found


async def open_tournament(
    comp: Competition, clock: Clock, field: list[PlayerInfo], moves: list[int]
) -> int:
    t = await comp.catalogue.create(gaps_spec(starts_at=T0, ends_at=T0 + timedelta(hours=1)))
    await comp.lifecycle.tick()
    await play_in(comp, clock, t.id, field, moves)
    return t.id


async def play_in(
    comp: Competition, clock: Clock, tid: int, field: list[PlayerInfo], moves: list[int]
) -> list[int]:
    """Each player joins and makes up to moves[i] first legal moves; the moves made."""
    return [
        (await first_moves(comp, clock, p, tid, n))[1] for p, n in zip(field, moves, strict=True)
    ]


async def long_opening(comp: Competition, clock: Clock, first: PlayerInfo, n: int) -> int:
    """A tournament whose deal lets `first` make n first legal moves (a deal may block
    earlier: the seed is random), `first` having made them."""
    for _ in range(50):
        tid = await open_tournament(comp, clock, [first], [n])
        if (await comp.store.entries(tid))[0].seq >= n:
            return tid
    raise AssertionError(f"no deal of 50 gives {n} first legal moves")


async def test_before_the_close_standings_rank_without_the_disqualified(
    comp: Competition, clock: Clock, events: Recorder
) -> None:
    await admin(comp)
    field = await players(comp, ["alice", "bob", "carol"])
    tid = await open_tournament(comp, clock, field, [6, 3, 1])
    before = await comp.standings.window(tid)
    leader = before.rows[0].player
    events.heard.clear()
    done = await comp.fairplay.disqualify(tid, leader, "  a second   account ")
    assert (done.player, done.reason, done.amendment) == (leader, "a second account", False)
    assert ("standings", tid) in events.heard
    after = await comp.standings.window(tid)
    results = [
        Result(r.player, figures(r.status, r.progress, r.resets, r.score, r.time_ms))
        for r in before.rows
    ]
    want = standings_without(results, {leader: "a second account"})
    assert [(r.rank, r.player) for r in after.rows] == [(r.rank, r.player) for r in want]
    assert after.rows[-1].rank is None and after.rows[-1].player == leader
    assert after.rows[-1].disqualified == "a second account"  # type: ignore[union-attr]
    assert after.rows[0].rank == 1
    assert after.version > before.version and after.total == 3
    page = await comp.standings.page(tid, 0, 2)
    assert [r.player for r in page.rows] == [p for p in (before.rows[1].player, leader)]
    table, _ = await comp.standings.table(tid)
    assert [(r.rank, r.player) for r in table] == [(r.rank, r.player) for r in want]
    assert protocol.row_of(table[-1])["disqualified"] == "a second account"
    assert "disqualified" not in protocol.row_of(table[0])
    # the entry stays, with its actions
    gone = next(p for p in field if p.name == leader)
    assert (await comp.store.entry(tid, gone.id)) is not None
    assert replies.amended_message(done) == {
        "type": "amended",
        "tournament": tid,
        "player": leader,
    }


async def test_refusals_change_nothing(comp: Competition, clock: Clock) -> None:
    await admin(comp)
    field = await players(comp, ["alice", "bob"])
    tid = await open_tournament(comp, clock, field, [2, 1])
    cases = [
        (dict(player="alice", reason="   "), "bad_request"),
        (dict(player="alice", reason="x" * 201), "bad_request"),
        (dict(player="nobody", reason="x"), "not_found"),
        (dict(player="organiser", reason="x"), "not_found"),  # no entry
    ]
    for kw, code in cases:
        with pytest.raises(CompetitionError) as err:
            await comp.fairplay.disqualify(tid, **kw)
        assert err.value.code == code, kw
    with pytest.raises(CompetitionError) as err:
        await comp.fairplay.disqualify(999, "alice", "x")
    assert err.value.code == "not_found"
    assert await stored.of_tournament(comp.store, tid) == []
    await comp.fairplay.disqualify(tid, "bob", "solver")
    with pytest.raises(CompetitionError) as err:
        await comp.fairplay.disqualify(tid, "bob", "again")
    assert err.value.code == "bad_request"
    assert [d.reason for d in await stored.of_tournament(comp.store, tid)] == ["solver"]


async def test_after_the_close_an_amendment_the_verifier_accepts_and_ratings_follow(
    comp: Competition, clock: Clock
) -> None:
    await admin(comp)
    field = await players(comp, ["alice", "bob", "carol", "dave"])
    first = await play_and_close(comp, clock, field, [9, 5, 3, 1], hours=1)
    second = await play_and_close(comp, clock, field[:3], [1, 2, 3], hours=2)
    clock.advance(60)
    done = await comp.fairplay.disqualify(first.id, "alice", "a solver played the moves")
    assert done.amendment
    bundle = await comp.exports.bundle(first.id)
    assert bundle["amendments"] == [
        {
            "kind": "disqualification",  # v1.4: every amendment says its kind
            "player": "alice",
            "reason": "a solver played the moves",
            "at": bundle["amendments"][0]["at"],
        }
    ]
    rows = bundle["standings"]
    entries = await comp.store.entries(first.id)
    others = standings(
        Result(e.player_name, e.figures) for e in entries if e.player_name != "alice"
    )
    assert [(r["rank"], r["player"], r["disqualified"]) for r in rows] == [
        *((o.rank, o.player, None) for o in others),
        (None, "alice", "a solver played the moves"),
    ]
    report = verify_document(bundle)
    assert report.ok, report.error
    assert any(line.startswith("fair play: 1 disqualified, 1 of them") for line in report.checked)
    record = await comp.exports.record(first.id, "alice")
    assert record["disqualified"]["reason"] == "a solver played the moves"
    assert verify_document(record).ok  # its actions and receipts still verify
    # ratings: computed again as if alice had not played the first tournament
    expected = await expected_by_openskill(comp, [first, second], set())
    expected_without = await _openskill_without(comp, first.id, second.id)
    assert not close_to(await stored_by_name(comp), expected)
    assert close_to(await stored_by_name(comp), expected_without)
    # tampered: the standings as before the amendment
    bad = dict(
        bundle, standings=[dict(r, rank=i + 1, disqualified=None) for i, r in enumerate(rows)]
    )
    assert not verify_document(bad).ok


async def _openskill_without(
    comp: Competition, first: int, second: int
) -> dict[str, tuple[float, float, int]]:
    """openskill over both tournaments, alice left out of the first."""
    from tests.competition.test_ratings import MODEL

    state: dict[str, tuple[float, float, int]] = {}
    for tid, out in ((first, {"alice"}), (second, set())):
        entries = await comp.store.entries(tid)
        rows = [
            r
            for r in standings(
                Result(e.player_name, e.figures) for e in entries if e.player_name not in out
            )
        ]
        teams = [
            [
                MODEL.rating(
                    mu=state.get(r.player, (25.0, 25 / 3, 0))[0],
                    sigma=state.get(r.player, (25.0, 25 / 3, 0))[1],
                )
            ]
            for r in rows
        ]
        new = MODEL.rate(teams, ranks=[r.rank for r in rows])
        for r, team in zip(rows, new, strict=True):
            state[r.player] = (team[0].mu, team[0].sigma, state.get(r.player, (0, 0, 0))[2] + 1)
    return state


async def test_the_report_points_at_shared_openings_new_accounts_and_bots(
    comp: Competition, clock: Clock
) -> None:
    await admin(comp)
    clock.advance(-3600)  # old accounts...
    old = await players(comp, ["alice", "bob"])
    clock.advance(3600)
    tid = await long_opening(comp, clock, old[0], 25)  # a shared opening past the 20
    new = await players(comp, ["newcomer"])  # ...and one made two minutes before it joins
    robot, _ = await comp.players.register_bot("robot")
    clock.advance(120)
    assert await play_in(comp, clock, tid, [old[1], *new, robot], [25, 3, 0]) == [25, 3, 0]
    found = await comp.fairplay.report(tid)
    kinds = {(f.kind, f.players) for f in found}
    assert ("same_opening", ("alice", "bob")) in kinds
    assert ("new_account", ("newcomer",)) in kinds and ("new_account", ("alice",)) not in kinds
    assert ("bot", ("robot",)) in kinds
    line = next(f for f in found if f.kind == "new_account").line()
    assert re.search(r"account created 2 min( \d+ s)? before joining \(under 10 min\)", line)
    message = replies.fairplay_report_message(tid, found)
    assert message["type"] == "fairplay_report" and len(message["findings"]) == len(found)


async def test_another_node_learns_of_a_disqualification(
    comp: Competition, any_store: Store, clock: Clock
) -> None:
    """Node B hears of node A's disqualification as a change of the tournament (the
    notice peers.py applies as lifecycle.learn): it reads the table again and pushes."""
    await admin(comp)
    field = await players(comp, ["alice", "bob"])
    tid = await open_tournament(comp, clock, field, [3, 1])
    heard = Recorder()
    other = Competition.build(any_store, heard, clock)
    await other.lifecycle.refresh()
    before = await other.standings.window(tid)
    assert all(r.rank is not None for r in before.rows)
    await comp.fairplay.disqualify(tid, "bob", "solver")
    await other.lifecycle.learn(tid)
    assert ("standings", tid) in heard.heard
    after = await other.standings.window(tid)
    assert [(r.rank, r.player) for r in after.rows][-1] == (None, "bob")


async def test_an_amendment_invalidates_the_kept_bundle_and_its_bytes_carry_it(
    comp: Competition, clock: Clock
) -> None:
    """The bundle cache (bundle.json's bytes, kept after the close) hears of an amendment
    through the tournaments' amendment listeners, also for a tournament no longer in
    memory; the rebuilt bytes are those of the export, amendment and marks included."""
    await admin(comp)
    field = await players(comp, ["alice", "bob", "carol"])
    t = await play_and_close(comp, clock, field, [9, 5, 3], hours=1)
    cache = BundleCache(comp.store, comp.catalogue)
    before = await cache.get(t.id)
    assert orjson.loads(before.plain)["amendments"] == [] and cache.builds == 1
    assert (await cache.get(t.id)).plain == before.plain and cache.builds == 1  # kept
    clock.advance(60)
    await comp.fairplay.disqualify(t.id, "alice", "shared the line")
    after = await cache.get(t.id)
    assert cache.builds == 2
    assert after.plain == orjson.dumps(await comp.exports.bundle(t.id))
    bundle = orjson.loads(after.plain)
    assert [a["player"] for a in bundle["amendments"]] == ["alice"]
    assert bundle["standings"][-1]["player"] == "alice"
    assert bundle["standings"][-1]["rank"] is None
    assert verify_document(bundle).ok
    # the table's disqualified live with the tournament's runtime object, nowhere else
    runtime = comp.catalogue.tournaments.get(t.id)
    assert runtime is not None
    await comp.standings.page(t.id, 0, 10)
    assert runtime.table.disqualified == {"alice": "shared the line"}
    assert not hasattr(comp.standings, "disqualified")
    comp.catalogue.tournaments._closed.clear()  # dropped from memory
    await comp.fairplay.disqualify(t.id, "bob", "a second account")
    assert cache.builds == 2 and (await cache.get(t.id)).plain != after.plain
    assert cache.builds == 3
