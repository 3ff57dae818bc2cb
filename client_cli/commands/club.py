"""`samedeal club create|join|list|show|leave|invite|leader|kick|hand-over`: clubs over the
protocol (PROTOCOL.md v1.4 "Clubs"). `list` and `show` are public (signed in when a token
is saved: then the role and, for leaders, the code show); the others need the saved
token. Words through the catalogues; `--json` gives the protocol's CLUB (or the list)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from client_cli.commands.common import (
    Subparsers,
    authed,
    command,
    maybe_authed,
    run_async,
    write_json,
)
from server.i18n.terminal import local, t, tn

PAGE = 100


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "club", run, help=t("cli.club.help"), description=t("cli.club.description"))
    verbs = p.add_subparsers(dest="club_command", required=True)
    made = verbs.add_parser("create", help=t("cli.club.create_help"))
    made.add_argument("name", help=t("cli.club.name_help"))
    made.add_argument("--description", default=None, help=t("cli.club.description_help"))
    joined = verbs.add_parser("join", help=t("cli.club.join_help"))
    joined.add_argument("code", help=t("cli.club.code_help"))
    listed = verbs.add_parser("list", help=t("cli.club.list_help"))
    listed.add_argument("--mine", action="store_true", help=t("cli.club.mine_help"))
    shown = verbs.add_parser("show", help=t("cli.club.show_help"))
    shown.add_argument("id", type=int, help=t("cli.club.id_help"))
    for page in (listed, shown):
        page.add_argument("--offset", type=int, default=0, help=t("cli.club.offset_help"))
        page.add_argument("--limit", type=int, default=PAGE, help=t("cli.club.limit_help"))
    left = verbs.add_parser("leave", help=t("cli.club.leave_help"))
    invite = verbs.add_parser("invite", help=t("cli.club.invite_help"))
    leader = verbs.add_parser("leader", help=t("cli.club.leader_help"))
    leader.add_argument("--off", action="store_true", help=t("cli.club.leader_off_help"))
    kick = verbs.add_parser("kick", help=t("cli.club.kick_help"))
    handover = verbs.add_parser("hand-over", help=t("cli.club.hand_over_help"))
    for verb in (left, invite, leader, kick, handover):
        verb.add_argument("id", type=int, help=t("cli.club.id_help"))
    for verb in (leader, kick, handover):
        verb.add_argument("player", help=t("cli.club.player_help"))
    for verb in (made, joined, listed, shown, left, invite, leader, kick, handover):
        verb.add_argument("--json", action="store_true", help=t("cli.club.json_help"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(club(args, out), args.server)


def request(args: argparse.Namespace) -> dict[str, Any]:
    """The protocol message of a verb that changes something."""
    verb = args.club_command
    if verb == "create":
        msg: dict[str, Any] = {"type": "create_club", "name": args.name}
        if args.description is not None:
            msg["description"] = args.description
        return msg
    if verb == "join":
        return {"type": "join_club", "code": args.code}
    kinds = {"leave": "leave_club", "invite": "new_invite", "leader": "set_leader"}
    kinds |= {"kick": "kick_member", "hand-over": "set_owner"}
    msg = {"type": kinds[verb], "club": args.id}
    if verb in ("leader", "kick", "hand-over"):
        msg["player"] = args.player
    if verb == "leader":
        msg["leader"] = not args.off
    return msg


async def club(args: argparse.Namespace, out: TextIO) -> int:
    verb = args.club_command
    if verb in ("list", "show"):
        async with maybe_authed(args) as conn:
            if verb == "list":
                fields = {"offset": args.offset, "limit": args.limit, "mine": args.mine}
                listed = await conn.call("clubs", **fields)
            else:
                fields = {"club": args.id, "offset": args.offset, "limit": args.limit}
                shown = (await conn.call("club", **fields))["club"]
        if verb == "list":
            return _write(listed, args, out, list_lines(listed, args.offset))
        return _write(shown, args, out, club_lines(shown, args.offset))
    async with authed(args) as conn:
        c = (await conn.request(request(args)))["club"]
    return _write(c, args, out, club_lines(c, 0, said=verb))


def _write(data: Any, args: argparse.Namespace, out: TextIO, lines: list[str]) -> int:
    if args.json:
        write_json(data, None, out)
    else:
        print("\n".join(lines), file=out)
    return 0


def _role(role: str | None) -> str:
    return t(f"cli.club.role.{role}") if role in ("owner", "leader", "member") else ""


def list_lines(listed: dict[str, Any], offset: int) -> list[str]:
    """The `clubs` reply: one line a club, then how many of how many."""
    lines = []
    for c in listed["items"]:
        owner = c["owner"] or t("cli.club.no_owner")
        role = _role(c.get("role"))
        members = tn("cli.club.members", c["members"])
        line = f"{c['id']:>4}  {c['name']:<32} {members:<14} {owner}"
        lines.append(f"{line}  ({role})" if role else line)
    total, shown = listed["total"], len(listed["items"])
    lines.append(
        t("cli.club.range", first=offset + 1 if shown else 0, last=offset + shown, total=total)
    )
    return lines


def club_lines(c: dict[str, Any], offset: int, said: str | None = None) -> list[str]:
    """A CLUB in words: what was done (`said`, the verb), the club, its code for its
    leaders, its description and the members shown (with their roles)."""
    lines = [t(f"cli.club.done.{said.replace('-', '_')}", name=c["name"])] if said else []
    role = _role(c.get("role"))
    head = t("cli.club.head", id=c["id"], name=c["name"])
    lines.append(f"{head} ({t('cli.club.you', role=role)})" if role else head)
    facts = [t("cli.club.owner", name=c["owner"]) if c["owner"] else t("cli.club.no_owner")]
    if c["leaders"]:
        facts.append(t("cli.club.leaders", names=", ".join(c["leaders"])))
    facts.append(tn("cli.club.members", c["members"]))
    facts.append(t("cli.club.since", when=local(c["created_at"], today=False)))
    lines.append(" · ".join(facts))
    if c.get("invite"):
        lines.append(t("cli.club.code", code=c["invite"], id=c["id"]))
    if c["description"]:
        lines.append(c["description"])
    names = c.get("member_names")
    if names is not None:
        owner, leaders = c["owner"], set(c["leaders"])
        for name in names:
            mark = "owner" if name == owner else "leader" if name in leaders else None
            lines.append(f"  {name}" + (f" ({_role(mark)})" if mark else ""))
        last = offset + len(names)
        lines.append(
            t("cli.club.range", first=offset + 1 if names else 0, last=last, total=c["members"])
        )
    return lines
