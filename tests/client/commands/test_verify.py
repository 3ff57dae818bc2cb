"""client_cli/commands/verify.py: `samedeal verify` hands the file, the parsed receipt,
the player and the networks file to client_cli/verify.py and answers its status; no
server is asked (what the verdicts are: tests/client/test_verify.py)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from client_cli import verify as verifier
from client_cli.commands import verify
from client_cli.commands.registry import build_parser

HASH = "AB" * 32


def test_the_flags_reach_the_verifier_and_its_status_is_the_commands(monkeypatch) -> None:
    asked: list[tuple[Any, ...]] = []

    def fake_run(path: str, **kw: Any) -> int:
        asked.append((path, kw))
        return verifier.EXIT_MISMATCH

    monkeypatch.setattr(verifier, "run", fake_run)
    argv = ["verify", "b.json", "--receipt", f"12:{HASH}", "--player", "ann"]
    args = build_parser().parse_args([*argv, "--beacon-networks", "n.json"])
    assert args.offline is True and args.server is None
    assert verify.run(args, io.StringIO()) == verifier.EXIT_MISMATCH
    kw = {"receipt": (12, HASH.lower()), "player": "ann", "networks": "n.json"}
    assert asked == [("b.json", kw)]


def test_a_receipt_that_is_not_seq_colon_hash_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["verify", "b.json", "--receipt", "12"])
    assert exited.value.code == 2 and "'12'" in capsys.readouterr().err
