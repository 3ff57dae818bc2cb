"""`samedeal standings ID [--follow | --all] [--json] [--top N] [--around K]`: a
tournament's standings once, live, or the whole table page by page."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import (
    CliError,
    Subparsers,
    command,
    maybe_authed,
    run_async,
    write_json,
)
from client_cli.connection import Connection, ServerError
from client_cli.tui import render
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "standings",
        run,
        help=t("cli.standings.help"),
        description=t("cli.standings.description"),
    )
    p.add_argument("id", type=int, help=t("cli.tournament_id_help"))
    how = p.add_mutually_exclusive_group()
    how.add_argument("--follow", action="store_true", help=t("cli.standings.follow_help"))
    how.add_argument("--all", action="store_true", help=t("cli.standings.all_help"))
    p.add_argument("--json", action="store_true", help=t("cli.standings.json_help"))
    p.add_argument("--top", type=int, metavar="N", help=t("cli.standings.top_help"))
    p.add_argument("--around", type=int, metavar="K", help=t("cli.standings.around_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(standings(args, out), args.server)


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
    print(t("cli.standings.moved", versions=", ".join(sorted(map(str, versions)))), file=sys.stderr)
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
