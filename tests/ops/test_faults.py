"""Expected faults told from bugs (faults.py): the kind read along the cause chain, and one
line per kind, place and interval with the faults folded into it (a driven clock)."""

from __future__ import annotations

import logging

import pytest

from server.ops.faults import FaultLog, kind_of, one_line


class InterfaceError(Exception):  # named as asyncpg's and SQLAlchemy's
    pass


def caused(outer: BaseException, cause: BaseException) -> BaseException:
    outer.__cause__ = cause
    return outer


def test_the_kind_is_read_along_the_cause_chain() -> None:
    assert kind_of(ConnectionResetError()) == "database"  # a builtin ConnectionError
    assert kind_of(caused(RuntimeError("write failed"), InterfaceError("closed"))) == "database"
    assert kind_of(OSError(28, "No space left on device")) == "disk"
    assert kind_of(RuntimeError("the database system is shutting down")) == "database"
    assert kind_of(KeyError("a bug")) is None


def test_one_line_per_kind_and_place_and_interval(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    faults = FaultLog(logging.getLogger("test.faults"), interval_s=10.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, "test.faults"):
        for _ in range(3):
            assert faults.report(ConnectionResetError("reset"), "act")
        assert faults.report(ConnectionResetError("reset"), "join")  # another place
        now[0] = 10.0
        assert faults.report(ConnectionResetError("reset"), "act")
        assert not faults.report(ValueError("a bug"), "act")  # the caller's to log
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "fault kind=database where=act count=1 last=ConnectionResetError: reset",
        "fault kind=database where=join count=1 last=ConnectionResetError: reset",
        "fault kind=database where=act count=3 last=ConnectionResetError: reset",
    ]
    assert faults.seen == {"database": 5}


def test_one_line_is_one_line_and_short() -> None:
    assert one_line(ValueError("a\n  b")) == "ValueError: a b"
    assert len(one_line(ValueError("x" * 500))) == len("ValueError: ") + 200
    assert one_line(ValueError()) == "ValueError"
