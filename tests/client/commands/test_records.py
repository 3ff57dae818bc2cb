"""client_cli/commands/records.py: `samedeal record` and `samedeal bundle` write what was
published and hold it against the receipts kept for that tournament, a line each on
stderr, status 1 when an acknowledged log is not there unchanged; a bundle that cannot
be fetched or read is one line (the whole story over a real server:
tests/client/test_receipts.py)."""

from __future__ import annotations

import io
import json
import random
import urllib.error
from typing import Any

import pytest

from client_cli import config
from client_cli.commands import records
from client_cli.commands.registry import build_parser
from server.audit import receipts
from server.i18n.terminal import t
from tests.client.commands.conftest import URL
from tests.support import factories

SEED = bytes.fromhex("e4c537b6139465e60d1e3dc91d26a884e7b04b4d57558cedeb4b13dff5d68d97")
TID = 7  # factories.tournament's


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    """A bundle of two players' records."""
    tour = factories.tournament(SEED)
    plays = [(1, "alice", 20), (2, "bob", 10)]
    return factories.bundle(
        tour,
        [
            factories.record(tour, pid, name, factories.play_gaps(SEED, pid, n, random.Random(pid)))
            for pid, name, n in plays
        ],
    )


def keep_receipt(record: dict[str, Any], seq: int, *, altered: bool = False) -> None:
    """The receipt the server gave `record`'s player for action `seq`, saved."""
    head = receipts.log_hash(
        record["tournament"]["commitment"],
        record["player"]["id"],
        ((a["seq"], a["at_ms"], a["action"]) for a in record["actions"][:seq]),
    )
    book = config.ReceiptBook()
    book.note(URL, record["player"]["name"], TID, seq, "00" * 32 if altered else head)
    book.flush(final=True)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = records.run(build_parser().parse_args(["--server", URL, *argv]), out)
    return code, out.getvalue()


def test_a_record_without_receipts_is_written_and_nothing_said(scripted, capsys, published):
    alice = published["records"][0]
    conn = scripted({"record": {"type": "record", "record": alice}})
    code, out = run("record", str(TID), "alice")
    assert code == 0 and json.loads(out) == alice and capsys.readouterr().err == ""
    assert conn.of("record") == [{"type": "record", "tournament": TID, "player": "alice"}]


def test_my_record_without_a_receipt_says_none_was_kept(scripted, capsys, published):
    config.save_token(URL, "alice", "tok")
    scripted({"record": {"type": "record", "record": published["records"][0]}})
    assert run("record", str(TID), "alice")[0] == 0
    assert capsys.readouterr().err == t("cli.receipt.none_kept", id=TID) + "\n"


def test_a_record_holds_its_receipt_or_fails_on_it(scripted, capsys, published):
    alice = published["records"][0]
    scripted({"record": {"type": "record", "record": alice}})
    keep_receipt(alice, 12)
    assert run("record", str(TID), "alice")[0] == 0
    held = t("cli.receipt.holds_other_record", player="alice", seq=12)
    assert capsys.readouterr().err == held + "\n"
    keep_receipt(alice, 15, altered=True)
    assert run("record", str(TID), "alice")[0] == 1
    assert capsys.readouterr().err.startswith("receipt: DIFFERS: alice's log")


def test_a_bundle_holds_every_kept_receipt(monkeypatch, capsys, published):
    monkeypatch.setattr(records, "_get", lambda url: json.dumps(published).encode())
    config.save_token(URL, "bob", "tok")
    keep_receipt(published["records"][0], 12)
    keep_receipt(published["records"][1], 5)
    code, out = run("bundle", str(TID))
    assert code == 0 and json.loads(out) == published
    assert capsys.readouterr().err.splitlines() == [  # mine first
        t("cli.receipt.holds_mine_bundle", player="bob", seq=5),
        t("cli.receipt.holds_other_bundle", player="alice", seq=12),
    ]


def test_a_bundle_missing_a_kept_players_record_fails(monkeypatch, capsys, published):
    alone = {**published, "records": published["records"][1:]}
    monkeypatch.setattr(records, "_get", lambda url: json.dumps(alone).encode())
    keep_receipt(published["records"][0], 12)
    assert run("bundle", str(TID))[0] == 1
    assert t("cli.receipt.bundle_has_none", name="'alice'") in capsys.readouterr().err


def test_a_bundle_not_published_or_not_json_is_one_line(monkeypatch, capsys):
    url = f"http://127.0.0.1:9/tournaments/{TID}/bundle.json"

    def not_closed(url: str) -> bytes:
        raise urllib.error.HTTPError(url, 404, "Not Found", None, None)  # type: ignore[arg-type]

    monkeypatch.setattr(records, "_get", not_closed)
    assert run("bundle", str(TID))[0] == 1
    said = f"samedeal: {url}: HTTP 404 ({t('cli.bundle.not_closed')})\n"
    assert capsys.readouterr().err == said
    monkeypatch.setattr(records, "_get", lambda url: b"<html>")
    assert run("bundle", str(TID))[0] == 1
    assert capsys.readouterr().err == f"samedeal: {t('cli.bundle.not_json', url=url)}\n"
