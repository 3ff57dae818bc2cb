"""`samedeal leaderboard GAME` and `samedeal player NAME`: ratings in the terminal
(PROTOCOL.md `leaderboard` and `player`, public: no token needed)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from client_cli.commands.common import Subparsers, command, run_async
from client_cli.connection import Connection
from client_cli.tui import render
from server.i18n import terminal
from server.i18n.terminal import t, tn


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "leaderboard", run, help=t("cli.leaderboard.help"))
    p.add_argument("game", choices=["gaps", "klondike"])
    p.add_argument("--offset", type=int, default=0, help=t("cli.leaderboard.offset_help"))
    p.add_argument("--limit", type=int, default=20, help=t("cli.leaderboard.limit_help"))
    p.add_argument("--json", action="store_true", help=t("cli.json_help"))
    p = command(sub, "player", run, help=t("cli.player.help"))
    p.add_argument("name", help=t("server.admin.name_help"))
    p.add_argument("--json", action="store_true", help=t("cli.json_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    work = leaderboard(args, out) if args.command == "leaderboard" else player(args, out)
    return run_async(work, args.server)


COLUMNS = ("rating", "mu", "sigma", "rated")


def leaderboard_text(msg: dict[str, Any]) -> str:
    """The leaderboard as a plain table in the chosen language: rank, player, rating
    (μ − 3σ), μ, σ, tournaments; then a sentence saying what the figures mean."""
    lines = [tn("cli.leaderboard.title", msg["total"], game=msg["game"])]
    words = [t(f"cli.leaderboard.col.{c}") for c in COLUMNS]
    widths = [max(len(w), n) for w, n in zip(words, (7, 7, 6, 5), strict=True)]
    head = " ".join(f"{w:>{n}}" for w, n in zip(words, widths, strict=True))
    lines.append(f"{'#':>5}  {t('cli.leaderboard.col.player'):<32} {head}")
    provisional = "  " + t("cli.leaderboard.provisional")
    for r in msg["rows"]:
        figures = (f"{r['rating']:.2f}", f"{r['mu']:.2f}", f"{r['sigma']:.2f}", r["tournaments"])
        row = " ".join(f"{f:>{n}}" for f, n in zip(figures, widths, strict=True))
        lines.append(
            f"{r['rank']:>5}  {r['player']:<32} {row}" + (provisional if r["provisional"] else "")
        )
    if not msg["rows"]:
        lines.append("  " + t("cli.leaderboard.nobody"))
    lines.append(t("cli.leaderboard.explained"))
    return "\n".join(lines)


def player_text(msg: dict[str, Any]) -> str:
    """A player's page as text: ratings per game, streaks, recent results."""
    p = msg["player"]
    bot = " " + t("cli.player.bot") if p["bot"] else ""
    since = terminal.local(p["created_at"], today=False)
    lines = [f"{p['name']}{bot} — " + t("cli.player.registered", at=since)]
    if not msg["ratings"]:
        lines.append("  " + t("cli.player.bot_unrated" if p["bot"] else "cli.player.unrated"))
    for game, r in sorted(msg["ratings"].items()):
        figures = {k: f"{r[k]:.2f}" for k in ("rating", "mu", "sigma")}
        rated = tn(
            "cli.player.rating", r["tournaments"], game=f"{game:<9}", rank=r["rank"], **figures
        )
        lines.append("  " + rated + (t("cli.player.provisional") if r["provisional"] else ""))
    for game, n in sorted(msg["streak"].items()):
        lines.append("  " + tn("cli.player.streak", n, game=game))
    if msg["recent"]:
        lines.append(t("cli.player.recent"))
        col = {c: t(f"cli.player.col.{c}") for c in ("tournament", "game", "rank", "pct", "status")}
        lines.append(
            f"  {'id':>5} {col['tournament']:<24} {col['game']:<9} {col['rank']:>11} "
            f"{col['pct']:>6}  {col['status']}"
        )
        for r in msg["recent"]:
            rank = "–" if r["rank"] is None else f"{r['rank']}/{r['entrants']}"
            pct = "–" if r["percentile"] is None else f"{r['percentile']:.1f}"
            lines.append(
                f"  {r['tournament']:>5} {r['name'][:24]:<24} {r['game']:<9} {rank:>11} "
                f"{pct:>6}  {render.status_word(r['status'])}"
            )
    return "\n".join(lines)


async def leaderboard(args: argparse.Namespace, out: TextIO) -> int:
    async with Connection(args.server) as conn:
        msg = await conn.call("leaderboard", game=args.game, offset=args.offset, limit=args.limit)
    print(_json(msg) if args.json else leaderboard_text(msg), file=out)
    return 0


async def player(args: argparse.Namespace, out: TextIO) -> int:
    async with Connection(args.server) as conn:
        msg = await conn.call("player", name=args.name)
    print(_json(msg) if args.json else player_text(msg), file=out)
    return 0


def _json(msg: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in msg.items() if k != "re"}, indent=1)
