"""What every command group of samedeal-server shares: the one-line parser, usage
errors, the one-line failure, the database URL flag, and opening the store."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from server import i18n
from server.competition.beacon_policy import BeaconConfig
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.i18n import terminal
from server.i18n.terminal import OneLineParser, t
from server.store import db
from server.store.repository import Store

Subparsers = argparse._SubParsersAction  # what `add_parser(sub)` receives


class UsageError(Exception):
    """A bad command-line value: one line, exit status 2."""


@dataclass(frozen=True, slots=True)
class Database:
    """The database a command works on: `url` checked, `given` as the user gave it
    (for messages: db.describe)."""

    url: str
    given: str


Run = Callable[[argparse.Namespace, Database], int]


def command(sub: Subparsers[Any], name: str, run: Run, **kwargs: Any) -> OneLineParser:
    """A subcommand that runs `run`, taking --database-url after its name too."""
    p: OneLineParser = sub.add_parser(name, **kwargs)
    p.set_defaults(run=run)
    database_flag(p)
    return p


def subcommands(p: argparse.ArgumentParser, dest: str) -> Subparsers[Any]:
    """A command's own subcommands (`admin grant`, `tournament create`, ...)."""
    return p.add_subparsers(dest=dest, required=True, parser_class=OneLineParser)


def database_flag(p: argparse.ArgumentParser) -> None:
    """--database-url and -v/--verbose after a subcommand's name too (the top-level ones
    are the defaults)."""
    p.add_argument("--database-url", default=argparse.SUPPRESS, help=t("server.url_help"))
    verbose_flag(p, argparse.SUPPRESS)


def verbose_flag(p: argparse.ArgumentParser, default: object) -> None:
    """-v/--verbose: one line on stderr saying which database the command opens."""
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default,
        help=t("server.verbose_help"),
    )


def fail(message: str, code: int) -> int:
    """Say what failed in one line on stderr; the exit status."""
    print(f"samedeal-server: {message}", file=sys.stderr)
    return code


def refusal(exc: CompetitionError) -> str:
    """A refusal in one line: in English the code and the competition's own message, in
    another language the catalogue's sentence for its reason (docs/I18N.md)."""
    if terminal.lang() == i18n.ENGLISH:
        return f"{exc.code}: {exc.message}"
    return terminal.error_text({"reason": exc.reason, "params": exc.params, "message": exc.message})


def unreachable(url: str) -> int | None:
    """For the commands on the database (not serve, which waits): a database that does
    not answer at once is one line and exit status 1; None when it answers."""
    try:
        db.wait_reachable(url, 0)
    except ConnectionError as exc:
        return fail(terminal.said_error(exc), 1)
    return None


def missing(database: Database) -> int | None:
    """For the operator's commands (not serve or migrate, which create it): a SQLite file
    that does not exist is one line naming the file looked for, and exit status 1 (an
    operator in the wrong folder gets that, not a new empty database); None when it
    exists (PostgreSQL databases are never created by connecting)."""
    parsed = make_url(database.url)
    if parsed.get_backend_name() != "sqlite" or Path(parsed.database or "").is_file():
        return None
    return fail(
        say("server.database.missing", database=db.describe(database.url, database.given)), 1
    )


def language() -> str:
    """The command line's language (server/i18n/terminal.py: --lang, else the environment)."""
    return terminal.lang()


def emit(item: dict[str, Any], as_json: bool, words: Callable[[str, dict[str, Any]], str]) -> None:
    """One object on standard output: a JSON line (UTF-8, not escaped) with --json, else
    `words(language, item)`."""
    print(json.dumps(item, ensure_ascii=False) if as_json else words(language(), item))


def say(key: str, **params: object) -> str:
    """A catalogue's text in the command line's language (docs/I18N.md: --lang, LC_ALL,
    LC_MESSAGES, LANG, else English; server/i18n/terminal.py)."""
    return t(key, **params)


def on_competition(
    database: Database,
    work: Callable[[Competition], Awaitable[int]],
    beacons: BeaconConfig | None = None,
) -> int:
    """Run `work` on the competition over the database (its beacon networks `beacons`,
    else the built-in ones), without its clock (only servers run that): a database that
    does not exist or does not answer at once, or a refusal (CompetitionError), is one
    line and exit status 1."""
    return (
        missing(database)
        or unreachable(database.url)
        or asyncio.run(_on_competition(database.url, work, beacons))
    )


async def _on_competition(
    url: str, work: Callable[[Competition], Awaitable[int]], beacons: BeaconConfig | None
) -> int:
    store = await Store.open(url)
    try:
        return await work(Competition.build(store, beacon_config=beacons))
    except CompetitionError as exc:
        return fail(refusal(exc), 1)
    finally:
        await store.close()
