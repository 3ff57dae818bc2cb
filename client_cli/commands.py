"""The subcommands of `samedeal`: each is one async function over the protocol."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar

from websockets.exceptions import WebSocketException

from client_cli import config, fairplay, ratings, schedule_cmd
from client_cli.bots import run_bots
from client_cli.connection import Connection, ServerError, failure
from client_cli.create_args import create_message
from client_cli.tui import render
from server.audit.receipts import check_receipt, record_of_player
from server.domain.names import name_key

CLI_RETRIES = 2  # a one-shot command says "cannot connect" within a second


class CliError(Exception):
    """What went wrong, in one line for the user; `code` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def no_token(server: str) -> CliError:
    return CliError(
        f"no token saved for {server}: `samedeal register NAME` first (or --server with "
        "the address you registered on)"
    )


async def sign_in(conn: Connection, token: str, server: str) -> None:
    """Authenticate an open connection with the saved token (and again after reconnects)."""
    try:
        reply = await conn.request({"type": "auth", "token": token}, reconnect=False)
    except ServerError as exc:
        if exc.code != "unauthorized":
            raise
        raise CliError(
            f"the server at {server} does not accept the token saved for it in "
            f"{config.tokens_path()} (a different or reset server?)"
        ) from None
    conn.token, conn.player = token, reply["player"]


@contextlib.asynccontextmanager
async def authed(args: argparse.Namespace) -> AsyncIterator[Connection]:
    """A connection signed in with the saved token for this server. It connects first,
    so a server that cannot be reached is reported as such, not as a missing token."""
    async with Connection(args.server, retries=CLI_RETRIES) as conn:
        saved = config.token_for(args.server)
        if saved is None:
            raise no_token(args.server)
        await sign_in(conn, saved[1], args.server)
        yield conn


@contextlib.asynccontextmanager
async def maybe_authed(args: argparse.Namespace) -> AsyncIterator[Connection]:
    """A connection signed in when a token is saved, else anonymous: watching (the list,
    standings, records) is public. A token the server refuses is said on stderr and the
    command goes on anonymously."""
    async with Connection(args.server, retries=CLI_RETRIES) as conn:
        saved = config.token_for(args.server)
        if saved is not None:
            try:
                await sign_in(conn, saved[1], args.server)
            except CliError as exc:
                print(f"note: {exc}; watching anonymously", file=sys.stderr)
        yield conn


def http_url(ws_url: str, path: str) -> str:
    base = ws_url.replace("wss://", "https://").replace("ws://", "http://")
    return base.rsplit("/ws", 1)[0] + path


def write_json(data: Any, target: str | None, out: TextIO) -> None:
    text = json.dumps(data, indent=1)
    if target:
        try:
            Path(target).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
        print(f"written: {target}", file=out)
    else:
        print(text, file=out)


async def register(args: argparse.Namespace, out: TextIO) -> int:
    kept = config.token_for(args.server)
    if kept is not None and not args.replace:
        raise CliError(
            f"a token for {kept[0]} is already saved for {args.server}; registering "
            f"{args.name} would replace it, and a lost token cannot be recovered: keep a "
            f"copy of {config.tokens_path()}, then add --replace",
            code=2,
        )
    async with Connection(args.server, retries=CLI_RETRIES) as conn:
        reply = await conn.call("register", name=args.name)
    path = config.save_token(args.server, reply["player"]["name"], reply["token"])
    print(
        f"registered {reply['player']['name']} (id {reply['player']['id']}); token saved in "
        f"{path}\nkeep a copy of that file: the token is the only key to this player, and "
        "the server cannot recover it",
        file=out,
    )
    return 0


async def tournaments(args: argparse.Namespace, out: TextIO) -> int:
    async with maybe_authed(args) as conn:
        items = (await conn.call("tournaments"))["items"]
    if args.json:
        write_json(items, None, out)
        return 0
    now = datetime.now(UTC)
    print(f"{'id':>4}  {'name':<24} {'game':<20} {'status':<9} {'entrants':>8}  when", file=out)
    for t in items:
        game = render.game_words(t["game"], t.get("options"))
        print(
            f"{t['id']:>4}  {t['name'][:24]:<24} {game:<20} {t['status']:<9} "
            f"{t['entrants']:>8}  {render.schedule(t, now)}",
            file=out,
        )
    return 0


async def game_of(conn: Connection, tournament: int) -> str | None:
    """The game of a tournament (from the public list), None when it is not listed."""
    with contextlib.suppress(ServerError):
        for t in (await conn.call("tournaments"))["items"]:
            if t["id"] == tournament:
                return str(t["game"])
    return None


def standings_table(
    msg: dict[str, Any], me: str | None = None, game: str | None = None, elapsed_ms: int = 0
) -> str:
    """A plain-text standings table (`…` where a window leaves rows out), running clocks
    advanced by `elapsed_ms` since the message's `server_time`."""
    head = f"tournament {msg['tournament']} — {'final' if msg['final'] else 'live'}"
    if isinstance(msg.get("total"), int):
        head += f" — {msg['total']} entrants"
    rows = render.advance_rows(msg["rows"], elapsed_ms)
    lines = render.standings_lines(rows, me, msg.get("gap_after"), game=game)
    return head + "\n" + lines.plain.rstrip("\n")


def window_fields(args: argparse.Namespace) -> dict[str, int]:
    """`top` and `around` for `subscribe`, when given (else the server's defaults)."""
    fields = {"top": getattr(args, "top", None), "around": getattr(args, "around", None)}
    return {k: v for k, v in fields.items() if v is not None}


async def standings(args: argparse.Namespace, out: TextIO) -> int:
    if args.follow and not args.json and out.isatty():
        return await _standings_app(args)
    async with maybe_authed(args) as conn:
        me = conn.player["name"] if conn.player else None
        game = None if args.json else await game_of(conn, args.id)
        if getattr(args, "all", False):
            msg = await all_standings(conn, args.id)
            if args.json:
                write_json(msg, None, out)
            else:
                print(standings_table(msg, me, game), file=out)
            return 0
        msg = await conn.call("subscribe", tournament=args.id, **window_fields(args))
        if args.json and not args.follow:
            write_json(msg, None, out)
            return 0
        if not args.follow:
            print(standings_table(msg, me, game), file=out)
            return 0
        if args.json:
            return await _follow_json(conn, msg, out)
        return await _follow(conn, msg, out, me, game)


async def _standings_app(args: argparse.Namespace) -> int:
    """The live viewer (a terminal): the window, and the whole table page by page."""
    from client_cli.tui.standings import StandingsApp

    saved = config.token_for(args.server)
    app = StandingsApp(
        args.server,
        args.id,
        token=saved[1] if saved else None,
        top=getattr(args, "top", None),
        around=getattr(args, "around", None),
    )
    await app.run_async()
    if app.failure is not None:
        raise CliError(app.failure)
    return app.return_code or 0


async def all_standings(conn: Connection, tournament: int, tries: int = 3) -> dict[str, Any]:
    """The whole table, fetched in pages of 100 (`standings_page`) until `total`, as one
    standings message. The pages of one table share a `version`: when the standings move
    while paging, it pages again (`tries` times at most, then says so on stderr)."""
    versions: set[Any] = set()
    for _ in range(tries):
        rows: list[dict[str, Any]] = []
        versions = set()
        first: dict[str, Any] | None = None
        offset = 0
        while True:
            page = await conn.call(
                "standings_page", tournament=tournament, offset=offset, limit=100
            )
            first = first or page
            versions.add(page.get("version"))
            rows.extend(page["rows"])
            offset += 100
            total = page.get("total")
            if len(page["rows"]) < 100 or (isinstance(total, int) and offset >= total):
                break
        assert first is not None  # the loop ran at least once
        msg = {k: v for k, v in first.items() if k not in ("re", "offset", "limit")}
        msg.update(rows=rows, version=page.get("version"), final=page.get("final"))
        if len(versions) == 1:
            return msg
    print(
        f"note: the standings changed while paging (versions {sorted(map(str, versions))})",
        file=sys.stderr,
    )
    return msg


async def _follow(
    conn: Connection, msg: dict[str, Any], out: TextIO, me: str | None, game: str | None
) -> int:
    """Redraw the table in place on every push, and every second with the running clocks
    advanced (render.RunningClock), until the tournament closes."""
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console(file=out)
    clock = render.RunningClock()
    clock.seen(msg)

    def table(extra: str = "") -> Text:
        return Text(standings_table(msg, me, game, clock.elapsed_ms(msg)) + extra)

    with Live(table(), console=console, auto_refresh=False) as live:
        while True:
            try:
                push = await asyncio.wait_for(conn.pushes.get(), timeout=1.0)
            except TimeoutError:
                live.update(table(), refresh=True)
                continue
            if push.get("tournament") != msg["tournament"]:
                continue
            if push["type"] == "standings":
                msg = push
                clock.seen(msg)
                live.update(table(), refresh=True)
            elif push["type"] == "closed":
                live.update(table(f"\nclosed; seed {push['seed']}"), refresh=True)
                return 0


async def _follow_json(conn: Connection, msg: dict[str, Any], out: TextIO) -> int:
    """One JSON line per message (the window, each push, the close) until the close."""
    print(json.dumps(msg), file=out, flush=True)
    while True:
        push = await conn.pushes.get()
        if push.get("tournament") != msg["tournament"]:
            continue
        print(json.dumps(push), file=out, flush=True)
        if push["type"] == "closed":
            return 0


async def record(args: argparse.Namespace, out: TextIO) -> int:
    async with maybe_authed(args) as conn:
        rec = (await conn.call("record", tournament=args.id, player=args.player))["record"]
    write_json(rec, args.output, out)
    receipt = config.receipt_for(args.server, args.player, args.id)
    if receipt is None:
        if _is_me(args.server, args.player):
            print(
                f"receipt: none kept for {_whose(args.server, args.player)} log in "
                f"tournament {args.id}",
                file=sys.stderr,
            )
        return 0
    return 0 if receipt_holds(args.server, receipt, rec, "record") else 1


async def bundle(args: argparse.Namespace, out: TextIO) -> int:
    url = http_url(args.server, f"/tournaments/{args.id}/bundle.json")
    try:
        body = await asyncio.to_thread(_get, url)
    except urllib.error.HTTPError as exc:
        why = "no such tournament, or not closed yet" if exc.code == 404 else "refused"
        raise CliError(f"{url}: HTTP {exc.code} ({why})") from None
    except urllib.error.URLError as exc:
        reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(exc.reason)
        raise CliError(failure(url, reason)) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise CliError(f"{url}: the answer is not JSON (not a samedeal server?)") from None
    write_json(data, args.output, out)
    ok = True
    receipts = sorted(
        config.receipts_in(args.server, args.id), key=lambda r: not _is_me(args.server, r.player)
    )
    for receipt in receipts:
        rec = record_of_player(data, receipt.player) if isinstance(data, dict) else None
        ok = receipt_holds(args.server, receipt, rec, "bundle") and ok
    saved = config.token_for(args.server)
    if not receipts and saved and isinstance(data, dict) and record_of_player(data, saved[0]):
        print(f"receipt: none kept for your log in tournament {args.id}", file=sys.stderr)
    return 0 if ok else 1


def _is_me(server: str, player: str) -> bool:
    saved = config.token_for(server)
    return saved is not None and name_key(saved[0]) == name_key(player)


def _whose(server: str, player: str) -> str:
    return "your" if _is_me(server, player) else f"{player}'s"


def receipt_holds(server: str, receipt: config.Receipt, rec: Any, where: str) -> bool:
    """Say on stderr, in one line, whether the log acknowledged by `receipt` is in the
    published record `rec` (None: the bundle has no record of that player), unchanged."""
    whose = _whose(server, receipt.player)
    if rec is None:
        why: str | None = f"the {where} has no record of {receipt.player!r}"
    elif not isinstance(rec, dict):
        why = f"the {where} holds no readable record of {receipt.player!r}"
    else:
        why = check_receipt(rec, receipt.seq, receipt.log_hash)
    if why is None:
        print(
            f"receipt: {whose} log up to seq {receipt.seq} is in the {where}, unchanged",
            file=sys.stderr,
        )
        return True
    print(
        f"receipt: DIFFERS: {whose} log acknowledged at seq {receipt.seq} "
        f"({receipt.seq}:{receipt.log_hash}) is not in the {where} unchanged: {why}",
        file=sys.stderr,
    )
    return False


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        body: bytes = r.read()
        return body


async def create(args: argparse.Namespace, out: TextIO) -> int:
    try:
        msg = create_message(args)
    except ValueError as exc:
        raise CliError(str(exc), code=2) from None
    async with authed(args) as conn:
        t = (await conn.call("create_tournament", **msg))["tournament"]
    write_json(t, None, out)
    return 0


async def close(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        t = (await conn.call("close_tournament", tournament=args.id))["tournament"]
    write_json(t, None, out)
    return 0


async def bot(args: argparse.Namespace, out: TextIO) -> int:
    if not 1 <= args.players <= 10_000 or args.think_ms < 0:
        raise CliError("--players is 1 to 10000 and --think-ms 0 or more", code=2)
    async with Connection(args.server, retries=CLI_RETRIES) as conn:  # reachable? open?
        listed = {t["id"]: t for t in (await conn.call("tournaments"))["items"]}
    t = listed.get(args.tournament)
    if t is None or t["status"] != "open":
        state = "no such tournament" if t is None else f"it is {t['status']}"
        raise CliError(f"bots cannot play tournament {args.tournament}: {state}")
    results = await run_bots(
        args.server,
        args.tournament,
        args.players,
        args.strategy,
        args.think_ms,
        receipts=config.ReceiptBook(),
    )
    for r in results:
        print(
            f"{r.name:<20} {r.status:<10} actions {r.actions:>4} errors {r.errors} "
            f"progress {json.dumps(r.progress)}",
            file=out,
        )
    return 0 if all(not r.status.startswith("error") for r in results) else 1


async def _can_play(args: argparse.Namespace) -> str:
    """The saved token, once the server accepted it and the tournament let it in (join):
    every reason it cannot be played is one line before the full screen opens."""
    async with authed(args) as conn:
        await conn.call("join", tournament=args.id)
        assert conn.token is not None  # authed signed in
        return conn.token


def play(args: argparse.Namespace, out: TextIO) -> int:
    from client_cli.tui.app import PlayApp

    token = run_command(_can_play(args), args.server)
    if not isinstance(token, str):
        return token
    receipts = config.ReceiptBook()
    app = PlayApp(args.server, token, args.id, receipts=receipts)
    try:
        app.run()
    finally:
        receipts.flush(final=True)
    if app.failure:
        print(f"samedeal: {app.failure}", file=sys.stderr)
        return 1
    return 0


T = TypeVar("T")

ASYNC_COMMANDS = {
    "register": register,
    "tournaments": tournaments,
    "standings": standings,
    "record": record,
    "bundle": bundle,
    "create": create,
    "close": close,
    "bot": bot,
    "leaderboard": ratings.leaderboard,
    "player": ratings.player,
    **fairplay.COMMANDS,  # disqualify, fairplay
    "schedule": schedule_cmd.run,  # series (v1.3) hook
}


def dispatch(args: argparse.Namespace, out: TextIO) -> int:
    result = run_command(ASYNC_COMMANDS[args.command](args, out), args.server)
    return result if isinstance(result, int) else 1


def run_command(command: Coroutine[Any, Any, T], server: str) -> T | int:
    """Run a command; every way it can fail is one line on stderr and an exit status."""
    try:
        return asyncio.run(command)
    except CliError as exc:
        print(f"samedeal: {exc}", file=sys.stderr)
        return exc.code
    except ServerError as exc:
        print(f"samedeal: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, ConnectionError, TimeoutError, WebSocketException) as exc:
        print(f"samedeal: {failure(server, exc)}", file=sys.stderr)
        return 1
