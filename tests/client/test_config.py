"""The client's saved receipts (client_cli/config.py): format, care and throttling."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from client_cli import config

URL = "ws://127.0.0.1:8765/ws"
H = "ab" * 32


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


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
