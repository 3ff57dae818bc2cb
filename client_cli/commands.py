"""The subcommands of `samedeal`: each is one async function over the protocol."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from client_cli import config, schedule_cmd
from client_cli.bots import run_bots
from client_cli.connection import Connection, ServerError
from server.audit.receipts import check_receipt, record_of_player


def saved_token(args: argparse.Namespace) -> str:
    """The token `register` saved for this server; exits with advice when there is none."""
    saved = config.token_for(args.server)
    if saved is None:
        raise SystemExit(f"no saved token for {args.server}: run `samedeal register NAME` first")
    return saved[1]


def authed(args: argparse.Namespace) -> Connection:
    """A connection that authenticates with the saved token for this server."""
    return Connection(args.server, token=saved_token(args))


def maybe_authed(args: argparse.Namespace) -> Connection:
    """A connection with the saved token when there is one, else anonymous (for the public
    messages: standings, records)."""
    saved = config.token_for(args.server)
    return Connection(args.server, token=saved[1] if saved else None)


def http_url(ws_url: str, path: str) -> str:
    base = ws_url.replace("wss://", "https://").replace("ws://", "http://")
    return base.rsplit("/ws", 1)[0] + path


def write_json(data: Any, target: str | None, out: TextIO) -> None:
    text = json.dumps(data, indent=1)
    if target:
        Path(target).write_text(text + "\n", encoding="utf-8")
        print(f"written: {target}", file=out)
    else:
        print(text, file=out)


async def register(args: argparse.Namespace, out: TextIO) -> int:
    async with Connection(args.server) as conn:
        reply = await conn.call("register", name=args.name)
    path = config.save_token(args.server, reply["player"]["name"], reply["token"])
    print(
        f"registered {reply['player']['name']} (id {reply['player']['id']}); token saved in {path}",
        file=out,
    )
    return 0


async def tournaments(args: argparse.Namespace, out: TextIO) -> int:
    async with authed(args) as conn:
        items = (await conn.call("tournaments"))["items"]
    if args.json:
        write_json(items, None, out)
        return 0
    print(f"{'id':>4}  {'name':<24} {'game':<9} {'status':<9} {'entrants':>8}  ends_at", file=out)
    for t in items:
        print(
            f"{t['id']:>4}  {t['name'][:24]:<24} {t['game']:<9} {t['status']:<9} "
            f"{t['entrants']:>8}  {t['ends_at']}",
            file=out,
        )
    return 0


def standings_table(msg: dict[str, Any], me: str | None = None) -> str:
    """A plain-text standings table (`…` where a window leaves rows out)."""
    from client_cli.tui.render import standings_lines

    head = f"tournament {msg['tournament']} — {'final' if msg['final'] else 'live'}"
    if isinstance(msg.get("total"), int):
        head += f" — {msg['total']} entrants"
    lines = standings_lines(msg["rows"], me, msg.get("gap_after"))
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
        if getattr(args, "all", False):
            msg = await all_standings(conn, args.id)
            if args.json:
                write_json(msg, None, out)
            else:
                print(standings_table(msg, me), file=out)
            return 0
        msg = await conn.call("subscribe", tournament=args.id, **window_fields(args))
        if args.json and not args.follow:
            write_json(msg, None, out)
            return 0
        if not args.follow:
            print(standings_table(msg, me), file=out)
            return 0
        if args.json:
            return await _follow_json(conn, msg, out)
        return await _follow(conn, msg, out, me)


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


async def _follow(conn: Connection, msg: dict[str, Any], out: TextIO, me: str | None) -> int:
    """Redraw the table in place on every push until the tournament closes."""
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console(file=out)
    with Live(Text(standings_table(msg, me)), console=console, auto_refresh=False) as live:
        while True:
            push = await conn.pushes.get()
            if push.get("tournament") != msg["tournament"]:
                continue
            if push["type"] == "standings":
                msg = push
                live.update(Text(standings_table(msg, me)), refresh=True)
            elif push["type"] == "closed":
                live.update(
                    Text(standings_table(msg, me) + f"\nclosed; seed {push['seed']}"),
                    refresh=True,
                )
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
        print(f"{url}: HTTP {exc.code} (not closed yet?)", file=sys.stderr)
        return 1
    data = json.loads(body)
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
    return saved is not None and saved[0].casefold() == player.casefold()


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
    starts = datetime.fromisoformat(args.starts_at) if args.starts_at else datetime.now(UTC)
    ends = (
        datetime.fromisoformat(args.ends_at)
        if args.ends_at
        else starts + timedelta(hours=args.hours)
    )
    msg: dict[str, Any] = {
        "name": args.name,
        "game": args.game,
        "options": json.loads(args.options),
        "ends_at": ends.isoformat(),
    }
    if args.starts_at:  # otherwise the server's own now
        msg["starts_at"] = starts.isoformat()
    if args.time_limit_s:
        msg["time_limit_s"] = args.time_limit_s
    if args.join_until:
        msg["join_until"] = args.join_until
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


def play(args: argparse.Namespace, out: TextIO) -> int:
    from client_cli.tui.app import PlayApp

    receipts = config.ReceiptBook()
    try:
        PlayApp(args.server, saved_token(args), args.id, receipts=receipts).run()
    finally:
        receipts.flush(final=True)
    return 0


ASYNC_COMMANDS = {
    "register": register,
    "tournaments": tournaments,
    "standings": standings,
    "record": record,
    "bundle": bundle,
    "create": create,
    "close": close,
    "bot": bot,
    "schedule": schedule_cmd.run,  # series (v1.3) hook
}


def dispatch(args: argparse.Namespace, out: TextIO) -> int:
    try:
        return asyncio.run(ASYNC_COMMANDS[args.command](args, out))
    except ServerError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except (OSError, ConnectionError) as exc:
        print(f"cannot reach {args.server}: {exc}", file=sys.stderr)
        return 1
