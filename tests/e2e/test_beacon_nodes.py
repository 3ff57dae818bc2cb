"""Three nodes on one PostgreSQL, as real processes, with a beacon tournament: the keyed
test network and a local relay are given as configuration (--beacon-networks,
--beacon-relay); the tournament stays not open on every node until its round is verified,
then every node opens it with one deal seed: entrants on different nodes get the same
deal, and the bundle verifies offline against the test network's key. Real time: the
round comes 30 to 33 seconds after creation, as the contract's rule says."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path

from server.audit import drand
from server.audit.verify import verify_document
from tests.e2e.test_nodes import admin, client, on_each, until
from tests.support.beacon import KeyedNetwork
from tests.support.harness import create_msg, http_get
from tests.support.processes import ServerProcess, cli
from tests.support.relay import Relay, serving

NET = KeyedNetwork("e2e-test", genesis_time=int(time.time()) - 600, period=3, sk=31337)


async def test_three_nodes_open_on_one_verified_round_and_agree_on_the_deal(
    pg_url: str, tmp_path: Path
) -> None:
    networks = tmp_path / "networks.json"
    networks.write_text(json.dumps({"e2e-test": NET.spec}))
    assert cli(pg_url, "migrate").returncode == 0
    with serving(Relay(NET, "wrong"), Relay(NET)) as relays:
        for r in relays:
            r.latest = 10**9  # the server asks only once a round is due
        extra = ("--no-demo", "--beacon-networks", str(networks))
        for r in relays:
            extra += ("--beacon-relay", r.url)
        nodes = [ServerProcess(pg_url, tmp_path / f"node{i}.log", extra) for i in range(3)]
        try:
            async with AsyncExitStack() as stack:
                op = await admin(pg_url, nodes[0], stack)
                msg = create_msg(
                    starts_at=datetime.now(UTC).isoformat(),
                    ends_at="2099-01-01T00:00:00+00:00",
                    time_limit_s=None,
                    beacon={"network": "e2e-test"},
                )
                t = (await op.ok(**msg))["tournament"]
                assert t["status"] == "scheduled" and "signature" not in t["beacon"]
                round_time = NET.network.round_time(t["beacon"]["round"])
                assert 30 <= round_time - time.time() <= 34
                first = await stack.enter_async_context(client(nodes[0]))
                tokens = [
                    (await first.ok(type="register", name=f"p{i}"))["token"] for i in range(3)
                ]
                players = [(await on_each(nodes, tok, stack))[i] for i, tok in enumerate(tokens)]
                for p in players:  # one player per node: not open anywhere yet
                    await p.err("not_open", type="join", tournament=t["id"])

                async def open_everywhere() -> bool:
                    for node in nodes:
                        async with client(node) as c:
                            items = (await c.ok(type="tournaments"))["items"]
                        if next(x for x in items if x["id"] == t["id"])["status"] != "open":
                            return False
                    return True

                await until(open_everywhere, seconds=round_time - time.time() + 20)
                states = [await p.ok(type="join", tournament=t["id"]) for p in players]
                assert states[0]["view"]["grid"] == states[1]["view"]["grid"]
                assert states[1]["view"]["grid"] == states[2]["view"]["grid"]
                await op.ok(type="close_tournament", tournament=t["id"])
                url = f"http://127.0.0.1:{nodes[2].port}/tournaments/{t['id']}/bundle.json"
                status, body = await asyncio.to_thread(http_get, url)
                assert status == 200
                bundle = json.loads(body)
                assert (
                    bundle["tournament"]["beacon"]["signature"]
                    == NET.sign(t["beacon"]["round"]).signature.hex()
                )
                nets = drand.networks_from_json({"e2e-test": NET.spec})
                report = verify_document(bundle, networks=nets)
                assert report.ok, report.error
                assert len(bundle["records"]) == 3
        finally:
            for node in nodes:
                if node.proc.poll() is None:
                    node.stop()
