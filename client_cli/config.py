"""Where the client keeps what it must remember, in the user's config dir, mode 0600:

- tokens.json: per server, the registered player's name and token;
- receipts.json (samedeal-receipts/1): per server, player and tournament, the receipt of
  the last acknowledged action, i.e. the STATE's `seq` and `log_hash` (RECORD.md
  "Receipts"), to hold against the record published after the close.

Both are written whole to a temporary file and renamed over the old one, so a reader
never sees half a file. Receipts are merged under a lock (several bots or terminals may
save at once): for each (server, player, tournament) the receipt of the higher seq wins.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.domain.names import name_key
from server.i18n.said import said

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
RECEIPTS_FORMAT = "samedeal-receipts/1"
MAX_RECEIPTS = 20_000  # beyond this the oldest are dropped (bot swarms would grow it forever)


LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}
PAGE_PATH = re.compile(r"/(t/\d+(/replay/[^/]+)?|verify)")  # the browser's pages
SCHEMES = {"ws": "ws", "wss": "wss", "http": "ws", "https": "wss"}


class BadServer(ValueError):
    """A --server (or SAMEDEAL_SERVER) value that is not a server address (its message a
    Said: say it with said_error)."""


def server_url(explicit: str | None = None) -> str:
    """--server, else SAMEDEAL_SERVER, else the default: normalised (normalise_server)."""
    return normalise_server(explicit or os.environ.get("SAMEDEAL_SERVER") or DEFAULT_SERVER)


def normalise_server(text: str) -> str:
    """The WebSocket URL a server address means: http(s):// becomes ws(s)://, no scheme is
    ws://, an empty path (or "/") is the server's /ws, a trailing slash goes; the host is
    lower-cased. Raises BadServer (its message fit for one line) otherwise."""
    raw = text.strip()
    if "://" not in raw:
        raw = "ws://" + raw
    parts = urlsplit(raw)
    scheme = SCHEMES.get(parts.scheme.lower())
    if scheme is None:
        raise BadServer(said("cli.server.bad_scheme", given=repr(text[:60])))
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise BadServer(said("cli.server.bad_port", given=repr(text[:60]))) from None
    if not host:
        raise BadServer(said("cli.server.no_host", given=repr(text[:60])))
    if parts.query or parts.fragment or parts.username or parts.password:
        raise BadServer(said("cli.server.extra_parts", given=repr(text[:60])))
    path = parts.path.rstrip("/")
    if not path or PAGE_PATH.fullmatch(path):  # the server itself, or one of its pages
        path = "/ws"
    netloc = f"[{host}]" if ":" in host else host
    return f"{scheme}://{netloc}{'' if port is None else f':{port}'}{path}"


@functools.lru_cache(maxsize=256)
def server_key(url: str) -> str:
    """What identifies a server for saved tokens and receipts: its normalised address with
    the default port spelled out and every loopback name (localhost, 127.0.0.1, ::1) one."""
    try:
        parts = urlsplit(normalise_server(url))
    except BadServer:
        return url
    host = parts.hostname or ""
    if host in LOOPBACK:
        host = "localhost"
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    return f"{parts.scheme}://{host}:{port}{parts.path}"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "samedeal"


def tokens_path() -> Path:
    return config_dir() / "tokens.json"


def receipts_path() -> Path:
    return config_dir() / "receipts.json"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def _write_private(path: Path, data: Any, durable: bool = False) -> None:
    """Replace `path` with `data` as JSON, readable by the user only; `durable` fsyncs."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def load_all() -> dict[str, Any]:
    return _read_json(tokens_path())


def save_token(server: str, name: str, token: str) -> Path:
    """Remember the token for `server` (the file is created readable by the user only),
    in place of any other kept for the same server under another spelling (server_key)."""
    key = server_key(server)
    data = {k: v for k, v in load_all().items() if server_key(k) != key}
    data[server] = {"name": name, "token": token}
    path = tokens_path()
    _write_private(path, data, durable=True)
    return path


def forget_token(server: str) -> None:
    """Remove the token saved for `server` (any spelling of it): its account is gone."""
    key = server_key(server)
    data = {k: v for k, v in load_all().items() if server_key(k) != key}
    _write_private(tokens_path(), data, durable=True)


def token_for(server: str) -> tuple[str, str] | None:
    """(name, token) saved for `server` under any spelling of its address (server_key)."""
    data, key = load_all(), server_key(server)
    entry = data.get(server) or next((v for k, v in data.items() if server_key(k) == key), None)
    if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
        return None
    return str(entry.get("name", "?")), entry["token"]


# -- receipts ------------------------------------------------------------------------
@dataclass(frozen=True)
class Receipt:
    """The acknowledgement of action `seq` (seq 0: the join) of `player` in `tournament`."""

    server: str
    player: str
    tournament: int
    seq: int
    log_hash: str
    saved_at: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "log_hash": self.log_hash, "saved_at": self.saved_at}


def _receipts_of(data: dict[str, Any]) -> Iterator[Receipt]:
    """Every well-formed receipt in a receipts file's data (anything else is skipped)."""
    servers = data.get("receipts") if data.get("format") == RECEIPTS_FORMAT else None
    for server, players in (servers if isinstance(servers, dict) else {}).items():
        for player, games in (players if isinstance(players, dict) else {}).items():
            for tid, r in (games if isinstance(games, dict) else {}).items():
                if not (isinstance(r, dict) and str(tid).isdigit()):
                    continue
                seq, digest, saved = r.get("seq"), r.get("log_hash"), r.get("saved_at", "")
                if (
                    isinstance(seq, int)
                    and not isinstance(seq, bool)
                    and seq >= 0
                    and isinstance(digest, str)
                    and isinstance(saved, str)
                ):
                    yield Receipt(str(server), str(player), int(tid), seq, digest, saved)


def _receipts_data(receipts: Iterator[Receipt] | list[Receipt]) -> dict[str, Any]:
    servers: dict[str, dict[str, dict[str, Any]]] = {}
    for r in receipts:
        servers.setdefault(r.server, {}).setdefault(r.player, {})[str(r.tournament)] = r.as_json()
    return {"format": RECEIPTS_FORMAT, "receipts": servers}


def _key(server: str, player: str, tournament: int) -> tuple[str, str, int]:
    return server_key(server), name_key(player), tournament  # names: case-insensitive


def load_receipts(path: Path | None = None) -> list[Receipt]:
    return list(_receipts_of(_read_json(path or receipts_path())))


def receipt_for(
    server: str, player: str, tournament: int, path: Path | None = None
) -> Receipt | None:
    """The saved receipt of `player` in `tournament` on `server`, if any."""
    want = _key(server, player, tournament)
    found = [r for r in load_receipts(path) if _key(r.server, r.player, r.tournament) == want]
    return max(found, key=lambda r: r.seq) if found else None


def receipts_in(server: str, tournament: int, path: Path | None = None) -> list[Receipt]:
    """Every saved receipt of `tournament` on `server` (one per player)."""
    key = server_key(server)
    return [
        r for r in load_receipts(path) if r.tournament == tournament and server_key(r.server) == key
    ]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock beside `path` for a read-merge-write (none on Windows)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


class ReceiptBook:
    """Receipts noted as STATEs arrive, written to the receipts file at most once per
    `interval` seconds (from `note`, or `flush_if_due` on a timer) and on `flush()`.

    `note` is cheap (a dict update and a clock read), so bots can call it for every
    action; call `flush(final=True)` when done: it writes what is pending and fsyncs."""

    def __init__(
        self,
        path: Path | None = None,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path or receipts_path()
        self.interval = interval
        self.clock = clock
        self.pending: dict[tuple[str, str, int], Receipt] = {}
        self.latest: dict[tuple[str, str, int], Receipt] = {}
        self.writes = 0
        self._last_write = clock()

    def note(self, server: str, player: str, tournament: int, seq: int, log_hash: str) -> None:
        """Keep the receipt of an acknowledged STATE (one of a lower seq than the one kept
        changes nothing: a duplicate answer or a stale resume)."""
        key = _key(server, player, tournament)
        kept = self.latest.get(key)
        if kept is None or seq >= kept.seq:
            now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            r = Receipt(server, player, tournament, seq, log_hash, now)
            self.latest[key] = self.pending[key] = r
        self.flush_if_due()

    def get(self, server: str, player: str, tournament: int) -> Receipt | None:
        return self.latest.get(_key(server, player, tournament))

    def flush_if_due(self) -> None:
        if self.pending and self.clock() - self._last_write >= self.interval:
            self.flush()

    def flush(self, final: bool = False) -> None:
        """Merge what is pending into the file (the higher seq wins per game)."""
        self._last_write = self.clock()
        if not self.pending:
            return
        pending, self.pending = self.pending, {}
        try:
            with _locked(self.path):
                on_disk = sorted(load_receipts(self.path), key=lambda r: r.seq)
                merged = {_key(r.server, r.player, r.tournament): r for r in on_disk}
                for key, r in pending.items():
                    old = merged.get(key)
                    if old is None or r.seq >= old.seq:
                        merged[key] = r
                kept = sorted(merged.values(), key=lambda r: r.saved_at)[-MAX_RECEIPTS:]
                _write_private(self.path, _receipts_data(kept), durable=final)
                self.writes += 1
        except BaseException:
            for key, r in pending.items():  # not written: keep them for the next try
                self.pending.setdefault(key, r)
            raise
