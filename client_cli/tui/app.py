"""`samedeal play`: a full-screen Textual client for Gaps and Klondike.

Gaps: Left/Right select a gap, the status line shows the card that fits, Enter plays
it; or type a card code (6H, 10h, 6♥). `redeal` when blocked; `resign` asks to confirm.
Klondike: `d` draw, `a` auto, `h` hint, `t3 t5 2` (from, to, count), `w t2`, `t0 f`.
The server's reason is shown for every refused action, and the client's own for a line
it cannot read; nothing typed ends the app. Reconnects by itself. A failure to start
(the server gone, the token refused) ends the app with `failure` set, for one line.
With a ReceiptBook, the receipt of every STATE is kept (written at most once a second,
and when the app exits).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static
from websockets.exceptions import WebSocketException

from client_cli.config import ReceiptBook
from client_cli.connection import Connection, ServerError, failure, server_error_line
from client_cli.tui import render
from server.games import cards
from server.i18n import terminal
from server.i18n.terminal import t


class PlayApp(App[None]):
    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks only English
    CSS = """
    #board { width: 1fr; padding: 1 2; }
    #side { width: 38; border-left: solid $primary; padding: 0 1; }
    #status, #message, #clock { height: auto; padding: 0 2; }
    #message { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # (their words in the language chosen before this module is imported: `samedeal`
        # imports it only to play)
        Binding("left", "select(-1)", t("cli.play.prev_gap"), priority=True),
        Binding("right", "select(1)", t("cli.play.next_gap"), priority=True),
        Binding("ctrl+q", "quit", t("cli.play.quit"), priority=True),
        # (replaces Textual's ctrl+c notice, which speaks only English; the input box
        # still copies with it)
        Binding("ctrl+c", "quit", show=False),
    ]

    def __init__(
        self,
        server: str,
        token: str,
        tournament: int,
        receipts: ReceiptBook | None = None,
        join: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.server_url, self.token, self.tournament = server, token, tournament
        self.join = join or {}  # v1.4: an entry `code`, a battle's `club`
        self.receipts = receipts
        self.conn: Connection | None = None
        self.state: dict[str, Any] | None = None
        self.standings: dict[str, Any] | None = None
        self.me = ""
        self.selected: tuple[int, int] | None = None
        self.confirming_resign = False
        self.failure: str | None = None  # why the app ended early, in one line
        self.game: str | None = None
        self.variant = "gaps"  # the Gaps family member, from the tournament's SUMMARY
        self._pump: asyncio.Task[None] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical():
                yield Static(t("cli.play.connecting"), id="board")
                yield Static("", id="status")
                yield Static("", id="clock")
                yield Static("", id="message")
                yield Input(placeholder="", id="cmd")
            yield Static("", id="side")
        yield Footer()

    async def on_mount(self) -> None:
        self.conn = Connection(self.server_url, token=self.token)
        self.conn.receipts = self.receipts
        try:
            await self.conn.connect()
            assert self.conn.player is not None  # connect() authenticated with the token
            self.me = self.conn.player["name"]
            await self._resync()
        except ServerError as exc:
            self.failure = server_error_line(exc)
        except (OSError, ConnectionError, WebSocketException) as exc:
            self.failure = failure(self.server_url, exc)
        if self.failure is not None:
            self.exit(return_code=1)
            return
        self._pump = asyncio.get_running_loop().create_task(self._pushes())
        self.set_interval(1.0, self._tick)
        self.query_one("#cmd", Input).focus()

    async def on_unmount(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
        if self.conn is not None:
            await self.conn.close()
        if self.receipts is not None:
            self.receipts.flush(final=True)

    async def _resync(self) -> None:
        """Join (or resume) and subscribe: the server's state is the truth."""
        assert self.conn is not None
        self.state = await self.conn.call("join", tournament=self.tournament, **self.join)
        self.standings = await self.conn.call("subscribe", tournament=self.tournament)
        if self.game != self.state["game"]:
            self.game = self.state["game"]
            self.variant = await self._variant()
            self.query_one("#cmd", Input).placeholder = t(f"cli.play.help.{self.state['game']}")
            self.call_after_refresh(self.refresh_bindings)  # gap keys in Gaps only
        self._select_default()
        self.refresh_view()

    async def _variant(self) -> str:
        """The tournament's Gaps variant (its SUMMARY's options; `gaps` when absent)."""
        assert self.conn is not None
        for item in (await self.conn.call("tournaments"))["items"]:
            if item["id"] == self.tournament:
                return str(item["options"].get("variant", "gaps"))
        return "gaps"

    async def _pushes(self) -> None:
        assert self.conn is not None
        while True:
            msg = await self.conn.pushes.get()
            if msg["type"] == "standings":
                self.standings = msg
            elif msg["type"] == "closed":
                self.message(t("cli.play.closed", seed=msg["seed"][:16]))
                await self._try_resync()
            self.refresh_view()

    # -- showing ---------------------------------------------------------
    def refresh_view(self) -> None:
        if self.state is None:
            return
        board = self.query_one("#board", Static)
        status = self.query_one("#status", Static)
        if self.state["game"] == "gaps":
            board.update(render.gaps_grid(self.state["view"], self.selected, self.variant))
            status.update(render.gaps_status(self.state, self.selected))
        else:
            board.update(render.klondike_table(self.state["view"]))
            status.update(render.klondike_status(self.state))
        side = render.standings_text(self.standings, self.me, self.state["game"])
        self.query_one("#side", Static).update(side)
        self._tick()

    def _tick(self) -> None:
        if self.receipts is not None:
            self.receipts.flush_if_due()
        if self.state is None:
            return
        st = self.state
        now = datetime.now(UTC)
        deadline = datetime.fromisoformat(st["deadline"])
        if st["status"] == "playing":
            used = (now - datetime.fromisoformat(st["started_at"])).total_seconds() * 1000
            left = (deadline - now).total_seconds() * 1000
            text = t(
                "cli.play.clock",
                used=render.duration(used),
                left=render.duration(left),
                deadline=render.local(deadline, seconds=True),
            )
        else:
            text = t(
                "cli.play.clock_over",
                used=render.duration(st["time_ms"]),
                over=render.game_over(st),
            )
        self.query_one("#clock", Static).update(text)

    def message(self, text: str) -> None:
        self.query_one("#message", Static).update(text)

    # -- gap selection ---------------------------------------------------
    def _gaps(self) -> list[tuple[int, int]]:
        if self.state is None or self.state["game"] != "gaps":
            return []
        grid = self.state["view"]["grid"]
        return [(r, c) for r in range(4) for c in range(13) if grid[r][c] is None]

    def _select_default(self) -> None:
        gaps = self._gaps()
        targets = [tuple(m["to"]) for m in (self.state or {}).get("view", {}).get("legal", [])]
        if self.selected not in gaps:
            self.selected = next((g for g in gaps if g in targets), gaps[0] if gaps else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The gap keys exist (and show in the footer) in Gaps only."""
        return self.game == "gaps" if action == "select" else True

    def action_select(self, step: int) -> None:
        gaps = self._gaps()
        if not gaps:
            return
        i = gaps.index(self.selected) if self.selected in gaps else -1
        self.selected = gaps[(i + step) % len(gaps)]
        self.refresh_view()

    # -- commands --------------------------------------------------------
    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if self.state is None:
            return
        try:
            action = self.parse_command(text)
        except Exception as exc:  # a bug here must not drop the player to the shell
            self.message(t("cli.play.bug", text=repr(text[:30]), kind=type(exc).__name__))
            return
        if action is not None:
            await self.act(action)

    def parse_command(self, text: str) -> dict[str, Any] | None:
        """The action a typed line means, or None (with a message saying why)."""
        assert self.state is not None
        low = text.lower()
        if self.confirming_resign:
            self.confirming_resign = False
            if low in ("y", "yes", t("cli.play.yes").lower()):
                return {"kind": "resign"}
            self.message(t("cli.play.resign_cancelled"))
            return None
        if low == "resign":
            self.confirming_resign = True
            self.message(t("cli.play.resign_confirm", yes=t("cli.play.yes")))
            return None
        if self.state["game"] == "gaps":
            return self._gaps_command(text, low)
        return self._klondike_command(low)

    def _gaps_command(self, text: str, low: str) -> dict[str, Any] | None:
        assert self.state is not None
        if low == "redeal":
            return {"kind": "redeal"}
        legal = self.state["view"]["legal"]
        if not text:
            fits = [m for m in legal if self.selected and tuple(m["to"]) == self.selected]
            if not fits:
                self.message(t("cli.play.gap_takes_nothing"))
                return None
            return {"kind": "move", **fits[0]}
        try:
            code = cards.code(cards.parse(text))
        except ValueError:
            self.message(t("cli.play.bad_card", text=repr(text[:30])))
            return None
        moves = [m for m in legal if m["card"] == code]
        if not moves:
            self.message(t("cli.play.fits_no_gap", card=terminal.card(code)))
            return None
        chosen = next((m for m in moves if tuple(m["to"]) == self.selected), moves[0])
        return {"kind": "move", **chosen}

    def _klondike_command(self, low: str) -> dict[str, Any] | None:
        words = low.split()
        if low in ("d", "draw"):
            return {"kind": "draw"}
        if low in ("a", "auto"):
            return {"kind": "auto"}
        if low in ("h", "hint"):
            asyncio.get_running_loop().create_task(self._hint())
            return None
        if len(words) not in (2, 3) or (len(words) == 3 and not words[2].isdigit()):
            self.message(f"{low[:30]!r}? {t('cli.play.help.klondike')}")
            return None
        src, dst = _place(words[0]), _place(words[1])
        if dst == "f":
            dst = self._foundation_for(src)
        bad = next((w for w, p in ((words[0], src), (words[1], dst)) if p not in PLACES), None)
        if bad is not None:
            self.message(t("cli.play.no_place", place=repr(bad)))
            return None
        move: dict[str, Any] = {"kind": "move", "from": src, "to": dst}
        if len(words) == 3:
            move["count"] = int(words[2])
        return move

    def _foundation_for(self, src: str) -> str:
        """The foundation of the suit of the card on top of `src` ("f" when none)."""
        assert self.state is not None
        view = self.state["view"]
        if src == "waste":
            top = view["waste"][-1] if view["waste"] else None
        elif src in PLACES and src.startswith("t"):
            up = view["tableau"][int(src[1])]["up"]
            top = up[-1] if up else None
        else:
            top = None
        return "f" + top[1] if top else "f"

    async def _hint(self) -> None:
        assert self.conn is not None
        try:
            hint = await self.conn.call("hint", tournament=self.tournament)
        except ServerError as exc:
            self.message(terminal.error_text(exc.reply))
            return
        if hint["action"]:
            self.message(t("cli.play.hint", move=render.describe(hint["action"])))
        else:
            self.message(t("cli.play.no_moves"))

    async def act(self, action: dict[str, Any]) -> None:
        assert self.conn is not None and self.state is not None
        try:
            self.state = await self.conn.call(
                "act", tournament=self.tournament, seq=self.state["seq"] + 1, action=action
            )
            self.message("")
        except ServerError as exc:
            self.message(terminal.error_text(exc.reply))
            if exc.code == "out_of_sync":
                await self._try_resync()
        except (ConnectionError, OSError, WebSocketException):
            self.message(t("cli.play.reconnecting"))
            await self._try_resync()
        self._select_default()
        self.refresh_view()

    async def _try_resync(self) -> None:
        """Resync, or say why it failed (the next action tries again): never a crash."""
        try:
            await self._resync()
        except ServerError as exc:
            self.message(server_error_line(exc))
        except (ConnectionError, OSError, WebSocketException) as exc:
            self.message(t("cli.play.retry", why=failure(self.server_url, exc)))


PLACES = {"waste", "fC", "fD", "fH", "fS", *(f"t{i}" for i in range(7))}


def _place(word: str) -> str:
    """A typed place in the protocol's spelling (w → waste, fh → fH); others unchanged."""
    if word in ("w", "waste"):
        return "waste"
    if word.startswith("f") and len(word) == 2:
        return "f" + word[1].upper()
    return word
