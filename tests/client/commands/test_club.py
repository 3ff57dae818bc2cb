"""`samedeal club ...` (issue 40 item 5) against a real server, run in this process (a
thread, as a user's shell would run it, but without a new interpreter each time): create,
join with the code, list, show, the leaders' tools, in words (English and pt-BR) and as
JSON; and a refusal by quota (item 6) said as a quota and never sent again, where the
server's "slow down" is sent again (a stand-in server counting what it receives)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client_cli import __main__ as client
from client_cli import config, connection
from client_cli.commands import play
from client_cli.commands.registry import build_parser
from client_cli.connection import Connection, ServerError
from server.i18n import terminal
from tests.support.harness import Clock, Running, running_server

Samedeal = Callable[..., Any]


@pytest.fixture
async def srv(sqlite_url: str) -> AsyncIterator[Running]:
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as running:
        yield running


@pytest.fixture
def samedeal(
    srv: Running,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[Samedeal]:
    """`samedeal ARGS` as the user `who` (each user their own saved token): (status,
    stdout, stderr)."""

    async def run(who: str, *args: str) -> tuple[int, str, str]:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / who))
        monkeypatch.setenv("SAMEDEAL_SERVER", srv.ws_url)
        monkeypatch.delenv("LANG", raising=False)
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_MESSAGES", raising=False)
        code = await asyncio.to_thread(client.main, list(args))
        out, err = capsys.readouterr()
        return code, out, err

    yield run
    terminal.choose(None, {})  # main() chose the last command's language: English again


async def test_club_commands_in_words_as_json_and_a_quota(samedeal: Samedeal) -> None:
    for who in ("ana", "bea"):
        assert (await samedeal(who, "register", who))[0] == 0
    code, out, err = await samedeal("ana", "club", "create", "Xadrez", "--description", "sextas")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "created Xadrez: you own it"
    assert lines[1].startswith("club ") and lines[1].endswith(": Xadrez (you: owner)")
    club_id = lines[1].split()[1].rstrip(":")
    assert "owner ana" in lines[2] and "1 member" in lines[2]
    invite = lines[3].split()[1]
    assert lines[3].startswith(f"code {invite} (give it") and lines[4] == "sextas"

    code, out, err = await samedeal("bea", "club", "join", invite, "--json")
    assert code == 0, err
    joined = json.loads(out)
    assert joined["id"] == int(club_id) and joined["role"] == "member" and joined["members"] == 2
    assert "invite" not in joined  # a member is never sent the code
    code, out, _ = await samedeal("bea", "club", "list")
    assert code == 0 and out.splitlines()[-1] == "1–1 of 1" and "(member)" in out

    assert (await samedeal("ana", "club", "leader", club_id, "bea"))[0] == 0
    code, out, _ = await samedeal("bea", "--lang", "pt-BR", "club", "show", club_id)
    assert code == 0
    assert "clube " in out and "(você: líder)" in out and "2 membros" in out
    assert "  ana (dono)" in out.splitlines() and "  bea (líder)" in out.splitlines()
    assert f"código {invite}" in out  # a leader sees the current code

    code, out, _ = await samedeal("ana", "club", "invite", club_id, "--json")
    renewed = json.loads(out)["invite"]
    assert code == 0 and renewed and renewed != invite
    code, out, _ = await samedeal("ana", "club", "kick", club_id, "bea", "--json")
    assert code == 0 and json.loads(out)["members"] == 1
    code, _, err = await samedeal("bea", "club", "join", invite)  # the old code died
    assert code == 1 and err.startswith("samedeal: not_found:")
    code, _, err = await samedeal("ana", "club", "leave", club_id)
    assert code == 1 and "hands the club over" in err

    # a fourth club: a quota, in its own words
    for name in ("Dois", "Tres"):
        assert (await samedeal("ana", "club", "create", name))[0] == 0
    code, out, err = await samedeal("ana", "club", "create", "Quatro")
    assert (code, out) == (1, "")
    assert err == (
        "samedeal: you own 3 clubs, the most a player may: hand one over before creating another\n"
    )
    code, _, err = await samedeal("ana", "--lang", "es", "club", "create", "Quatro")
    assert err.startswith("samedeal: eres dueño de 3 clubes, el máximo permitido")


# -- not sent again: a stand-in server that counts ----------------------------------------
QUOTA = {"code": "rate_limited", "reason": "clubs_owned", "params": {"max": 3}}
FLOOD = {"code": "rate_limited", "reason": "too_many_messages", "message": "slow down"}


async def counted(replies: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Any]:
    """A server answering its messages with `replies` in turn (then `pong`), and the
    list of what it received."""
    got: list[dict[str, Any]] = []

    async def handler(ws: ServerConnection) -> None:
        async for raw in ws:
            msg = json.loads(raw)
            got.append(msg)
            reply = replies.pop(0) if replies else {"type": "pong"}
            await ws.send(json.dumps({**reply, "re": msg["id"]}))

    return got, await serve(handler, "127.0.0.1", 0)


async def test_a_quota_is_not_sent_again_and_a_slow_down_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connection, "FLOOD_PAUSES_S", (0.0, 0.0, 0.0))
    quota = {"type": "error", "message": "a player owns at most 3 clubs", "limit": "clubs_owned"}
    got, server = await counted([{**quota, **QUOTA}])
    port = server.sockets[0].getsockname()[1]
    async with server, Connection(f"ws://127.0.0.1:{port}", retries=0) as conn:
        with pytest.raises(ServerError) as refused:
            await conn.call("create_club", name="Quatro")
        assert refused.value.quota == "clubs_owned"
        await conn.call("ping")  # whatever would have been sent again is in before this
        assert [m["type"] for m in got] == ["create_club", "ping"]

    got, server = await counted([{"type": "error", **FLOOD}, {"type": "club", "club": {"id": 4}}])
    port = server.sockets[0].getsockname()[1]
    async with server, Connection(f"ws://127.0.0.1:{port}", retries=0) as conn:
        assert (await conn.call("create_club", name="Quatro"))["club"] == {"id": 4}
        assert [m["type"] for m in got] == ["create_club", "create_club"]


def test_quota_words_name_the_limit_and_whose_it_is() -> None:
    def said(reply: dict[str, Any], request: dict[str, Any] | None = None) -> str:
        return connection.quota_text(ServerError({"code": "rate_limited", **reply}, request))

    day = {"limit": "club_events", "reason": "club_events_day", "params": {"id": 3, "max": 20}}
    assert said(day).startswith("this club's members have created 20 events in the last 24")
    owned = {"limit": "clubs_owned", "reason": "clubs_owned", "params": {"max": 3}}
    handover = {"type": "set_owner", "club": 1, "player": "bea"}
    assert said(owned, handover) == "bea already owns 3 clubs, the most a player may"
    assert said({"limit": "new_thing"}).startswith("a limit of this server is reached (new_thing)")


async def test_a_leader_makes_a_club_event_a_member_enters_with_its_code(
    samedeal: Samedeal, srv: Running
) -> None:
    for who in ("ana", "bea"):
        assert (await samedeal(who, "register", who))[0] == 0
    made = json.loads((await samedeal("ana", "club", "create", "Eventos", "--json"))[1])
    assert (await samedeal("bea", "club", "join", made["invite"]))[0] == 0
    code, out, err = await samedeal(
        "ana", "create", "--json", "--name", "Noite", "--duration", "1h", "--club",
        str(made["id"]), "--visibility", "unlisted", "--entry-code", "SEGREDO1",
    )  # fmt: skip
    assert code == 0, err  # a leader, not an operator
    event = json.loads(out)
    assert (event["club"], event["visibility"], event["rated"]) == (made["id"], "unlisted", False)
    assert event["entry_code"] == "SEGREDO1" and event["code_required"] is True
    code, out, _ = await samedeal("bea", "tournaments", "--json")  # a member sees it listed
    assert [t["id"] for t in json.loads(out)] == [event["id"]] and "entry_code" not in out
    # `samedeal play` joins before its full screen opens: the code goes with the join
    wrong = build_parser().parse_args(["play", str(event["id"]), "--code", "ERRADO99"])
    wrong.server = config.server_url(srv.ws_url)
    with pytest.raises(ServerError) as refused:
        await play._can_play(wrong)
    assert refused.value.code == "forbidden"
    right = build_parser().parse_args(["play", str(event["id"]), "--code", "SEGREDO1"])
    right.server = wrong.server
    assert await play._can_play(right)  # in: the saved token, for the full screen
