"""samedeal-server: runs one command of server/cli/ (registry.py lists them), any failure
one line on stderr."""

from __future__ import annotations

import logging
import os
import sys

from server.cli.common import Database, fail, say
from server.cli.registry import build_parser
from server.i18n import terminal
from server.i18n.terminal import said_error, t
from server.store import db


def main(argv: list[str] | None = None) -> int:
    """Run one command. Whatever fails says so in one line on stderr, never a traceback
    (SAMEDEAL_DEBUG=1 shows the traceback of an unexpected error)."""
    words = sys.argv[1:] if argv is None else argv
    terminal.choose(terminal.option_in(words))  # before the parser: its help is in it too
    terminal.install_argparse()
    args = build_parser().parse_args(words)
    serving = args.command == "serve"
    logging.basicConfig(
        level=logging.INFO if serving else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)  # not a line per connection
    access = getattr(args, "access_log", False)  # per request and connection: off by default
    logging.getLogger("samedeal.access").setLevel(logging.INFO if access else logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # not a line per migration step
    given = db.database_url(getattr(args, "database_url", None))
    try:
        url = db.check_url(given)
        if args.verbose:
            opens = say("server.database.opens", database=db.describe(url, given))
            print(f"samedeal-server: {opens}", file=sys.stderr)
        code: int = args.run(args, Database(url, given))
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # standard output's reader left (`| head`): not a failure
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except db.BadDatabaseUrl as exc:
        return fail(said_error(exc), 2)
    except KeyboardInterrupt:
        return fail(t("cli.interrupted"), 130)
    except Exception as exc:
        if os.environ.get("SAMEDEAL_DEBUG"):
            raise
        return fail(_unexpected(exc, url if "url" in locals() else given), 1)


def _unexpected(exc: BaseException, url: str) -> str:
    """One line for an error nothing else caught: a database's own, or a bug."""
    module = type(exc).__module__.split(".")[0]
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    if module in ("sqlalchemy", "asyncpg", "sqlite3", "aiosqlite", "alembic"):
        return t("server.database_failed", database=db.describe(url, url), why=first)
    return t("cli.unexpected", where=f"{type(exc).__name__}: {first}")


if __name__ == "__main__":
    sys.exit(main())
