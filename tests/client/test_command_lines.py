"""Every command line entry point (`samedeal` and `samedeal-server` subcommands) with bad
input, as a user types it: a non-zero exit, exactly one line on stderr, no traceback, and
never the player's token in what it prints. And the first-contact spellings that must
work: the page's http:// address, no /ws, localhost for 127.0.0.1, no account to watch."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.support.processes import ServerProcess, free_port


@dataclass(frozen=True)
class World:
    """A real server process with one open and one closed tournament; a config home
    holding an admin's token, one holding a token this server never gave, one empty."""

    port: int
    tmp: Path
    token: str
    open_id: int
    closed_id: int
    homes: dict[str, Path]

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


def run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=90)


def client(world: World, *args: str, home: str = "admin") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(world.homes[home]), "SAMEDEAL_SERVER": world.ws}
    return run([sys.executable, "-m", "client_cli", *args], env, world.tmp)


def operator(world: World, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "SAMEDEAL_DATABASE_URL"}
    return run([sys.executable, "-m", "server", *args], {**base, **env}, world.tmp)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("first-contact")
    db = f"sqlite+aiosqlite:///{tmp / 'world.db'}"
    server = ServerProcess(db, tmp / "server.log", ("--no-demo",))
    homes = {name: tmp / name for name in ("admin", "stranger", "fresh")}
    try:
        env = {**os.environ, "SAMEDEAL_SERVER": f"http://127.0.0.1:{server.port}/"}
        done = run(
            [sys.executable, "-m", "client_cli", "register", "boss"],
            {**env, "XDG_CONFIG_HOME": str(homes["admin"])},
            tmp,
        )
        assert done.returncode == 0, done.stderr
        saved = json.loads((homes["admin"] / "samedeal" / "tokens.json").read_text())
        token = next(iter(saved.values()))["token"]
        stranger = homes["stranger"] / "samedeal"
        stranger.mkdir(parents=True)
        forged = {f"ws://localhost:{server.port}/ws": {"name": "boss", "token": "f" * 43}}
        (stranger / "tokens.json").write_text(json.dumps(forged))
        granted = run(
            [sys.executable, "-m", "server", "--database-url", db, "admin", "grant", "boss"],
            dict(os.environ),
            tmp,
        )
        assert granted.returncode == 0, granted.stderr
        world = World(server.port, tmp, token, 0, 0, homes)
        ids = []
        for name in ("Open Cup", "Closed Cup"):
            made = client(world, "create", "--json", "--name", name, "--hours", "2")
            assert made.returncode == 0, made.stderr
            ids.append(json.loads(made.stdout)["id"])
        assert client(world, "close", "--json", str(ids[1])).returncode == 0
        yield World(server.port, tmp, token, ids[0], ids[1], homes)
    finally:
        server.stop()


def listening_port() -> tuple[socket.socket, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


def client_cases(w: World) -> list[tuple[str, list[str], str, str]]:
    """(what, argv, config home, a word the one line must hold)."""
    dead = free_port()
    soon = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    return [
        ("no command", [], "admin", "required"),
        ("no id", ["play"], "admin", "required"),
        ("an id that is no number", ["play", "abc"], "admin", "invalid int"),
        ("an unknown command", ["frobnicate"], "admin", "invalid choice"),
        ("not a server address", ["--server", "ftp://x", "tournaments"], "admin", "ws://"),
        (
            "a port out of range",
            ["--server", "ws://127.0.0.1:99999", "tournaments"],
            "admin",
            "port",
        ),
        ("no host", ["--server", "http://", "tournaments"], "admin", "no host"),
        (
            "no host, in es",
            ["--lang", "es", "--server", "http://", "tournaments"],
            "admin",
            "falta el host",
        ),
        (
            "a dead port",
            ["--server", f"ws://127.0.0.1:{dead}/ws", "tournaments"],
            "admin",
            "cannot connect",
        ),
        (
            "a dead port, token needed",
            ["--server", f"127.0.0.1:{dead}", "close", "1"],
            "fresh",
            "cannot connect",
        ),
        (
            "not the /ws path",
            ["--server", f"http://127.0.0.1:{w.port}/nothere", "tournaments"],
            "admin",
            "HTTP 404",
        ),
        ("play: no token saved", ["play", str(w.open_id)], "fresh", "register"),
        (
            "play: a token the server never gave",
            ["play", str(w.open_id)],
            "stranger",
            "does not accept",
        ),
        ("play: a closed tournament", ["play", str(w.closed_id)], "admin", "closed"),
        ("play: no such tournament", ["play", "999"], "admin", "not_found"),
        (
            "create: options not JSON",
            ["create", "--json", "--name", "x", "--options", "{redeals: 2}"],
            "admin",
            "--options is not JSON",
        ),
        (
            "create: options not an object",
            ["create", "--json", "--name", "x", "--options", "[2]"],
            "admin",
            "object",
        ),
        (
            "create: bad options",
            ["create", "--json", "--name", "x", "--options", '{"redeals": 9}'],
            "admin",
            "bad_request",
        ),
        (
            "create: an unreadable start",
            ["create", "--json", "--name", "x", "--at", "tomorrow 9am"],
            "admin",
            "--at is a time like 18:00",
        ),
        (
            "create: an unreadable end",
            ["create", "--json", "--name", "x", "--ends-at", "soon"],
            "admin",
            "--ends-at",
        ),
        (
            "create: an end before the start",
            ["create", "--json", "--name", "x", "--starts-at", soon, "--ends-at", "2020-01-01"],
            "admin",
            "bad_request",
        ),
        (
            "create: negative hours",
            ["create", "--json", "--name", "x", "--hours", "-1"],
            "admin",
            "--hours",
        ),
        (
            "create: not an admin",
            ["create", "--json", "--name", "x"],
            "stranger",
            "does not accept",
        ),
        ("close: no such tournament", ["close", "999"], "admin", "not_found"),
        ("close: no token", ["close", "--json", str(w.open_id)], "fresh", "register"),
        ("standings: no such tournament", ["standings", "999"], "fresh", "not_found"),
        (
            "standings: a window too big",
            ["standings", str(w.open_id), "--top", "1000"],
            "fresh",
            "bad_request",
        ),
        ("standings: two modes", ["standings", "1", "--all", "--follow"], "fresh", "not allowed"),
        ("record: before the close", ["record", str(w.open_id), "boss"], "fresh", "not_revealed"),
        ("record: no such player", ["record", str(w.closed_id), "nobody"], "fresh", "not_found"),
        (
            "bundle: nowhere to write",
            ["bundle", str(w.closed_id), "-o", "/nonexistent/dir/b.json"],
            "fresh",
            "cannot write",
        ),
        ("bundle: not closed", ["bundle", str(w.open_id)], "fresh", "HTTP 404"),
        (
            "bundle: a dead port",
            ["--server", f"http://127.0.0.1:{dead}", "bundle", "1"],
            "fresh",
            "cannot connect",
        ),
        ("bot: no such tournament", ["bot", "--tournament", "999"], "fresh", "no such tournament"),
        ("bot: a closed tournament", ["bot", "--tournament", str(w.closed_id)], "fresh", "closed"),
        (
            "bot: no players",
            ["bot", "--tournament", str(w.open_id), "--players", "0"],
            "fresh",
            "--players",
        ),
        ("register: a token already saved", ["register", "other"], "admin", "--replace"),
        ("register: a bad name", ["register", "no spaces allowed"], "fresh", "bad_request"),
        ("verify: no such file", ["verify", "/nonexistent.json"], "fresh", "nonexistent"),
        ("verify: a bad receipt", ["verify", "x.json", "--receipt", "zz"], "fresh", "receipt"),
    ]


def server_cases(w: World) -> list[tuple[str, list[str], dict[str, str], str]]:
    """(what, argv, extra environment, a word the one line must hold)."""
    dead = free_port()
    db = ["--database-url", f"sqlite:///{w.tmp / 'world.db'}"]
    pg_dead = ["--database-url", f"postgresql://postgres@127.0.0.1:{dead}/nothing"]
    return [
        ("no command", [], {}, "required"),
        ("tournament: no subcommand", [*db, "tournament"], {}, "required"),
        ("a bogus database URL", ["--database-url", "bogus", "migrate"], {}, "not a database URL"),
        (
            "a bogus database URL, serving",
            ["--database-url", "bogus", "serve"],
            {},
            "not a database URL",
        ),
        ("MySQL", ["--database-url", "mysql://u@h/d", "tournament", "list"], {}, "not supported"),
        ("in-memory SQLite", ["--database-url", "sqlite://", "migrate"], {}, "in-memory"),
        (
            "no such directory",
            ["--database-url", "sqlite:////nonexistent/dir/x.db", "migrate"],
            {},
            "no directory",
        ),
        (
            "a bad SAMEDEAL_DATABASE_URL",
            ["migrate"],
            {"SAMEDEAL_DATABASE_URL": "bogus"},
            "not a database URL",
        ),
        ("PostgreSQL on a closed port", [*pg_dead, "migrate"], {}, "cannot reach PostgreSQL"),
        (
            "PostgreSQL on a closed port, listing",
            [*pg_dead, "tournament", "list"],
            {},
            "cannot reach PostgreSQL",
        ),
        (
            "PostgreSQL on a closed port, serving",
            [*pg_dead, "serve", "--port", "0"],
            {"SAMEDEAL_DB_WAIT_S": "1"},
            "cannot reach PostgreSQL",
        ),
        ("a port out of range", [*db, "serve", "--port", "99999"], {}, "65535"),
        ("a port that is no number", [*db, "serve", "--port", "http"], {}, "number"),
        ("a bad SAMEDEAL_PORT", [*db, "serve"], {"SAMEDEAL_PORT": "-1"}, "65535"),
        (
            "an unknown host",
            [*db, "serve", "--port", "0", "--host", "nowhere.invalid"],
            {},
            "no such host",
        ),
        (
            "options not JSON",
            [*db, "tournament", "create", "--json", "--name", "x", "--options", "{redeals: 2}"],
            {},
            "not JSON",
        ),
        (
            "an unreadable start",
            [*db, "tournament", "create", "--json", "--name", "x", "--starts-at", "tomorrow 9am"],
            {},
            "--at is a time like 18:00",
        ),
        (
            "bad options",
            [*db, "tournament", "create", "--json", "--name", "x", "--options", '{"redeals": 9}'],
            {},
            "bad_request",
        ),
        ("close: an id that is no number", [*db, "tournament", "close", "abc"], {}, "invalid int"),
        ("close: no such tournament", [*db, "tournament", "close", "999"], {}, "not_found"),
        (
            "close: closed already",
            [*db, "tournament", "close", "--json", str(w.closed_id)],
            {},
            "closed",
        ),
        ("grant: no such player", [*db, "admin", "grant", "nobody"], {}, "no player"),
        ("workers on SQLite", [*db, "serve", "--port", "0", "--workers", "2"], {}, "PostgreSQL"),
    ]


def check(what: str, done: subprocess.CompletedProcess[str], word: str, token: str) -> None:
    said = done.stdout + done.stderr
    # `verify` reports its verdict, unreadable files included, as its output (stdout;
    # client_cli/verify.py, exit 2): one line there; every other command: one on stderr
    lines = (said if what.startswith("verify") else done.stderr).splitlines()
    assert done.returncode != 0, f"{what}: exit 0\n{said}"
    assert len(lines) == 1, f"{what}: {len(lines)} lines on stderr\n{done.stderr}"
    assert "Traceback" not in said and "Error:" not in lines[0].split(":", 1)[0], f"{what}: {said}"
    assert word.lower() in lines[0].lower(), f"{what}: {word!r} not in {lines[0]!r}"
    assert token not in said, f"{what}: the token is printed"


def test_every_client_command_fails_in_one_line(world: World) -> None:
    cases = client_cases(world)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda c: client(world, *c[1], home=c[2]), cases))
    for (what, _, _, word), done in zip(cases, results, strict=True):
        check(what, done, word, world.token)


def test_every_server_command_fails_in_one_line(world: World) -> None:
    cases = server_cases(world)
    busy, port = listening_port()
    db = ["--database-url", f"sqlite:///{world.tmp / 'world.db'}"]
    cases.append(("the port in use", [*db, "serve", "--port", str(port)], {}, "in use"))
    try:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda c: operator(world, *c[1], **c[2]), cases))
    finally:
        busy.close()
    for (what, _, _, word), done in zip(cases, results, strict=True):
        check(what, done, word, world.token)


@pytest.mark.parametrize(
    "spelling",
    [
        "http://127.0.0.1:{port}/",
        "ws://127.0.0.1:{port}",
        "localhost:{port}",
        "http://localhost:{port}/t/1",
    ],
)
def test_the_addresses_a_user_types_reach_the_server_with_the_saved_token(
    world: World, spelling: str
) -> None:
    """The token was saved under http://127.0.0.1:PORT/ (the README's page address); every
    spelling of the same server finds it: `close` needs it."""
    server = spelling.format(port=world.port)
    made = client(world, "--server", server, "create", "--json", "--name", "Spelt")
    assert made.returncode == 0, made.stderr
    closed = client(
        world, "--server", server, "close", "--json", str(json.loads(made.stdout)["id"])
    )
    assert closed.returncode == 0 and json.loads(closed.stdout)["status"] == "closed"


def test_watching_needs_no_account(world: World) -> None:
    listed = client(world, "tournaments", home="fresh")
    assert listed.returncode == 0, listed.stderr
    assert "Open Cup" in listed.stdout and "closes" in listed.stdout
    assert "Closed Cup" in listed.stdout and "ago" in listed.stdout
    assert "T" not in listed.stdout.split("when", 1)[1].split()[3]  # no raw ISO stamps
    window = client(world, "standings", str(world.open_id), home="fresh")
    assert window.returncode == 0 and "live" in window.stdout, window.stderr


def test_register_says_to_keep_the_token(world: World) -> None:
    home = world.tmp / "newcomer"
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "SAMEDEAL_SERVER": world.ws}
    done = run([sys.executable, "-m", "client_cli", "register", "newcomer"], env, world.tmp)
    assert done.returncode == 0, done.stderr
    assert "keep a copy" in done.stdout and "cannot recover" in done.stdout
    token = json.loads((home / "samedeal" / "tokens.json").read_text())[world.ws]["token"]
    assert token not in done.stdout  # the file keeps it, the terminal's scrollback does not
    again = run([sys.executable, "-m", "client_cli", "register", "other"], env, world.tmp)
    assert again.returncode == 2 and "--replace" in again.stderr
    kept = json.loads((home / "samedeal" / "tokens.json").read_text())
    assert kept[world.ws]["token"] == token  # unchanged


def test_the_server_says_which_database_and_page(world: World) -> None:
    """`serve` names the SQLite file it opened (a relative path made absolute) and prints
    the page's http:// address beside the ws:// one; alembic says nothing."""
    log = world.tmp / "relative.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--database-url",
            "sqlite:///rel.db",
            "serve",
            "--port",
            "0",
            "--no-demo",
        ],
        cwd=world.tmp,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        from tests.support.processes import LISTENING

        for _ in range(1200):  # up to a minute on a loaded machine
            text = log.read_text()
            if (found := LISTENING.search(text)) and "http://" in text:
                break
            assert proc.poll() is None, text
            import time

            time.sleep(0.05)
        port = found.group(1) if found else "?"
        assert f"the page: http://127.0.0.1:{port}/" in text
        assert f"SQLite file {world.tmp / 'rel.db'}" in text and "relative" in text
        assert "alembic" not in text
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a loaded machine: do not leave it behind
            proc.kill()
            proc.wait()
    listed = operator(world, "--database-url", f"sqlite:///{world.tmp / 'world.db'}", "migrate")
    assert listed.returncode == 0 and listed.stderr == "", listed.stderr


def closed_pipe_run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Runs `argv` with standard output a pipe whose reader is already gone (what `| head
    -1` becomes once head has its line): its exit status and standard error."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            argv, env=env, cwd=cwd, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=90
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


def test_a_reader_that_leaves_ends_the_output_quietly(world: World) -> None:
    """`samedeal tournaments | head -1` and the server's `tournament list | head -1`: a
    reader that leaves is no failure (status 0, nothing on stderr), not "the connection
    was lost"; so for the shell's own pipe with pipefail, every time."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(world.homes["admin"]), "SAMEDEAL_SERVER": world.ws}
    for args in (["tournaments"], ["tournaments", "--json"], ["bundle", str(world.closed_id)]):
        code, err = closed_pipe_run([sys.executable, "-m", "client_cli", *args], env, world.tmp)
        assert (code, err) == (0, ""), args
    db = f"sqlite+aiosqlite:///{world.tmp / 'world.db'}"
    code, err = closed_pipe_run(
        [sys.executable, "-m", "server", "--database-url", db, "tournament", "list"],
        dict(os.environ),
        world.tmp,
    )
    assert (code, err) == (0, "")
    line = f"{sys.executable} -m client_cli bundle {world.closed_id} -o - | head -c 1"
    for _ in range(3):
        done = run(["bash", "-c", f"set -o pipefail; {line}"], env, world.tmp)
        assert (done.returncode, done.stderr, done.stdout) == (0, "", "{")


def test_dash_o_dash_writes_to_standard_output(world: World) -> None:
    done = client(world, "bundle", str(world.closed_id), "-o", "-")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tournament"]["id"] == world.closed_id
    assert not (world.tmp / "-").exists()
