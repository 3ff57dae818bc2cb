"""A real server's lifecycle clock task on time the test drives (tests/support/driven.py):
the close it makes at the end reaches a subscribed watcher, and not a tick sooner."""

from __future__ import annotations

from datetime import timedelta

from server.competition.ticker import TICK_S
from tests.support.driven import SETTLE_S, DrivenScheduler
from tests.support.harness import T0, Client, Clock, create_msg, running_server


async def status_of(c: Client, tid: int) -> str:
    items = (await c.ok(type="tournaments"))["items"]
    return str(next(t["status"] for t in items if t["id"] == tid))


async def test_a_watcher_hears_the_close_the_server_clock_task_makes(sqlite_url: str) -> None:
    clk = Clock()
    scheduler = DrivenScheduler(clk)
    async with running_server(sqlite_url, clk, scheduler=scheduler) as srv:
        op = await srv.admin()
        msg = create_msg(ends_at=(T0 + timedelta(seconds=60)).isoformat())  # type: ignore[no-untyped-call]
        tid = (await op.ok(**msg))["tournament"]["id"]  # open now, for a minute
        await op.ok(type="subscribe", tournament=tid)
        await scheduler.advance(60 - TICK_S)
        assert await status_of(op, tid) == "open"
        assert not any(p["type"] == "closed" for p in op.pushes)
        await scheduler.advance(TICK_S)  # the tick at the end
        closed = await op.push("closed", timeout=SETTLE_S)
        assert closed["tournament"] == tid and len(closed["seed"]) == 64
        assert await status_of(op, tid) == "closed"
        await op.close()
