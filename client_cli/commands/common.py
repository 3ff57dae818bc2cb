"""What the commands of `samedeal` share: the one-line parser, the command's error
(CliError), signing in with the saved token, writing JSON, and running a command so
that every way it fails is one line on stderr and an exit status."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import select
import sys
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any, TextIO, TypeVar

from websockets.exceptions import WebSocketException

from client_cli import config
from client_cli.connection import Connection, ServerError, failure, server_error_line
from client_cli.verify import read_networks
from server.audit.drand import BeaconError, network_named
from server.audit.untrusted import Unreadable
from server.i18n.terminal import t

Subparsers = argparse._SubParsersAction  # what `add_parser(sub)` receives
Run = Callable[[argparse.Namespace, TextIO], int]


def command(sub: Subparsers[Any], name: str, run: Run, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand that `run` runs (the registry calls `args.run(args, out)`)."""
    p: argparse.ArgumentParser = sub.add_parser(name, **kwargs)
    p.set_defaults(run=run)
    return p


CLI_RETRIES = 2  # a one-shot command says "cannot connect" within a second


class CliError(Exception):
    """What went wrong, in one line for the user; `code` is the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def no_token(server: str) -> CliError:
    return CliError(t("cli.no_token", server=server))


async def sign_in(conn: Connection, token: str, server: str) -> None:
    """Authenticate an open connection with the saved token (and again after reconnects)."""
    try:
        reply = await conn.request({"type": "auth", "token": token}, reconnect=False)
    except ServerError as exc:
        if exc.code != "unauthorized":
            raise
        raise CliError(t("cli.token_refused", server=server, path=config.tokens_path())) from None
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
                print(t("cli.anonymous", why=exc), file=sys.stderr)
        yield conn


def http_url(ws_url: str, path: str) -> str:
    base = ws_url.replace("wss://", "https://").replace("ws://", "http://")
    return base.rsplit("/ws", 1)[0] + path


def write_json(data: Any, target: str | None, out: TextIO) -> None:
    """`data` as JSON into the file `target`, or onto `out` when there is none or it is
    `-` (standard output, as for most command-line tools)."""
    text = json.dumps(data, indent=1, ensure_ascii=False)  # UTF-8, accents as they are
    if target and target != "-":
        try:
            Path(target).write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(t("cli.cannot_write", path=target, why=exc.strerror or exc)) from None
        print(t("cli.written", path=target), file=out)
    else:
        print(text, file=out)


T = TypeVar("T")


def run_async(work: Coroutine[Any, Any, int], server: str) -> int:
    """`run_command` for a command's whole work: its exit status."""
    result = run_command(work, server)
    return result if isinstance(result, int) else 1


def run_command(work: Coroutine[Any, Any, T], server: str) -> T | int:
    """Run a command; every way it can fail is one line on stderr and an exit status."""
    try:
        return asyncio.run(work)
    except CliError as exc:
        print(f"samedeal: {exc}", file=sys.stderr)
        return exc.code
    except ServerError as exc:
        print(f"samedeal: {server_error_line(exc)}", file=sys.stderr)
        return 1
    except BrokenPipeError as exc:
        if stdout_closed():
            raise  # the reader of our output is gone (`| head`): main ends quietly
        print(f"samedeal: {failure(server, exc)}", file=sys.stderr)
        return 1
    except (OSError, ConnectionError, TimeoutError, WebSocketException) as exc:
        print(f"samedeal: {failure(server, exc)}", file=sys.stderr)
        return 1


def stdout_closed() -> bool:
    """Whether standard output is a pipe nobody reads any more (its reader exited, as
    `head` does after its lines): the write end then polls as an error."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def known_beacon(name: str | None, networks_file: str | None) -> dict[str, str] | None:
    """The `beacon` option --beacon NETWORK asks for: a built-in network or one of the
    --beacon-networks file's (the server refuses one it does not know, too); ValueError
    in one line otherwise."""
    if name is None:
        return None
    try:
        return {"network": network_named(name, read_networks(networks_file)).name}
    except (Unreadable, BeaconError) as exc:  # (its Said kept, to be said in the language)
        raise ValueError(exc.args[0] if len(exc.args) == 1 else str(exc)) from None
