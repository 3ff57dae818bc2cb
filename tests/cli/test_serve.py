"""server/cli/serve.py: what `serve` refuses before it opens the database, each one line
(serving itself: tests/e2e/test_process.py and the rest of tests/e2e)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.__main__ import main
from server.cli.common import UsageError
from server.cli.registry import build_parser
from server.cli.serve import _serve_limits, port_number
from server.i18n import terminal


def serve(capsys: pytest.CaptureFixture[str], url: str, *argv: str) -> tuple[int, str]:
    code = main(["--database-url", url, "serve", *argv])
    return code, capsys.readouterr().err


def said_in(capsys: pytest.CaptureFixture[str], lang: str, *argv: str) -> tuple[int, str]:
    """`samedeal-server --lang LANG ARGV`: its status and stderr (English again after)."""
    try:
        code = main(["--lang", lang, *argv])
    finally:
        terminal.choose("en")
    return code, capsys.readouterr().err


@contextmanager
def port_taken() -> Iterator[int]:
    """A port something listens on while the block runs (nothing answers there after)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("--workers", "0"), "--workers is 1 or more"),
        (("--workers", "2"), "--workers N > 1 needs PostgreSQL"),
        (("--max-connections", "-1"), "--max-connections is 0 (no limit) or more"),
        (("--idle-timeout", "nan"), "--idle-timeout is 0 (none) or more seconds"),
        (("--trusted-proxy", "not-a-network"), "--trusted-proxy:"),
        (("--beacon-relay", "ftp://relay"), "is not an http(s) URL"),
        (("--public-origin", "play.example"), "--public-origin: an origin is http"),
        (("--public-origin", "https://play.example/app"), "--public-origin: an origin is a"),
        (("--max-sign-ins-per-minute", "-1"), "--max-sign-ins-per-minute is 0"),
    ],
)
def test_bad_flags_are_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], sqlite_url: str, argv: tuple[str, ...], says: str
) -> None:
    code, err = serve(capsys, sqlite_url, "--port", "0", *argv)
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_a_port_in_use_is_said_before_the_database_is_opened(
    capsys: pytest.CaptureFixture[str], sqlite_url: str
) -> None:
    with port_taken() as port:
        code, err = serve(capsys, sqlite_url, "--port", str(port))
    assert code == 1 and "the port is in use" in err


def test_the_port_is_checked_by_the_parser() -> None:
    assert port_number("0") == 0 and port_number("65535") == 65535
    for text in ("-1", "65536", "http"):
        with pytest.raises(Exception, match="a port is"):
            port_number(text)


def test_the_limits_the_flags_ask_for() -> None:
    args = build_parser().parse_args(
        ["serve", "--max-connections", "7", "--idle-timeout", "3", "--allowed-origin", "https://a"]
    )
    limits = _serve_limits(args)
    assert limits.max_connections == 7 and limits.idle_timeout == 3.0
    assert limits.allowed_origins == frozenset({"https://a"})
    args.max_registrations_per_minute = -1
    with pytest.raises(UsageError, match="--max-registrations-per-minute"):
        _serve_limits(args)


def test_the_passkey_flags() -> None:
    """v1.4: --public-origin is kept as an origin (lower case, no default port, no
    slash); --max-sign-ins-per-minute defaults to 60 (a classroom behind one address)."""
    args = build_parser().parse_args(["serve", "--public-origin", "HTTPS://Play.Example:443/"])
    args.max_sign_ins_per_minute = 60  # (the test run's environment lifts it to 0)
    limits = _serve_limits(args)
    assert limits.public_origin == "https://play.example"
    assert limits.max_sign_ins_per_minute == 60
    args = build_parser().parse_args(["serve", "--public-origin", "http://localhost:8000"])
    assert _serve_limits(args).public_origin == "http://localhost:8000"


@pytest.mark.parametrize(
    ("lang", "argv", "says"),
    [
        ("es", ("serve", "--port", "0", "--trusted-proxy", "not-a-network"), "ni una red IP"),
        ("pt-BR", ("serve", "--port", "0", "--public-origin", "play.example"), "uma origem é"),
        ("pt-PT", ("serve", "--port", "0", "--public-origin", "https://a.example/x"), "nada mais"),
        ("es", ("migrate",), "no es una URL de base de datos (por ejemplo sqlite"),
        ("es", ("serve", "--port", "0", "--beacon-relay", "ftp://x"), "no es una URL http(s)"),
    ],
)
def test_the_refusals_are_said_in_the_language(
    capsys: pytest.CaptureFixture[str], sqlite_url: str, lang: str, argv: tuple[str, ...], says: str
) -> None:
    """--trusted-proxy, --public-origin, --beacon-relay, --beacon-networks and a bad
    --database-url through the catalogue."""
    url = "not a url" if argv == ("migrate",) else sqlite_url
    code, err = said_in(capsys, lang, "--database-url", url, *argv)
    assert code == 2 and says in err and err.count("\n") == 1, err


def test_a_wrong_beacon_networks_file_is_said_in_the_language(
    capsys: pytest.CaptureFixture[str], sqlite_url: str, tmp_path: Path
) -> None:
    """The file's fault (a BeaconError's own sentence) is said in the language too."""
    networks = tmp_path / "networks.json"
    networks.write_text("[]")
    code, err = said_in(capsys, "pt-PT", "--database-url", sqlite_url, "serve", "--port", "0",
                        "--beacon-networks", str(networks))  # fmt: skip
    assert code == 2 and err.count("\n") == 1, err
    assert f"--beacon-networks {networks}: um ficheiro de redes tem de ser um objeto JSON" in err


def test_a_port_in_use_and_a_database_away_are_said_in_the_language(
    capsys: pytest.CaptureFixture[str], sqlite_url: str
) -> None:
    with port_taken() as port:
        busy, said_busy = said_in(capsys, "es", "--database-url", sqlite_url, "serve",
                                  "--port", str(port))  # fmt: skip
    dead = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/x"
    away, said_away = said_in(capsys, "pt-BR", "--database-url", dead, "migrate")
    assert busy == 1 and "el puerto está en uso (¿otro servidor?)" in said_busy
    assert away == 1 and "não foi possível conectar ao PostgreSQL em 127.0.0.1:" in said_away
