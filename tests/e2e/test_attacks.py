"""The attacks of issue 23 (bench/attacks.py), short, against a real `serve` process with
its default limits: each leaves the server's RSS under a bound, and the server closes or
refuses what it must. A legitimate player acts throughout and must get every act
answered. `SAMEDEAL_ATTACK_SECONDS` sets each attack's length (default 1.5 s). Latency
figures are the bench's (docs/RELIABILITY.md, "Hostile clients"), not asserted here."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from bench import attacks

SECONDS = float(os.environ.get("SAMEDEAL_ATTACK_SECONDS", "1.5"))
RSS_BOUND_MIB = 150  # RELIABILITY.md: the server's RSS under every attack
ENTRANTS = 30
NAMES = itertools.count()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[attacks.Server, int, int]]:
    work = tmp_path_factory.mktemp("attacks")
    url, closed, klondike, _ = attacks.prepare(work, ENTRANTS)
    server = attacks.Server(url, work / "server.log")
    try:
        yield server, closed, klondike
    finally:
        server.stop()


@pytest_asyncio.fixture
async def player(served: tuple[attacks.Server, int, int]) -> AsyncIterator[attacks.Player]:
    server, _, klondike = served
    name = f"legit{next(NAMES)}"
    p = await asyncio.to_thread(attacks.Player, server.port, klondike, name)
    p.task = asyncio.create_task(p.collect())
    yield p
    p.stop()
    await p.task


CLOSED = r"(\d+) connections closed"
ATTACKS = {
    "ping_unread": (lambda port, _: attacks.ping_flood_unread(port, SECONDS), CLOSED),
    "ping_read": (lambda port, _: attacks.ping_flood_read(port, SECONDS), CLOSED),
    "bundle": (lambda port, t: attacks.bundle_flood(port, SECONDS, t), r"([\d,]+) bundles sent"),
    "fragments": (lambda port, _: attacks.fragment_flood(port, SECONDS, b"ab"), CLOSED),
    "empty_fragments": (lambda port, _: attacks.fragment_flood(port, SECONDS, b""), CLOSED),
    "registrations": (lambda port, _: attacks.registration_flood(port, SECONDS), r"(\d+) refused"),
    "http": (lambda port, _: attacks.http_flood(port, SECONDS), r"([\d,]+) 503"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
async def test_an_attack_leaves_the_server_bounded_and_the_player_served(
    served: tuple[attacks.Server, int, int], player: attacks.Player, name: str
) -> None:
    server, closed, _ = served
    attacks.SOURCE[0] = f"127.0.2.{list(ATTACKS).index(name) + 1}"
    attack, counted = ATTACKS[name]
    row = await attacks.measured(server, player, SECONDS, lambda: attack(server.port, closed))
    assert row["rss_peak"] < RSS_BOUND_MIB, row
    found = re.search(counted, row["outcome"])
    assert found and int(found.group(1).replace(",", "")) > 0, row["outcome"]
    assert row["acts"] > 0 and player.errors == 0, row  # every act answered, and accepted
    assert server.proc.poll() is None


async def test_one_address_holding_sockets_leaves_room_for_others(
    served: tuple[attacks.Server, int, int], player: attacks.Player
) -> None:
    server, _, _ = served
    attacks.SOURCE[0] = "127.0.2.100"
    row = await attacks.measured(
        server,
        player,
        0,
        lambda: attacks.connection_flood(server.port, attacks.IDLE_TIMEOUT_S + 2),
    )
    assert row["rss_peak"] < RSS_BOUND_MIB, row
    assert row["outcome"].startswith("64 of 1,100 admitted"), row["outcome"]
    assert (
        "another address: 200" in row["outcome"] and "64 of the admitted closed" in row["outcome"]
    )
    assert player.errors == 0 and row["acts"] > 0


def test_every_limit_hit_was_logged_at_most_once_a_minute_per_address(
    served: tuple[attacks.Server, int, int],
) -> None:
    lines = re.findall(r"limit_hit limit=(\S+) ip=(\S+)", served[0].log.read_text())
    assert lines and len(lines) == len(set(lines)), lines
    assert "connection open" not in served[0].log.read_text()
