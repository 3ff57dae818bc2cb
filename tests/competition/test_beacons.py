"""Tournaments with a public beacon, end to end without sockets: a keyed test network
(injected as configuration; the production networks stay pinned) served by local relays
over real HTTP, the test's clock. The round is published at creation; the tournament opens
only once its round is fetched and verified; every deal comes from the deal seed; the
bundle verifies offline; a relay that is down, slow or lying is passed over; the void
rule; a restart while waiting."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any, TypeVar

import pytest

from server.audit import drand as pure
from server.audit.verify import verify_document
from server.competition.beacon_policy import BeaconConfig
from server.competition.catalogue import Catalogue
from server.competition.compute import Compute
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import TournamentStatus
from server.games import gaps
from server.net.protocol import summary
from server.store.repository import Store
from tests.competition.conftest import Recorder, gaps_spec
from tests.support import factories
from tests.support.beacon import KeyedNetwork
from tests.support.harness import T0, Clock
from tests.support.relay import Relay, down_url, serving

R = TypeVar("R")
NET = KeyedNetwork("local-test", genesis_time=int(T0.timestamp()) - 3000, period=3)
NETWORKS = {**pure.BUILT_IN, NET.network.name: NET.network}


def configure(c: Competition, relays: list[str], timeout_s: float = 1.0) -> None:
    c.catalogue.use_beacons(
        BeaconConfig(networks=NETWORKS, relays=tuple(relays), timeout_s=timeout_s, retry_s=0.0)
    )


async def settle(c: Competition) -> None:
    """One tick, the fetches it started, and the tick that acts on them."""
    await c.lifecycle.tick()
    await c.lifecycle.beacons.fetches_done()
    await c.lifecycle.tick()


async def test_opens_only_once_its_round_is_verified_and_deals_from_the_deal_seed(
    competition: Competition, clock: Clock, events: Recorder, store: Store
) -> None:
    relays = [Relay(NET, "slow", delay_s=3.0), Relay(NET, "wrong"), Relay(NET)]
    with serving(*relays) as served:
        configure(competition, [down_url()] + [r.url for r in served], timeout_s=0.5)
        admin, _ = await competition.players.register("op")
        alice, _ = await competition.players.register("alice")
        spec = gaps_spec(starts_at=T0 + timedelta(seconds=10), beacon={"network": "local-test"})
        t = await competition.catalogue.create(spec)
        s = summary(t, None)
        assert s["status"] == "scheduled" and s["void"] is False
        r_number = s["beacon"]["round"]
        assert s["beacon"] == {
            "network": "local-test",
            "chain_hash": NET.network.chain_hash,
            "round": r_number,
        }
        # the rule: the first round at or after both created_at + 30 s and starts_at
        assert NET.network.round_time(r_number) >= (T0 + timedelta(seconds=30)).timestamp()
        assert NET.network.round_time(r_number - 1) < (T0 + timedelta(seconds=30)).timestamp()

        clock.advance(20)  # past starts_at, before the round: still not open
        await settle(competition)
        with pytest.raises(CompetitionError) as err:
            await competition.play.join(alice, t.id)
        assert err.value.code == "not_open"
        assert not any(r.requests for r in served)  # nobody asked before the round's time

        clock.advance(NET.network.round_time(r_number) - clock().timestamp())
        await settle(competition)  # due, but the relays have not produced it yet
        assert (await competition.catalogue.reload(t.id)).status == TournamentStatus.SCHEDULED
        for r in served:
            r.latest = r_number
        await settle(competition)
        t = await competition.catalogue.reload(t.id)
        assert t.status == TournamentStatus.OPEN
        assert ("tournament", t.id, TournamentStatus.OPEN) in events.heard
        signed = NET.sign(r_number)
        assert t.beacon == {**summary(t, None)["beacon"], "signature": signed.signature.hex()}
        assert served[1].requests  # the lying relay was asked, and refused

        snap = await competition.play.join(alice, t.id)
        seed = bytes.fromhex(await store.secret_seed(t.id))
        deal_seed = pure.deal_seed(seed, NET.network, signed)
        grid = lambda g: [[None if c == "--" else c for c in row.split()] for row in g]  # noqa: E731
        assert snap.view["grid"] == grid(gaps.format_grid(gaps.deal_grid(deal_seed)))
        assert snap.view["grid"] != grid(gaps.format_grid(gaps.deal_grid(seed)))
        for seq, action in enumerate(
            factories.play_gaps(deal_seed, alice.id, 5, random.Random(3)), 1
        ):
            await competition.play.act(alice, t.id, seq, action)
        del admin

        clock.advance(3600)
        await competition.lifecycle.tick()
        bundle = await competition.exports.bundle(t.id)
        assert bundle["tournament"]["beacon"]["signature"] == signed.signature.hex()
        report = verify_document(bundle, networks=NETWORKS)
        assert report.ok, report.error
        assert any("beacon round" in line and "verifies" in line for line in report.checked)
        assert verify_document(bundle).error == "tournament 1: unknown beacon network 'local-test'"

        step = competition.lifecycle.enable_par()  # par is searched on the deal seed too
        step.pool = Compute(ThreadPoolExecutor(1))
        assert await step.tournament(t.id) == 1
        bundle = await competition.exports.bundle(t.id)
        assert bundle["records"][0]["par"]["line"]
        report = verify_document(bundle, networks=NETWORKS)
        assert report.ok, report.error
        assert any("par line (" in line for line in report.checked)


async def test_void_when_the_round_cannot_be_had(
    competition: Competition, clock: Clock, events: Recorder
) -> None:
    with serving(Relay(NET, "wrong")) as (relay,):
        configure(competition, [relay.url, down_url()])
        t = await competition.catalogue.create(gaps_spec(beacon={"network": "local-test"}))
        r_number = t.beacon["round"] if t.beacon else 0
        relay.latest = r_number + 1000
        due = NET.network.round_time(r_number)
        clock.advance(due - clock().timestamp() + 9 * 60 + 59)
        await settle(competition)
        assert (await competition.catalogue.reload(t.id)).status == TournamentStatus.SCHEDULED
        assert relay.requests
        clock.advance(1)  # 10 minutes after the round's time (later than the start)
        await settle(competition)
        t = await competition.catalogue.reload(t.id)
        assert t.status == TournamentStatus.CLOSED and t.void
        runtime = competition.catalogue.tournaments.get(t.id)
        assert runtime is not None and runtime.beacon_task is None  # its fetch cancelled
        assert competition.catalogue.tournaments.live() == []  # retired
        s = summary(t, await competition.catalogue.revealed_seed(t))
        assert s["void"] is True and "seed" in s and "signature" not in s["beacon"]
        assert any(e[0] == "closed" and e[1] == t.id for e in events.heard)
        bundle = await competition.exports.bundle(t.id)
        assert bundle["records"] == []
        report = verify_document(bundle, networks=NETWORKS)
        assert report.ok and any("void" in n for n in report.notes)


async def test_a_restart_while_waiting_resumes(store: Store, clock: Clock, sqlite_url: str) -> None:
    first = Competition.build(store, Recorder(), clock)
    with serving(Relay(NET)) as (relay,):
        configure(first, [relay.url])
        await first.lifecycle.start()
        t = await first.catalogue.create(gaps_spec(beacon={"network": "local-test"}))
        await first.lifecycle.stop()  # the server goes down before the round
        r_number = t.beacon["round"] if t.beacon else 0
        relay.latest = r_number
        clock.advance(NET.network.round_time(r_number) - clock().timestamp() + 5)
        again = await Store.open(sqlite_url)
        try:
            second = Competition.build(again, Recorder(), clock)
            configure(second, [relay.url])
            await second.lifecycle.start()
            await settle(second)
            t = await second.catalogue.reload(t.id)
            assert t.status == TournamentStatus.OPEN and t.beacon and t.beacon["signature"]
            await second.lifecycle.stop()
        finally:
            await again.close()


async def test_a_guaranteed_klondike_deal_is_searched_on_the_deal_seed(
    competition: Competition, clock: Clock
) -> None:
    with serving(Relay(NET)) as (relay,):
        configure(competition, [relay.url])
        spec = gaps_spec(
            game="klondike",
            options={"draw": 1, "guaranteed": True},
            beacon={"network": "local-test"},
        )
        t = await competition.catalogue.create(spec)
        assert t.solution is None  # nothing searched before the round
        r_number = t.beacon["round"] if t.beacon else 0
        relay.latest = r_number
        clock.advance(NET.network.round_time(r_number) - clock().timestamp())
        await settle(competition)
        t = await competition.catalogue.reload(t.id)
        assert t.status == TournamentStatus.OPEN and t.guaranteed and t.solution
        clock.advance(3600)
        await competition.lifecycle.tick()
        report = verify_document(await competition.exports.bundle(t.id), networks=NETWORKS)
        assert report.ok, report.error
        assert any("stored solution" in line for line in report.checked)


@pytest.mark.parametrize(
    "beacon", [{"network": "nope"}, {"network": 1}, {"net": "quicknet"}, ["quicknet"]]
)
async def test_a_bad_beacon_option_is_refused_and_creates_nothing(
    competition: Competition, beacon: Any
) -> None:
    with pytest.raises(CompetitionError) as err:
        await competition.catalogue.create(gaps_spec(beacon=beacon))
    assert err.value.code == "bad_request"
    assert await competition.catalogue.summaries() == []


async def test_a_round_after_the_end_is_refused(competition: Competition) -> None:
    configure(competition, [])
    spec = gaps_spec(ends_at=T0 + timedelta(seconds=20), beacon={"network": "local-test"})
    with pytest.raises(CompetitionError, match="comes at or after ends_at"):
        await competition.catalogue.create(spec)
    assert await competition.catalogue.summaries() == []


class _Recording(Compute):
    """The runtime's pool, noting each job it runs."""

    def __init__(self) -> None:
        super().__init__(ThreadPoolExecutor(1))
        self.jobs: list[tuple[str, bytes]] = []

    async def run(self, job: Callable[..., R], *args: Any) -> R:
        self.jobs.append((job.__name__, args[1]))
        return await super().run(job, *args)


async def test_the_deal_is_prepared_in_the_pool_and_nothing_outlives_the_close(
    store: Store, clock: Clock
) -> None:
    compute = _Recording()
    catalogue = Catalogue(store, clock, compute)
    c = Competition.build(store, Recorder(), clock, catalogue=catalogue)
    with serving(Relay(NET)) as (relay,):
        configure(c, [relay.url])
        t = await c.catalogue.create(gaps_spec(beacon={"network": "local-test"}))
        assert compute.jobs == []  # nothing dealt before the round
        runtime = c.catalogue.tournaments.get(t.id)
        assert runtime is not None and runtime.seed is None
        r_number = t.beacon["round"] if t.beacon else 0
        relay.latest = r_number
        clock.advance(NET.network.round_time(r_number) - clock().timestamp())
        await c.lifecycle.tick()
        assert runtime.beacon_task is not None  # the fetch runs in the background
        await settle(c)
        assert runtime.info.status == TournamentStatus.OPEN and runtime.beacon_task is None
        seed = bytes.fromhex(await store.secret_seed(t.id))
        deal_seed = pure.deal_seed(seed, NET.network, NET.sign(r_number))
        assert compute.jobs == [("prepare_deal", deal_seed)]
        assert await c.catalogue.seed(t.id) == deal_seed
        clock.advance(3600)
        await c.lifecycle.tick()
        assert c.catalogue.tournaments.live() == []  # closed: retired with its waiting
    compute.close()


async def test_a_beacon_schedule_gives_each_occurrence_its_round_opens_or_voids_it(
    competition: Competition, clock: Clock
) -> None:
    from server.domain.schedule import NewSchedule
    from server.net.replies import schedule_item
    from server.net.schedule_http import calendar

    with serving(Relay(NET)) as (relay,):
        configure(competition, [relay.url])
        new = NewSchedule(
            "Beacon Minutely",
            "gaps",
            {"redeals": 1},
            first_starts_at=T0 + timedelta(seconds=10),
            every_s=60,
            duration_s=1200,  # longer than the void rule's 10 minutes
            beacon={"network": "local-test"},
        )
        s = await competition.schedules.create(new)
        assert s.beacon == {"network": "local-test"}
        first, second = sorted(await competition.catalogue.summaries(), key=lambda t: t.id)
        for t in (first, second):  # published at creation: the rule's round for each
            assert t.status == TournamentStatus.SCHEDULED and t.beacon is not None
            assert t.beacon["chain_hash"] == NET.network.chain_hash
            earliest = max(t.created_at + timedelta(seconds=30), t.starts_at).timestamp()
            assert NET.network.round_time(t.beacon["round"]) >= earliest
            assert NET.network.round_time(t.beacon["round"] - 1) < earliest
        assert first.beacon and second.beacon and first.beacon["round"] < second.beacon["round"]
        [item] = [schedule_item(s) for s in await competition.schedules.listing()]
        assert item["beacon"] == {"network": "local-test"}
        assert item["next"][0]["beacon"] == summary(first, None)["beacon"]
        feed = await calendar(competition, "here")
        assert f"round {first.beacon['round']}" in feed.replace("\r\n ", "")

        # #1: its round served and verified -> open, dealt from the deal seed
        relay.latest = first.beacon["round"]
        clock.advance(NET.network.round_time(first.beacon["round"]) - clock().timestamp())
        await settle(competition)
        opened = await competition.catalogue.reload(first.id)
        assert opened.status == TournamentStatus.OPEN and opened.beacon
        assert opened.beacon["signature"] == NET.sign(first.beacon["round"]).signature.hex()
        seed = bytes.fromhex(await competition.store.secret_seed(first.id))
        deal = pure.deal_seed(seed, NET.network, NET.sign(first.beacon["round"]))
        assert await competition.catalogue.seed(first.id) == deal
        assert (await competition.catalogue.reload(second.id)).status == (
            TournamentStatus.SCHEDULED
        )  # its own round is not due yet

        # #2: the relay never serves its round -> void 10 minutes after the round's time
        due = NET.network.round_time(second.beacon["round"])
        clock.advance(due - clock().timestamp() + 9 * 60 + 59)
        await settle(competition)
        assert (await competition.catalogue.reload(second.id)).status == (
            TournamentStatus.SCHEDULED
        )
        clock.advance(1)
        await settle(competition)
        voided = await competition.catalogue.reload(second.id)
        assert voided.status == TournamentStatus.CLOSED and voided.void
        later = [t for t in await competition.catalogue.summaries() if (t.occurrence or 0) > 2]
        assert later and all(t.beacon is not None for t in later)  # the tick made more


async def test_void_at_its_end_when_that_comes_before_the_round_is_had(
    competition: Competition, clock: Clock
) -> None:
    with serving(Relay(NET)) as (relay,):  # never serves the round (latest stays 0)
        configure(competition, [relay.url])
        spec = gaps_spec(ends_at=T0 + timedelta(seconds=120), beacon={"network": "local-test"})
        t = await competition.catalogue.create(spec)
        clock.advance(119)
        await settle(competition)
        assert (await competition.catalogue.reload(t.id)).status == TournamentStatus.SCHEDULED
        assert relay.requests  # asked, and refused: not produced yet
        clock.advance(1)
        await settle(competition)
        t = await competition.catalogue.reload(t.id)
        assert t.status == TournamentStatus.CLOSED and t.void
        report = verify_document(await competition.exports.bundle(t.id), networks=NETWORKS)
        assert report.ok and any("void" in n for n in report.notes), report.error


@pytest.mark.parametrize(
    ("beacon", "duration_s", "needle"),
    [
        ({"network": "nope"}, 40, "unknown beacon network"),
        ({"net": "local-test"}, 40, "beacon is"),
        ({"network": "local-test"}, 3, "period"),
    ],
)
async def test_a_bad_beacon_schedule_is_refused_and_stores_nothing(
    competition: Competition, beacon: Any, duration_s: int, needle: str
) -> None:
    from server.domain.schedule import NewSchedule
    from server.store import schedules as stored

    configure(competition, [])
    new = NewSchedule("Bad", "gaps", {}, T0 + timedelta(seconds=10), 60, duration_s, beacon=beacon)
    with pytest.raises(CompetitionError) as err:
        await competition.schedules.create(new)
    assert err.value.code == "bad_request" and needle in err.value.message
    assert await stored.schedules(competition.store) == []
    assert await competition.catalogue.summaries() == []
