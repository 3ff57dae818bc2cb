"""Driving the terminal apps with Textual's pilot: what a widget shows, waiting for the
screen to reach a state, and the times a rendered standings table shows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.widgets import Static


def shown(app: Any, widget: str) -> str:
    """The text the Static `#widget` of `app` shows."""
    return str(app.query_one(f"#{widget}", Static).content)


async def settle(pilot: Any, condition: Callable[[], bool], tries: int = 60) -> None:
    """Let the app process until `condition()` holds (a server round trip may take a while)."""
    for _ in range(tries):
        await pilot.pause()
        if condition():
            return
    raise AssertionError("the screen did not reach the expected state")


async def settle_within(pilot: Any, condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Wait for the screen to reach `condition` (generous: a busy machine is slow); the
    failure shows the standings viewer's page and message."""
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline:
        await pilot.pause()
        if condition():
            return
        await asyncio.sleep(0.02)
    app = pilot.app
    raise AssertionError(
        f"the screen did not reach the expected state: {shown(app, 'page')!r} "
        f"{shown(app, 'message') if app.query('#message') else ''!r}"
    )


def times_of(text: str) -> dict[str, int]:
    """Each row's time column in seconds, by player (named runner…), from a rendered table."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 7 and parts[1].startswith("runner"):
            m, s = parts[-2].split(":")[-2:]
            out[parts[1]] = int(m) * 60 + int(s)
    return out
