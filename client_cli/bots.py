"""Bots: players that register, join and play to the end over real connections.

They are the demo and the load generator. Gaps strategies: `random` (any legal
move) and `greedy` (extend runs, keep runs whole, avoid feeding kings, redeal only
when blocked); a Gaps bot resigns after GAPS_IDLE actions with no card more in place
(free_parking's cards can go back and forth for ever). Klondike bots play what the view
allows and give up after a whole unproductive pass through the stock.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from dataclasses import dataclass
from typing import Any

from client_cli.config import ReceiptBook
from client_cli.connection import Connection, ServerError
from server.games import cards
from server.games.klondike_core import fits_column

KING = 12


@dataclass
class BotResult:
    name: str
    status: str
    progress: dict[str, int]
    actions: int
    errors: int
    time_ms: int


GAPS_IDLE = 400  # actions without a card more in place before a Gaps bot resigns


def gaps_choice(view: dict[str, Any], strategy: str, rnd: random.Random) -> dict[str, Any]:
    """The next Gaps action for a view: a move, or a redeal when blocked."""
    legal: list[dict[str, Any]] = view["legal"]
    if not legal:
        return {"kind": "redeal"}
    if strategy == "random":
        return {"kind": "move", **rnd.choice(legal)}
    grid = view["grid"]
    runs = [_run(row) for row in grid]
    where = {grid[r][c]: (r, c) for r in range(4) for c in range(13) if grid[r][c]}

    def value(move: dict[str, Any]) -> float:
        r, c = move["to"]
        sr, sc = where[move["card"]]
        score = rnd.random()
        if c == runs[r]:
            score += 100  # extends a run from column 0
        if sc < runs[sr]:
            score -= 200  # would break a run
        if sc > 0 and grid[sr][sc - 1] and grid[sr][sc - 1][0] == "K":
            score -= 30  # the new gap would sit after a King: dead
        if move["card"][0] == "K" and c < 12 and grid[r][c + 1] is None:
            score -= 20  # a King placed before a gap kills it
        return score

    best = max(legal, key=value)
    return {"kind": "move", **best}


def _run(row: list[str | None]) -> int:
    first = row[0]
    if first is None or first[0] != "2":
        return 0
    n, card = 1, cards.parse(first)
    while n < 12:
        code = row[n]
        if code is None or cards.parse(code) != card + n:
            break
        n += 1
    return n


def klondike_choice(view: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A sensible Klondike action from what the view shows; draw when nothing else."""
    found = view["foundations"]
    cols = view["tableau"]
    waste = view["waste"][-1] if view["waste"] else None

    def goes_up(code: str) -> bool:
        top = found[code[1]]
        return cards.rank(cards.parse(code)) == (
            0 if top is None else cards.rank(cards.parse(top)) + 1
        )

    def fits(code: str, t: int) -> bool:
        return fits_column(cards.parse(code), tuple(cards.parse(c) for c in cols[t]["up"]))

    for i, col in enumerate(cols):
        if col["up"] and goes_up(col["up"][-1]):
            return {"kind": "move", "from": f"t{i}", "to": "f" + col["up"][-1][1]}
    if waste and goes_up(waste):
        return {"kind": "move", "from": "waste", "to": "f" + waste[1]}
    for i, col in enumerate(cols):
        if col["up"] and (col["down"] or col["up"][0][0] != "K"):
            for t in range(7):
                if t != i and fits(col["up"][0], t):
                    return {"kind": "move", "from": f"t{i}", "to": f"t{t}", "count": len(col["up"])}
    if waste:
        for t in range(7):
            if fits(waste, t):
                return {"kind": "move", "from": "waste", "to": f"t{t}"}
    return fallback(view)


def fallback(view: dict[str, Any]) -> dict[str, Any]:
    """Draw while the stock (or a recycle) allows; otherwise give up."""
    can_draw = view["stock"] or (view["waste_count"] and view["recycles_left"] != 0)
    return {"kind": "draw"} if can_draw else {"kind": "resign"}


async def play_bot(
    url: str,
    tournament: int,
    name: str,
    strategy: str = "greedy",
    think_ms: int = 0,
    seed: int | None = None,
    max_actions: int = 5000,
    frames: list[str] | None = None,
    receipts: ReceiptBook | None = None,
) -> BotResult:
    """Register `name`, join, play until the game ends (or max_actions), return the result;
    `frames`, when given, collects every frame received; `receipts`, when given, keeps the
    receipt of every STATE (written at most once a second, and when the bot stops)."""
    rnd = random.Random(seed)
    conn = Connection(url)
    conn.frames = frames
    conn.receipts = receipts
    try:
        async with conn:
            return await _play(conn, tournament, name, strategy, think_ms, rnd, max_actions)
    finally:
        if receipts is not None:
            receipts.flush()


async def _play(
    conn: Connection,
    tournament: int,
    name: str,
    strategy: str,
    think_ms: int,
    rnd: random.Random,
    max_actions: int,
) -> BotResult:
    """Play one game on an open connection (see play_bot)."""
    registered = await conn.call("register", name=name, bot=True)  # never rated
    conn.token, conn.player = registered["token"], registered["player"]
    state = await conn.call("join", tournament=tournament)
    acted = errors = idle = 0
    last_cards_home = -1
    while state["status"] == "playing" and acted < max_actions:
        view = state["view"]
        if state["game"] == "gaps":
            # free_parking lets a card go back and forth: a game that stops gaining ends
            in_place = state["progress"]["cards_in_place"]
            idle = 0 if in_place != last_cards_home else idle + 1
            last_cards_home = in_place
            action = {"kind": "resign"} if idle > GAPS_IDLE else gaps_choice(view, strategy, rnd)
        else:
            home = state["progress"]["cards_home"]
            idle = 0 if home != last_cards_home else idle + 1
            last_cards_home = home
            stuck = idle > 2 * (view["stock"] + view["waste_count"]) + 10
            action = {"kind": "resign"} if stuck else klondike_choice(view, rnd)
        if think_ms:
            await asyncio.sleep(think_ms / 1000)
        try:
            state = await act(conn, tournament, state["seq"] + 1, action)
            acted += 1
        except ServerError as exc:
            errors += 1
            if exc.code != "illegal_action" or errors > 50:
                break
            if state["game"] == "klondike":
                state = await act(conn, tournament, state["seq"] + 1, fallback(state["view"]))
    return BotResult(name, state["status"], state["progress"], acted, errors, state["time_ms"])


async def act(
    conn: Connection, tournament: int, seq: int, action: dict[str, Any], tries: int = 5
) -> dict[str, Any]:
    """The STATE after `action`; an `internal` error (not acknowledged) is retried with the
    same seq and action, which the server answers as a duplicate if it was stored."""
    for attempt in range(1, tries):
        try:
            return await conn.call("act", tournament=tournament, seq=seq, action=action)
        except ServerError as exc:
            if exc.code != "internal":
                raise
            await asyncio.sleep(0.2 * attempt)
    return await conn.call("act", tournament=tournament, seq=seq, action=action)


async def run_bots(
    url: str,
    tournament: int,
    players: int,
    strategy: str = "greedy",
    think_ms: int = 0,
    prefix: str | None = None,
    receipts: ReceiptBook | None = None,
) -> list[BotResult]:
    """N bots at once; each reports its result (an exception becomes an 'error' result).
    With `receipts`, each bot's last receipt is saved (and fsynced once all have stopped)."""
    prefix = prefix or f"bot{secrets.token_hex(3)}"
    tasks = [
        play_bot(url, tournament, f"{prefix}-{i}", strategy, think_ms, seed=i, receipts=receipts)
        for i in range(players)
    ]
    try:
        results = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        if receipts is not None:
            receipts.flush(final=True)
    out = []
    for i, r in enumerate(results):
        if isinstance(r, BaseException):
            out.append(BotResult(f"{prefix}-{i}", f"error: {r}", {}, 0, 1, 0))
        else:
            out.append(r)
    return out
