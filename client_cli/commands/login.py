"""`samedeal login` (v1.4 accounts): sign this terminal in to an account that exists
elsewhere, by linking it as a new device (PROTOCOL.md "Accounts", after RFC 8628) or, with
--token, by a token read from standard input (never from the command line, where other
users of the machine could read it)."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import io
import socket
import sys
from typing import Any, TextIO
from urllib.parse import quote, urlsplit

import segno

from client_cli import config
from client_cli.commands.common import Subparsers, command, run_async
from client_cli.connection import Connection, ServerError
from server.i18n import terminal
from server.i18n.terminal import Texts

# Every text a person reads here: the catalogue's `cli.login.*` (docs/I18N.md).
TEXTS = Texts(
    "cli.login",
    (
        "help",
        "description",
        "label_help",
        "token_help",
        "token_prompt",
        "replace_help",
        "kept",
        "show",
        "no_token",
        "expired",
        "gone",
        "saved",
    ),
)


def add_parser(sub: Subparsers[Any]) -> None:
    p = command(sub, "login", run, help=TEXTS["help"], description=TEXTS["description"])
    p.add_argument("--label", default=None, help=TEXTS["label_help"])
    p.add_argument("--token", action="store_true", help=TEXTS["token_help"])
    p.add_argument("--replace", action="store_true", help=TEXTS["replace_help"])


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_async(login(args, out), args.server)


def approval_url(server: str, code: str) -> str:
    """The browser page that approves `code` on this server (its account page)."""
    parts = urlsplit(server)
    scheme = "https" if parts.scheme == "wss" else "http"
    return f"{scheme}://{parts.netloc}/account?code={quote(code)}"


def qr_text(url: str) -> str:
    """The QR code of `url` drawn with block characters, for a terminal."""
    drawn = io.StringIO()
    segno.make(url, error="m").terminal(out=drawn, compact=True)
    return drawn.getvalue()


class LoginError(Exception):
    """Why no token was saved (one line), and the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


async def login(args: argparse.Namespace, out: TextIO) -> int:
    """Exit 0 with the token saved; 1 (one line on stderr) when none was, 2 for a token
    saved already (without --replace)."""
    try:
        return await _login(args, out)
    except LoginError as exc:
        print(f"samedeal: {exc}", file=sys.stderr)
        return exc.code


async def _login(args: argparse.Namespace, out: TextIO) -> int:
    kept = config.token_for(args.server)
    if kept is not None and not args.replace:
        path = config.tokens_path()
        text = TEXTS["kept"].format(name=kept[0], server=args.server, path=path)
        raise LoginError(text, code=2)
    async with Connection(args.server, retries=2) as conn:
        if args.token:
            reply = await _by_token(conn, _read_token())
        else:
            reply = await _by_link(conn, args.label or _default_label(), out)
    path = config.save_token(args.server, reply["player"]["name"], reply["token"])
    device = reply["device"]["label"] or reply["device"]["id"]
    print(TEXTS["saved"].format(name=reply["player"]["name"], device=device, path=path), file=out)
    return 0


def _read_token() -> str:
    """The token from standard input: at a terminal, after a short prompt on stderr and
    not echoed (getpass); piped, the first line, with no prompt."""
    if sys.stdin.isatty():
        return getpass.getpass(TEXTS["token_prompt"], stream=sys.stderr).strip()
    return sys.stdin.readline().strip()


async def _by_token(conn: Connection, token: str) -> dict[str, Any]:
    if not token:
        raise LoginError(TEXTS["no_token"])
    authed = await conn.call("auth", token=token)
    return {**authed, "token": token}


async def _by_link(conn: Connection, label: str, out: TextIO) -> dict[str, Any]:
    link = await conn.call("link_start", label=label)
    url = approval_url(conn.url, link["code"])
    print(qr_text(url), file=out)
    expires = terminal.local(link["expires_at"])
    print(TEXTS["show"].format(url=url, code=link["code"], expires=expires), file=out)
    out.flush()
    while True:
        await asyncio.sleep(link["interval_s"])
        try:
            return await conn.call("link_poll", poll=link["poll"])
        except ServerError as exc:
            if exc.code == "expired":
                raise LoginError(TEXTS["expired"]) from None
            if exc.code == "not_found":
                raise LoginError(TEXTS["gone"]) from None
            if exc.quota or exc.code not in ("authorization_pending", "rate_limited"):
                raise  # a quota is never polled again


def _default_label() -> str:
    return terminal.t("cli.login.device_label", host=socket.gethostname())[:64]
