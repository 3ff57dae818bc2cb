"""A field of entrants for the standings tests: players who join a tournament on a
running server and play a few Gaps moves."""

from __future__ import annotations

import asyncio

from tests.support.harness import Running


async def entrant(srv: Running, tid: int, name: str, moves: int) -> str:
    """A player who joins and plays `moves` Gaps moves (first legal); their token."""
    async with srv.client() as c:
        token = (await c.ok(type="register", name=name))["token"]
        state = await c.ok(type="join", tournament=tid)
        for _ in range(moves):
            legal = state["view"]["legal"]
            if state["status"] != "playing" or not legal:
                break
            action = {"kind": "move", **legal[0]}
            state = await c.ok(type="act", tournament=tid, seq=state["seq"] + 1, action=action)
    return token


async def field(srv: Running, tid: int, n: int) -> dict[str, str]:
    """`n` entrants p00.. with spread progress; their tokens by name."""
    names = [f"p{i:02d}" for i in range(n)]
    tokens = await asyncio.gather(*(entrant(srv, tid, x, i % 9) for i, x in enumerate(names)))
    return dict(zip(names, tokens, strict=True))
