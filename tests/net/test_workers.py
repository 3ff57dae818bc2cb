"""`serve --workers N`'s supervisor (server/net/workers.py), without a process: the
workers are fakes, the signals are the handlers it installs called by the test, and its
pauses are the steps the test drives."""

from __future__ import annotations

import signal
import socket
import sys
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from server.net import workers


def test_a_worker_is_the_server_serving_on_the_shared_port() -> None:
    argv = workers.command("sqlite+aiosqlite:///x.db", "127.0.0.1", 8765, demo=False)
    assert argv == [
        sys.executable,
        *("-m", "server", "--database-url", "sqlite+aiosqlite:///x.db", "serve"),
        *("--host", "127.0.0.1", "--port", "8765", "--reuse-port", "--no-demo"),
    ]
    assert "--no-demo" not in workers.command("u", "h", 1, demo=True)


def test_a_free_port_is_one_that_can_be_bound() -> None:
    port = workers.free_port("127.0.0.1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


class Worker:
    """A worker process: running until it is signalled or the test ends it."""

    started: ClassVar[list[Worker]] = []

    def __init__(self, argv: list[str], preexec_fn: Callable[[], None]) -> None:
        self.argv = argv
        self.pid = 1000 + len(self.started)
        self.returncode: int | None = None
        self.signals: list[int] = []
        Worker.started.append(self)

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, signum: int) -> None:
        self.signals.append(signum)
        self.returncode = -signum

    def wait(self) -> int:
        assert self.returncode is not None
        return self.returncode


def supervised(monkeypatch: pytest.MonkeyPatch, steps: list[Callable[[], None]]) -> int:
    """Run `supervise` for 2 workers; each of its pauses runs the next step."""
    handlers: dict[int, Any] = {}
    Worker.started = []
    monkeypatch.setattr(workers.subprocess, "Popen", Worker)
    monkeypatch.setattr(workers.signal, "signal", lambda sig, h: handlers.__setitem__(sig, h))
    pending = iter(steps)
    monkeypatch.setattr(workers.time, "sleep", lambda _s: next(pending)())
    steps.append(lambda: handlers[signal.SIGTERM](signal.SIGTERM, None))
    return workers.supervise("u", "127.0.0.1", 8765, 2, demo=False)


def test_a_worker_that_dies_is_restarted_and_a_stop_is_passed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def crash() -> None:
        Worker.started[0].returncode = 1

    status = supervised(monkeypatch, [lambda: None, crash, lambda: None])
    first, second, replacement = Worker.started
    assert first.argv == workers.command("u", "127.0.0.1", 8765, False)
    assert first.signals == []  # it had died: nothing to tell it
    assert second.signals == [signal.SIGTERM] and replacement.signals == [signal.SIGTERM]
    assert status == 0  # the workers running stopped as told


def test_a_stop_during_the_pause_before_a_restart_starts_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def crash() -> None:
        Worker.started[1].returncode = 1

    status = supervised(monkeypatch, [crash])  # the stop comes in the restart's pause
    assert len(Worker.started) == 2
    assert status == 1  # a worker ended by a failure, not by the stop
