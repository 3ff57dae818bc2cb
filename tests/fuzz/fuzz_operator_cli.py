"""Fuzz target: the operator's command line (server/cli/registry.py), parsing only.

`build_parser().parse_args(argv)` on any argv, then, for `tournament create`,
`request_from` (server/domain/tournament_options.py: the options, dates and hours it
turns into a tournament request). No command runs: nothing touches a database. The
promise: argparse's SystemExit(2) (or 0 after printing help), or a ValueError with one
line, or a TournamentRequest; nothing else. The bytes pick the arguments (`argv_of`): a prefix (a
subcommand), then words of the command line and its tricky values, JSON texts and raw
text.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from datetime import UTC, datetime

from tests.fuzz.common import Reader, fuzz, instrumented, json_text

with instrumented(__name__ == "__main__", "argparse"):
    import argparse  # noqa: F401  (instrumented: argparse decides what request_from is given)

    from server.cli.registry import build_parser
    from server.domain.tournament_options import request_from

PREFIXES = [
    ["tournament", "create", "--name", "x"],
    ["tournament", "create"],
    ["tournament", "close"],
    ["tournament", "list"],
    ["tournament"],
    ["admin", "grant"],
    ["serve"],
    ["migrate"],
    [],
]
ARGS = [
    "--name", "--game", "--options", "--starts-at", "--ends-at", "--hours", "--time-limit-s",
    "--join-until", "--database-url", "--host", "--port", "--no-demo", "--help", "-h", "--",
    "gaps", "klondike", "tournament", "create", "close", "list", "admin", "grant", "serve",
    "migrate", "nan", "inf", "-inf", "1e308", "1e-308", "-1", "0", "7", "9" * 30,
    "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+01:00", "0001-01-01", "2026-11-30T18:00:00Z",
    "2026-11-30T19:00:00+01:00", "yesterday", "{}", '{"redeals": 2}',
    '{"draw": 3, "passes": 3}', "[1]", "=", "x",
]  # fmt: skip
JSON = 0xF0  # this byte: an --options-like JSON text follows (common.json_text)
PARSER = build_parser()
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


def argv_of(data: bytes) -> list[str]:
    """The first byte picks a prefix; then each byte below len(ARGS) is that word, JSON
    a JSON text built from the bytes after it, any other byte b the raw text of the
    next b - len(ARGS) bytes (decoded as Python decodes argv: surrogateescape)."""
    r = Reader(data)
    argv = list(PREFIXES[r.byte() % len(PREFIXES)])
    while r:
        b = r.byte()
        if b < len(ARGS):
            argv.append(ARGS[b])
        elif b == JSON:
            argv.append(json_text(r, ARGS))
        else:
            argv.append(r.take(b - len(ARGS)).decode("utf-8", "surrogateescape"))
    return argv


def encode(prefix: int, args: list[str]) -> bytes:
    out = bytes([prefix])
    for arg in args:
        raw = arg.encode()
        out += bytes([ARGS.index(arg)]) if arg in ARGS else bytes([len(ARGS) + len(raw)]) + raw
    return out


def one_input(data: bytes) -> None:
    if not data:
        return
    argv = argv_of(data)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            args = PARSER.parse_args(argv)
        except SystemExit as exc:
            assert exc.code == 2 or (exc.code == 0 and "usage:" in printed.getvalue()), exc
            return
    if args.command == "tournament" and args.tournament_command == "create":
        try:
            request_from(args, NOW)
        except ValueError as exc:
            assert "\n" not in str(exc), exc


def seeds() -> Iterator[bytes]:
    """The commands as the operator's tests and docs write them."""
    create = [
        ["--options", '{"redeals": 2}', "--starts-at", "2026-11-30T18:00:00Z", "--hours", "2"],
        ["--game", "klondike", "--options", '{"draw": 3, "passes": 3}', "--time-limit-s", "900"],
        ["--ends-at", "2026-11-30T19:00:00+01:00", "--join-until", "2026-11-30T18:30:00"],
        ["--options", "[1]"],
        ["--options", "{not json"],
        ["--starts-at", "yesterday"],
    ]
    for args in create:
        yield encode(0, args)
    yield encode(2, ["7"])
    yield encode(5, ["alice"])
    yield encode(6, ["--host", "0.0.0.0", "--port", "8765", "--no-demo"])
    yield encode(8, ["--database-url", "sqlite+aiosqlite:///x.db", "migrate"])
    yield encode(8, ["--help"])
    yield encode(0, ["--options"]) + bytes([JSON, 10, 2, 5, 1])


TOKENS = [chr(i) for i in range(len(ARGS))] + [chr(JSON), "\x00", "\xff", "="]

if __name__ == "__main__":
    fuzz(one_input)
