"""Several nodes are one server for passkeys (v1.4, PROTOCOL.md "Accounts"): three
server processes on one PostgreSQL database behind one public origin (`serve
--public-origin`, as behind a balancer). A challenge issued on one node is answered on
another, and used up on all; a sign count grown on one is the floor on the others; a
passkey removed on one signs in nowhere; `serve --max-sign-ins-per-minute` is taken."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

from tests.e2e.test_nodes import client
from tests.support.authenticator import SoftAuthenticator
from tests.support.processes import ServerProcess, cli

ORIGIN = "https://play.example"


async def test_passkeys_hold_across_nodes(pg_url: str, tmp_path: Path) -> None:
    assert cli(pg_url, "migrate").returncode == 0
    flags = ("--no-demo", "--public-origin", ORIGIN + "/", "--max-sign-ins-per-minute", "3")
    nodes = [ServerProcess(pg_url, tmp_path / f"node{i}.log", flags) for i in range(3)]
    try:
        async with AsyncExitStack() as stack:
            a, b, c = [await stack.enter_async_context(client(n)) for n in nodes]
            await a.ok(type="register", name="nia")
            options = (await a.ok(type="passkey_options", purpose="register"))["options"]
            assert options["rp"]["id"] == "play.example"
            auth = SoftAuthenticator()
            answer = auth.create(options, ORIGIN)
            await b.ok(type="register", name="other")  # B is someone else's: refused
            await b.err("unauthorized", type="passkey_register", credential=answer)
            await a.err("unauthorized", type="passkey_register", credential=answer)  # used up
            options = (await a.ok(type="passkey_options", purpose="register"))["options"]
            passkey = (
                await a.ok(type="passkey_register", credential=auth.create(options, ORIGIN))
            )["passkey"]

            login = (await b.ok(type="passkey_options", purpose="login"))["options"]
            answer = auth.get(login, ORIGIN)
            got = await c.ok(type="passkey_login", credential=answer)  # issued on B, used on C
            assert got["player"]["name"] == "nia"
            await a.err("unauthorized", type="passkey_login", credential=answer)  # once
            fresh = (await c.ok(type="passkey_options", purpose="login"))["options"]
            stale = auth.get(fresh, ORIGIN, count=auth.sign_count - 1)
            await a.err("unauthorized", type="passkey_login", credential=stale)  # a clone

            await c.ok(type="remove_passkey", passkey=passkey["id"])
            again = (await a.ok(type="passkey_options", purpose="login"))["options"]
            await b.err("unauthorized", type="passkey_login", credential=auth.get(again, ORIGIN))
            # the limit the flag set (3 a minute from one address, on each node): the
            # fourth is refused before its challenge is looked at
            for _ in range(2):
                await b.err(
                    "unauthorized", type="passkey_login", credential=auth.get(again, ORIGIN)
                )
            limited = await b.err("rate_limited", type="passkey_login", credential={})
            assert "limit" not in limited
    finally:
        for node in nodes:
            if node.proc.poll() is None:
                node.stop()
