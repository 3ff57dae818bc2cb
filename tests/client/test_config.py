"""client_cli/config.py: the server addresses a user types, one server under any of its
spellings for the saved tokens; the saved receipts' format, care and throttling."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from client_cli import config

URL = "ws://127.0.0.1:8765/ws"
H = "ab" * 32


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize(
    ("typed", "url"),
    [
        ("127.0.0.1:8765", "ws://127.0.0.1:8765/ws"),
        ("http://Play.Example.org/", "ws://play.example.org/ws"),
        ("https://play.example.org/t/12", "wss://play.example.org/ws"),  # a page: its server
        ("wss://play.example.org/verify", "wss://play.example.org/ws"),
        ("ws://[::1]:9/ws/", "ws://[::1]:9/ws"),
        ("ws://host/other/ws", "ws://host/other/ws"),  # behind a proxy's path
    ],
)
def test_an_address_a_user_types_is_the_servers_websocket(typed: str, url: str) -> None:
    assert config.normalise_server(typed) == url


@pytest.mark.parametrize(
    "typed", ["ftp://host", "ws://host:99999", "ws://:80/ws", "ws://host/ws?x=1", "ws://u:p@host"]
)
def test_what_is_not_a_server_address_is_refused(typed: str) -> None:
    with pytest.raises(config.BadServer):
        config.normalise_server(typed)


def test_the_flag_wins_over_the_environment_over_the_default(monkeypatch) -> None:
    monkeypatch.delenv("SAMEDEAL_SERVER", raising=False)
    assert config.server_url() == config.DEFAULT_SERVER
    monkeypatch.setenv("SAMEDEAL_SERVER", "env.example:1")
    assert config.server_url() == "ws://env.example:1/ws"
    assert config.server_url("flag.example") == "ws://flag.example/ws"


def test_a_token_is_one_servers_under_any_spelling(config_home: Path) -> None:
    assert config.server_key("http://localhost:8765") == config.server_key(URL)
    assert config.server_key("wss://h/ws") == config.server_key("wss://h:443/ws")
    assert config.server_key("ws://h/ws") != config.server_key("wss://h/ws")
    config.save_token("localhost:8765", "alice", "t0")
    assert config.token_for(URL) == ("alice", "t0")
    config.save_token(URL, "bob", "t1")  # replaces the other spelling's
    assert list(config.load_all()) == [URL] and config.token_for("localhost:8765")[1] == "t1"
    config.forget_token("http://[::1]:8765/")
    assert config.token_for(URL) is None and config.load_all() == {}


def test_an_old_tokens_file_still_loads_and_keeps_its_shape(config_home: Path) -> None:
    tokens = config_home / "samedeal" / "tokens.json"
    tokens.parent.mkdir(parents=True)
    tokens.write_text(json.dumps({URL: {"name": "alice", "token": "t0"}}))
    assert config.token_for(URL) == ("alice", "t0")
    assert config.load_receipts() == []  # no receipts file: none kept, nothing breaks
    config.save_token("ws://other/ws", "bob", "t1")
    assert config.token_for(URL) == ("alice", "t0")
    assert json.loads(tokens.read_text())["ws://other/ws"] == {"name": "bob", "token": "t1"}
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600


def test_receipts_are_written_at_most_once_per_interval_and_on_flush(config_home: Path) -> None:
    clock = FakeClock()
    book = config.ReceiptBook(clock=clock)
    for seq in range(1, 501):  # a bot at hundreds of actions a second
        book.note(URL, "alice", 7, seq, f"{seq:064x}")
    assert book.writes == 0 and not config.receipts_path().exists()
    clock.t += 1.0
    book.note(URL, "alice", 7, 501, H)
    assert book.writes == 1
    assert config.receipt_for(URL, "alice", 7) == book.get(URL, "alice", 7)
    book.note(URL, "alice", 7, 502, "cd" * 32)
    assert book.writes == 1  # not due yet: pending
    book.flush(final=True)
    assert book.writes == 2
    saved = config.receipt_for(URL, "ALICE", 7)  # names compare case-insensitively
    assert saved is not None and (saved.seq, saved.log_hash) == (502, "cd" * 32)
    path = config.receipts_path()
    assert path == config_home / "samedeal" / "receipts.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data["format"] == "samedeal-receipts/1"
    assert data["receipts"][URL]["alice"]["7"]["seq"] == 502
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    book.flush(final=True)
    assert book.writes == 2  # nothing pending, nothing written


def test_flush_if_due_writes_what_a_quiet_player_left_pending(config_home: Path) -> None:
    clock = FakeClock()
    book = config.ReceiptBook(clock=clock)
    book.note(URL, "alice", 7, 3, H)
    book.flush_if_due()
    assert book.writes == 0
    clock.t += 1.5
    book.flush_if_due()
    assert book.writes == 1 and config.receipt_for(URL, "alice", 7) is not None


def test_the_higher_seq_wins_between_books_and_within_one(config_home: Path) -> None:
    first, second = config.ReceiptBook(), config.ReceiptBook()  # two processes
    first.note(URL, "alice", 7, 9, H)
    first.note(URL, "alice", 7, 4, "00" * 32)  # a stale answer changes nothing
    first.flush()
    second.note(URL, "alice", 7, 5, "11" * 32)
    second.note(URL, "bob", 7, 2, "22" * 32)
    second.note(URL, "alice", 8, 1, "33" * 32)
    second.flush()
    got = {(r.player, r.tournament): (r.seq, r.log_hash) for r in config.load_receipts()}
    assert got == {
        ("alice", 7): (9, H),
        ("bob", 7): (2, "22" * 32),
        ("alice", 8): (1, "33" * 32),
    }
    assert {r.player for r in config.receipts_in(URL, 7)} == {"alice", "bob"}
    assert config.receipts_in("ws://elsewhere/ws", 7) == []


def test_a_damaged_receipts_file_is_ignored_and_replaced(config_home: Path) -> None:
    path = config.receipts_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "samedeal-receipts/1", "receipts": {"x": [1, 2]}')
    assert config.load_receipts() == []
    path.write_text(
        json.dumps(
            {
                "format": "samedeal-receipts/1",
                "receipts": {URL: {"alice": {"7": {"seq": "9"}, "x": {}, "8": {"seq": 2}}}},
            }
        )
    )
    assert config.load_receipts() == []  # no well-formed receipt in it
    book = config.ReceiptBook()
    book.note(URL, "alice", 7, 1, H)
    book.flush()
    assert [(r.seq, r.log_hash) for r in config.load_receipts()] == [(1, H)]
