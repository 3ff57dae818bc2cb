"""`samedeal record ID PLAYER [-o FILE]` and `samedeal bundle ID [-o FILE]`: what a
closed tournament published, each checked against the receipts kept for it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import urllib.error
import urllib.request
from typing import Any, TextIO

from client_cli import config
from client_cli.commands.common import (
    CliError,
    Subparsers,
    command,
    http_url,
    maybe_authed,
    run_async,
    write_json,
)
from client_cli.connection import failure
from server.audit.receipts import check_receipt, record_of_player
from server.domain.names import name_key
from server.i18n.terminal import t


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(
        sub,
        "record",
        run,
        help=t("cli.record.help"),
        description=t("cli.record.description"),
    )
    p.add_argument("id", type=int, help=t("cli.tournament_id_help"))
    p.add_argument("player", help=t("server.admin.name_help"))
    p.add_argument("-o", "--output", help=t("cli.output_help"))
    p = command(
        sub,
        "bundle",
        run,
        help=t("cli.bundle.help"),
        description=t("cli.bundle.description"),
    )
    p.add_argument("id", type=int)
    p.add_argument("-o", "--output")


def run(args: argparse.Namespace, out: TextIO) -> int:
    work = record(args, out) if args.command == "record" else bundle(args, out)
    return run_async(work, args.server)


async def record(args: argparse.Namespace, out: TextIO) -> int:
    async with maybe_authed(args) as conn:
        rec = (await conn.call("record", tournament=args.id, player=args.player))["record"]
    write_json(rec, args.output, out)
    receipt = config.receipt_for(args.server, args.player, args.id)
    if receipt is None:
        if _is_me(args.server, args.player):
            print(t("cli.receipt.none_kept", id=args.id), file=sys.stderr)
        return 0
    return 0 if receipt_holds(args.server, receipt, rec, "record") else 1


async def bundle(args: argparse.Namespace, out: TextIO) -> int:
    url = http_url(args.server, f"/tournaments/{args.id}/bundle.json")
    try:
        body = await asyncio.to_thread(_get, url)
    except urllib.error.HTTPError as exc:
        why = t("cli.bundle.not_closed" if exc.code == 404 else "cli.bundle.refused")
        raise CliError(f"{url}: HTTP {exc.code} ({why})") from None
    except urllib.error.URLError as exc:
        reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(exc.reason)
        raise CliError(failure(url, reason)) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise CliError(t("cli.bundle.not_json", url=url)) from None
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
        print(t("cli.receipt.none_kept", id=args.id), file=sys.stderr)
    return 0 if ok else 1


def _is_me(server: str, player: str) -> bool:
    saved = config.token_for(server)
    return saved is not None and name_key(saved[0]) == name_key(player)


def receipt_holds(server: str, receipt: config.Receipt, rec: Any, where: str) -> bool:
    """Say on stderr, in one line, whether the log acknowledged by `receipt` is in the
    published record `rec` (None: the bundle has no record of that player), unchanged
    (`where`: "record" or "bundle"; the words in the chosen language)."""
    whose = "mine" if _is_me(server, receipt.player) else "other"
    said = {"player": receipt.player, "seq": receipt.seq}
    if rec is None:
        why: str | None = t(f"cli.receipt.{where}_has_none", name=repr(receipt.player))
    elif not isinstance(rec, dict):
        why = t(f"cli.receipt.{where}_unreadable", name=repr(receipt.player))
    else:
        why = check_receipt(rec, receipt.seq, receipt.log_hash)
    if why is None:
        print(t(f"cli.receipt.holds_{whose}_{where}", **said), file=sys.stderr)
        return True
    digest = f"{receipt.seq}:{receipt.log_hash}"
    line = t(f"cli.receipt.differs_{whose}_{where}", **said, receipt=digest, why=why)
    print(line, file=sys.stderr)
    return False


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as r:
        body: bytes = r.read()
        return body
