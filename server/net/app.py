"""The server: WebSocket at /ws plus HTTP (healthz, metrics, bundle) on the same port."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import re
import signal
import time
import urllib.parse
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from typing import Any, TypeVar

import orjson
from websockets.http11 import Request, Response

from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.competition.standings import MAX_PAGE, Standings
from server.domain.timing import utcnow
from server.net import pages, protocol, series_http
from server.net.fanout import Fanout
from server.net.metrics import CONTENT_TYPE, Metrics
from server.net.ratings_http import RatingsHttp
from server.net.session import Abuse, Session
from server.net.transport import Limits, MessageHandler, WsConnection, WsServer
from server.store.cluster import Listener
from server.store.repository import Store

log = logging.getLogger("samedeal.server")
T = TypeVar("T")
LIMITS = Limits()  # 64 KiB messages, 32 queued, pings every 20 s (see transport.py)
TICK_S = 0.5
# Collect young garbage every 100,000 allocations instead of 700: with hundreds of
# requests in flight, the default promotes their short-lived objects to the old
# generation, whose full collections (tens of ms) then dominate the latency tail.
GC_THRESHOLDS = (100_000, 50, 100)
BUNDLE_PATH = re.compile(r"^/tournaments/(\d{1,10})/bundle\.json$")
STANDINGS_PATH = re.compile(r"^/tournaments/(\d{1,10})/standings\.json$")
STANDINGS_CACHE_S = 1.0  # a page of standings.json may be up to a second old


@dataclass
class App:
    """Everything one running server holds."""

    store: Store
    competition: Competition
    fanout: Fanout
    metrics: Metrics = field(default_factory=Metrics)
    inflight: int = 0
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    pages_cache: dict[tuple[int, int, int], tuple[float, str]] = field(default_factory=dict)
    listener: Listener | None = None  # the other nodes' notices (PostgreSQL)
    ratings_http: RatingsHttp | None = None  # v1.3 leaderboards, players, results.csv

    def opened(self, conn: WsConnection) -> MessageHandler:
        """A WebSocket connection is open: its session answers each message."""
        self.metrics.connections += 1
        session = Session(self.competition, self.fanout, self.metrics, conn)
        return functools.partial(self.on_message, conn, session)

    def closed(self, conn: WsConnection) -> None:
        self.metrics.connections -= 1
        self.fanout.drop(conn)

    async def on_message(self, conn: WsConnection, session: Session, frame: str | bytes) -> None:
        """Answer one message (or close the connection on sustained abuse)."""
        self.inflight += 1
        self.idle.clear()
        try:
            reply = await session.handle(frame)
        except Abuse:
            conn.close(1008, "rate limit abused")
            return
        finally:
            self.inflight -= 1
            if self.inflight == 0:
                self.idle.set()
        conn.send_text(orjson.dumps(reply))

    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
        """HTTP on the WebSocket's port: None lets /ws upgrade; other paths get an answer."""
        path = request.path.split("?")[0]
        if path == "/ws":
            return None
        if path == "/healthz":
            ok = await self.store.ping()
            status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
            return conn.respond(status, "ok\n" if ok else "database unavailable\n")
        if path == "/metrics":
            try:
                games = await self.store.games_by_status()
            except Exception:
                games = {}
            text = self.metrics.render(games).decode()
            return _typed(conn.respond(HTTPStatus.OK, text), CONTENT_TYPE)
        found = BUNDLE_PATH.match(path)
        if found:
            return await self._bundle(conn, int(found.group(1)))
        found = STANDINGS_PATH.match(path)
        if found:
            return await self._standings(conn, int(found.group(1)), request.path)
        series = await series_http.respond(self.competition, conn, path, request)  # v1.3 hook
        if series is not None:
            return series
        rated = await self._ratings_http().respond(conn, path, lambda: _page_query(request.path))
        if rated is not None:
            return rated
        return pages.page(path) or conn.respond(HTTPStatus.NOT_FOUND, "not found\n")

    def _ratings_http(self) -> RatingsHttp:
        if self.ratings_http is None:
            self.ratings_http = RatingsHttp(self.competition)
        return self.ratings_http

    async def _bundle(self, conn: WsConnection, tournament_id: int) -> Response:
        try:
            bundle = await self.competition.exports.bundle(tournament_id)
        except CompetitionError as exc:
            return conn.respond(HTTPStatus.NOT_FOUND, exc.message + "\n")
        body = orjson.dumps(bundle).decode()
        return _typed(conn.respond(HTTPStatus.OK, body), "application/json")

    async def _standings(self, conn: WsConnection, tournament_id: int, target: str) -> Response:
        """GET /tournaments/ID/standings.json?offset=O&limit=L: a `standings` page as
        JSON, cached for up to STANDINGS_CACHE_S."""
        try:
            offset, limit = _page_query(target)
        except ValueError as exc:
            return conn.respond(HTTPStatus.BAD_REQUEST, f"{exc}\n")
        key = (tournament_id, offset, limit)
        cached = self.pages_cache.get(key)
        now = time.monotonic()
        if cached is None or cached[0] <= now:
            try:
                view = await self.competition.standings.page(tournament_id, offset, limit)
            except CompetitionError as exc:
                return conn.respond(HTTPStatus.NOT_FOUND, exc.message + "\n")
            if len(self.pages_cache) > 10_000:
                self.pages_cache.clear()
            body = orjson.dumps(protocol.standings_message(tournament_id, view)).decode()
            cached = self.pages_cache[key] = (now + STANDINGS_CACHE_S, body)
        response = _typed(conn.respond(HTTPStatus.OK, cached[1]), "application/json")
        response.headers["Cache-Control"] = f"max-age={int(STANDINGS_CACHE_S)}"
        return response


def _page_query(target: str) -> tuple[int, int]:
    """(offset, limit) from a query string; ValueError saying what is wrong."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query, max_num_fields=8)
    try:
        offset = int(query.get("offset", ["0"])[-1])
        limit = int(query.get("limit", [str(MAX_PAGE)])[-1])
    except ValueError:
        raise ValueError("offset and limit are whole numbers") from None
    if not 0 <= offset <= 2**31 - 1 or not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"offset is 0 or more; limit is 1 to {MAX_PAGE}")
    return offset, limit


def _typed(response: Response, content_type: str) -> Response:
    response.headers["Content-Type"] = content_type
    return response


async def open_store(url: str, attempts: int = 30) -> Store:
    """Open (and migrate) the database, waiting for it to come up."""
    for i in range(attempts):
        try:
            return await Store.open(url)
        except (OSError, ConnectionError) as exc:
            if i == attempts - 1:
                raise
            log.warning("database not ready (%s); retrying", exc)
            await asyncio.sleep(1)
        except Exception as exc:
            if i == attempts - 1 or "connect" not in str(exc).lower():
                raise
            log.warning("database not ready (%s); retrying", exc)
            await asyncio.sleep(1)
    raise RuntimeError("unreachable")


async def build_app(url: str, now: Callable[[], datetime] = utcnow, demo: bool = True) -> App:
    store = await open_store(url)
    catalogue = Catalogue(store, now)
    standings = Standings(store, catalogue, now)
    fanout = Fanout(standings)
    competition = Competition.build(store, fanout, now, catalogue=catalogue, standings=standings)
    await competition.lifecycle.start()
    if demo and (t := await competition.catalogue.create_demo_if_empty()) is not None:
        log.info("empty database: created demo tournament %s (Gaps, open 24 hours)", t.id)
    app = App(store, competition, fanout)
    app.listener = store.listener(competition.peers)
    if app.listener is not None:  # several nodes may serve this database
        app.listener.start()
    store.writer.on_batch = app.metrics.commit_batch.observe
    app.metrics.statements = store.statements
    return app


async def clock(app: App) -> None:
    while True:
        try:
            await app.competition.lifecycle.tick()
        except Exception:
            log.exception("lifecycle tick failed")
        await asyncio.sleep(TICK_S)


async def run(
    host: str,
    port: int,
    url: str,
    *,
    ready: Callable[[int], None] | None = None,
    stop: asyncio.Future[Any] | None = None,
    now: Callable[[], datetime] = utcnow,
    demo: bool = True,
    reuse_port: bool = False,
) -> None:
    """Serve until `stop` resolves (or SIGTERM/SIGINT), then shut down gracefully."""
    app = await build_app(url, now, demo)
    tune_gc()
    loop = asyncio.get_running_loop()
    if stop is None:
        stop = loop.create_future()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, _resolve, stop)
    server = WsServer(app, LIMITS)
    bound = await server.listen(host, port, reuse_port)
    log.info("listening on ws://%s:%s/ws", host, bound)
    if ready is not None:
        ready(bound)
    ticker = loop.create_task(clock(app))
    await stop
    await shutdown(server, app, ticker)


def _resolve(future: asyncio.Future[Any]) -> None:
    if not future.done():
        future.set_result(None)


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run `main` to completion on uvloop where it is installed (every platform but
    Windows), else on asyncio's own loop. The echo ceiling uses the same loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def tune_gc() -> None:
    """Move what start-up allocated out of the collector's sight and use GC_THRESHOLDS."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def shutdown(server: WsServer, app: App, ticker: asyncio.Task[None]) -> None:
    """Stop accepting, let in-flight actions finish, close connections with 1001."""
    server.stop_accepting()
    if app.inflight:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.idle.wait(), timeout=10)
    ticker.cancel()
    await server.close(1001)  # going away; waits for the closing handshakes
    if app.listener is not None:
        await app.listener.close()
    await app.competition.lifecycle.stop()
    await app.store.close()
    log.info("stopped")
