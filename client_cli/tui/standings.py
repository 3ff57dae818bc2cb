"""`samedeal standings ID --follow`: a live standings viewer (Textual).

The live window the server pushes (PROTOCOL.md v1.2 `subscribe`): the top rows and the
rows around the saved player's own (an anonymous watcher sees the top only); and one page
of the whole table, fetched with `standings_page` and fetched again when the standings
change. A terminal of WIDE columns or more shows both side by side; a narrower one shows
the window until a paging key shows the page (l or Escape: the window again). Both
scroll (Up/Down) when taller than the terminal. Running clocks tick every second from
the window's `server_time` on the server's clock (render.RunningClock, synchronised by
the keepalive's ping). Keys: PgDn/n/space next page, PgUp/p/b previous, Home/g first
page, End/e last page, m the page with your row, q quit. Reconnects (and subscribes
again) by itself; a ping every few seconds notices a lost connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Footer, Static
from websockets.exceptions import WebSocketException

from client_cli.connection import Connection, ServerError, failure
from client_cli.tui import render
from server.i18n import terminal
from server.i18n.terminal import t, tn

PAGE_LIMIT = 100  # the protocol's largest standings_page
WIDE = 150  # columns from which the window and the page stand side by side


class StandingsApp(App[None]):
    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks only English
    CSS = """
    #head, #message { height: auto; padding: 0 1; }
    #message { color: $warning; }
    #panes { height: 1fr; }
    #live-box, #page-box { width: 1fr; height: 1fr; padding: 0 1; }
    #live, #page { width: auto; }
    .wide #page-box { border-left: solid $primary; }
    .narrow.show-live #page-box, .narrow.show-page #live-box { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # (their words in the language chosen before this module is imported: `samedeal
        # standings --follow` imports it only then)
        Binding("pagedown,n,space", "page(1)", t("cli.live.key.next")),
        Binding("pageup,p,b", "page(-1)", t("cli.live.key.previous")),
        Binding("home,g", "first", t("cli.live.key.first")),
        Binding("end,e", "last", t("cli.live.key.last")),
        Binding("m", "mine", t("cli.live.key.mine")),
        Binding("l,escape", "live", t("cli.live.key.live")),
        Binding("q", "quit", t("cli.live.key.quit")),
        # (replaces Textual's ctrl+c notice, which speaks only English)
        Binding("ctrl+c", "quit", show=False),
    ]

    def __init__(
        self,
        server: str,
        tournament: int,
        token: str | None = None,
        top: int | None = None,
        around: int | None = None,
        page_size: int = 20,
        keepalive_s: float = 5.0,
        clock: Callable[[], float] = time.time,
        game: str | None = None,
    ) -> None:
        super().__init__()
        self.server_url, self.tournament, self.token = server, tournament, token
        self.window_fields: dict[str, int] = {}
        if top is not None:
            self.window_fields["top"] = top
        if around is not None:
            self.window_fields["around"] = around
        self.page_size = max(1, min(page_size, PAGE_LIMIT))
        self.keepalive_s = keepalive_s
        self.conn: Connection | None = None
        self.me: str | None = None
        self.window: dict[str, Any] | None = None  # the live window (subscribe, pushes)
        self.page: dict[str, Any] | None = None  # the page shown (standings_page)
        self.offset = 0
        self.closed: dict[str, Any] | None = None
        self.page_fetches = 0
        self._pump: asyncio.Task[None] | None = None
        self._seen_reconnects = 0
        self._pinging = False
        self.running = render.RunningClock(clock)
        self.game = game
        self.failure: str | None = None  # why the viewer could not start, in one line
        self.showing = "live"  # on a narrow terminal: the window ("live") or the "page"

    def compose(self) -> ComposeResult:
        yield Static(t("cli.live.connecting"), id="head")
        with Horizontal(id="panes", classes="narrow show-live"):
            with VerticalScroll(id="live-box"):
                yield Static("", id="live")
            with VerticalScroll(id="page-box"):
                yield Static("", id="page")
        yield Static("", id="message")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        panes = self.query_one("#panes", Horizontal)
        panes.set_class(width >= WIDE, "wide")
        panes.set_class(width < WIDE, "narrow")
        panes.set_class(self.showing == "live", "show-live")
        panes.set_class(self.showing == "page", "show-page")

    def show(self, what: str) -> None:
        self.showing = what
        self._layout(self.size.width)

    async def on_mount(self) -> None:
        self.conn = Connection(self.server_url, token=self.token)
        try:
            await self.conn.connect()
            self.me = self.conn.player["name"] if self.conn.player else None
            if self.game is None:
                self.game = await self._game()
            await self._subscribe()
            await self._sync_clock()
        except ServerError as exc:
            self.failure = f"{exc.code}: {terminal.error_text(exc.reply)}"
        except (OSError, ConnectionError, WebSocketException) as exc:
            self.failure = failure(self.server_url, exc)
        if self.failure is not None:
            self.exit(return_code=1)
            return
        self._pump = asyncio.get_running_loop().create_task(self._pushes())
        self.fetch_page()
        self.set_interval(self.keepalive_s, self._keepalive)
        self.set_interval(1.0, self.refresh_view)  # the running clocks tick
        self._layout(self.size.width)

    async def on_unmount(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump
        if self.conn is not None:
            await self.conn.close()

    # -- talking ---------------------------------------------------------
    async def _game(self) -> str | None:
        assert self.conn is not None
        with contextlib.suppress(ServerError):
            for t in (await self.conn.call("tournaments"))["items"]:
                if t["id"] == self.tournament:
                    return str(t["game"])
        return None

    async def _sync_clock(self) -> None:
        """The server's clock from a ping's round trip (PROTOCOL.md: `pong.server_time`)."""
        assert self.conn is not None
        sent = self.running.clock()
        pong = await self.conn.call("ping")
        if isinstance(pong.get("server_time"), str):
            self.running.sync(pong["server_time"], sent, self.running.clock())

    async def _subscribe(self) -> None:
        assert self.conn is not None
        self.window = await self.conn.call(
            "subscribe", tournament=self.tournament, **self.window_fields
        )
        self.running.seen(self.window)
        self._seen_reconnects = self.conn.reconnects
        self.refresh_view()

    async def _pushes(self) -> None:
        assert self.conn is not None
        while True:
            msg = await self.conn.pushes.get()
            if msg.get("tournament") != self.tournament:
                continue
            if msg["type"] == "standings":
                self.window = msg
                self.running.seen(msg)
                if self.page is None or self.page.get("version") != msg.get("version"):
                    self.fetch_page()
            elif msg["type"] == "closed":
                first, self.closed = self.closed is None, msg
                self.fetch_page()
                if first:
                    with contextlib.suppress(ServerError, ConnectionError, OSError):
                        await self._subscribe()  # the final window
            self.refresh_view()

    def fetch_page(self) -> None:
        """(Re)load the page at `offset`; a newer request cancels an older one."""
        self._fetch_page(self.offset)

    @work(group="page", exclusive=True)
    async def _fetch_page(self, offset: int) -> None:
        """A worker: its coroutine is made when it starts, so one cancelled by a newer
        request first leaves none never awaited."""
        assert self.conn is not None
        try:
            page = await self.conn.call(
                "standings_page", tournament=self.tournament, offset=offset, limit=self.page_size
            )
        except ServerError as exc:
            self.message(
                t("cli.live.page_failed", why=f"{exc.code}: {terminal.error_text(exc.reply)}")
            )
            return
        except (ConnectionError, OSError):
            self.message(t("cli.live.lost"))
            return
        self.page_fetches += 1
        if offset == self.offset:
            self.page = {**page, "offset": offset}
            self.refresh_view()
        await self._resubscribe_if_reconnected()

    async def _keepalive(self) -> None:
        """A ping now and then: a lost connection is noticed, reopened, subscribed again."""
        if self._pinging or self.conn is None:
            return
        self._pinging = True
        try:
            await self._sync_clock()
            await self._resubscribe_if_reconnected()
        except (ServerError, ConnectionError, OSError):
            self.message(t("cli.live.lost"))
        finally:
            self._pinging = False

    async def _resubscribe_if_reconnected(self) -> None:
        assert self.conn is not None
        if self.conn.reconnects != self._seen_reconnects:
            await self._subscribe()
            self.fetch_page()
            self.message(t("cli.live.reconnected"))

    # -- paging ----------------------------------------------------------
    def total(self) -> int:
        for msg in (self.page, self.window):
            if msg is not None and isinstance(msg.get("total"), int):
                return int(msg["total"])
        return 0

    def go(self, offset: int) -> None:
        last = max(0, (self.total() - 1) // self.page_size * self.page_size)
        offset = max(0, min(offset, last))
        self.show("page")
        if offset != self.offset or self.page is None:
            self.offset = offset
            self.fetch_page()

    def action_page(self, step: int) -> None:
        self.go(self.offset + step * self.page_size)

    def action_first(self) -> None:
        self.go(0)

    def action_last(self) -> None:
        self.go(self.total())

    def action_live(self) -> None:
        self.show("live")

    def action_mine(self) -> None:
        rows = (self.window or {}).get("rows", [])
        mine = [r for r in rows if self.me and r["player"].casefold() == self.me.casefold()]
        if not mine:
            self.message(t("cli.live.no_row" if self.me else "cli.live.anonymous"))
            return
        rank = mine[0]["rank"]  # None: disqualified, listed after the ranked rows
        place = self.total() if rank is None else rank
        start = max(place - 1, 0) // self.page_size * self.page_size
        self.show("page")
        self.run_worker(self._find_me(start), group="page", exclusive=True)

    async def _find_me(self, offset: int, pages: int = 10) -> None:
        """Show the page holding my row: from the page of my rank, onwards (rows sharing a
        rank may put it on a later page)."""
        assert self.conn is not None and self.me is not None
        for _ in range(pages):
            try:
                page = await self.conn.call(
                    "standings_page",
                    tournament=self.tournament,
                    offset=offset,
                    limit=self.page_size,
                )
            except (ServerError, ConnectionError, OSError) as exc:
                self.message(t("cli.live.page_failed", why=exc))
                return
            self.page_fetches += 1
            rows = page.get("rows", [])
            here = any(r["player"].casefold() == self.me.casefold() for r in rows)
            if here or len(rows) < self.page_size:
                break
            offset += self.page_size
        self.offset, self.page = offset, {**page, "offset": offset}
        self.refresh_view()

    # -- showing ---------------------------------------------------------
    def message(self, text: str) -> None:
        self.query_one("#message", Static).update(text)

    def refresh_view(self) -> None:
        w = self.window
        if w is None:
            return
        state = t("cli.live.final" if w.get("final") or self.closed else "cli.live.live")
        who = t("cli.live.you_are", name=self.me) if self.me else t("cli.live.watching_top")
        head = tn(
            "cli.live.head",
            self.total(),
            tournament=self.tournament,
            state=state,
            version=w.get("version", "?"),
            who=who,
        )
        if self.closed is not None:
            head += "\n" + t("cli.live.closed_seed", seed=self.closed.get("seed", ""))
        self.query_one("#head", Static).update(head)
        rows = render.advance_rows(w.get("rows", []), self.running.elapsed_ms(w))
        live = render.standings_lines(rows, self.me, w.get("gap_after"), self.game)
        live.append("\n" + t("cli.live.window_mine" if self.me else "cli.live.window_top"))
        if self.size.width < WIDE:
            live.append("   " + t("cli.live.to_page"), style="dim")
        self.query_one("#live", Static).update(live)
        if self.page is not None:
            page_rows = self.page.get("rows", [])
            rows = render.advance_rows(page_rows, self.running.elapsed_ms(self.page))
            first = self.page["offset"] + 1
            text = render.standings_lines(rows, self.me, game=self.game)
            last, total = first + len(rows) - 1, self.total()
            text.append(
                "\n" + t("cli.live.rows", first=first, last=last, total=total)
                if rows
                else "\n" + t("cli.live.no_rows", first=first, total=total)
            )
            if self.size.width < WIDE:
                text.append("   " + t("cli.live.to_window"), style="dim")
            self.query_one("#page", Static).update(text)
