"""The server: WebSocket at /ws plus HTTP (healthz, metrics, bundle) on the same port."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import logging
import re
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from http import HTTPStatus
from typing import Any, TypeVar

import orjson
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.competition.beacon_policy import BeaconConfig
from server.competition.catalogue import Catalogue
from server.competition.errors import CompetitionError
from server.competition.ratings import start_worker as start_rating_worker
from server.competition.service import Competition
from server.competition.standings.reading import Standings
from server.competition.ticker import LoopScheduler, Scheduler, run_ticks
from server.domain.accounts import RelyingParty, relying_party
from server.domain.timing import utcnow
from server.net import pages, protocol, schedule_http
from server.net.connection import MessageHandler, WsConnection, access_log
from server.net.fanout import Fanout
from server.net.limits import (
    Registrations,
    ServeLimits,
    connection_cap,
    forwarded_for,
    origin_allowed,
    raise_nofile,
)
from server.net.metrics import CONTENT_TYPE, Metrics
from server.net.ratings_http import RatingsHttp, page_query
from server.net.response_cache import ResponseCache
from server.net.session import Abuse, Session
from server.net.transport import ConnectionLimits, WsServer
from server.ops import faults
from server.store.pg_coordination import Listener
from server.store.repository import Store

log = logging.getLogger("samedeal.server")
STARTUP_ATTEMPTS = 30  # start-up steps tried again while the database is away (1 s apart)
T = TypeVar("T")
LIMITS = ConnectionLimits()  # 64 KiB messages, 32 queued, pings every 20 s (see transport.py)
# Collect young garbage every 100,000 allocations instead of 700: with hundreds of
# requests in flight, the default promotes their short-lived objects to the old
# generation, whose full collections (tens of ms) then dominate the latency tail.
GC_THRESHOLDS = (100_000, 50, 100)
BUNDLE_PATH = re.compile(r"^/tournaments/(\d{1,10})/bundle\.json$")
STANDINGS_PATH = re.compile(r"^/tournaments/(\d{1,10})/standings\.json$")

TOO_MANY_TEXT = "too many connections\n"
ALLOW = "GET, HEAD, OPTIONS"  # the methods every path answers
# On every answer that is not a page (pages.py sends its own, with the page's CSP).
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)


@dataclass
class App:
    """Everything one running server holds."""

    store: Store
    competition: Competition
    fanout: Fanout
    metrics: Metrics = field(default_factory=Metrics)
    inflight: int = 0  # messages being answered
    drained: asyncio.Future[None] | None = None  # a shutdown waiting for inflight to be 0
    response_cache: ResponseCache = field(default_factory=ResponseCache)  # standings, ratings
    listener: Listener | None = None  # the other nodes' notices (PostgreSQL)
    serve_limits: ServeLimits = field(default_factory=ServeLimits.none)
    registrations: Registrations = field(default_factory=lambda: Registrations(0))
    sign_ins: Registrations = field(default_factory=lambda: Registrations(0))  # v1.4 passkeys
    ratings_http: RatingsHttp | None = None  # leaderboards, players, results.csv over HTTP

    def opened(self, conn: WsConnection) -> MessageHandler:
        """A WebSocket connection is open: its session answers each message."""
        self.metrics.connections += 1
        access_log.info("ws open ip=%s", conn.ip)
        may_register = functools.partial(self._may_register, conn)
        session = Session(self.competition, self.fanout, self.metrics, conn, may_register)
        session.may_sign_in = functools.partial(self._may_sign_in, conn)
        session.relying_party = functools.partial(self._relying_party, conn)
        return functools.partial(self.on_message, conn, session)

    def _may_sign_in(self, conn: WsConnection) -> bool:
        if self.sign_ins.allow(conn.ip):
            return True
        conn.limit_hit("max_sign_ins_per_minute", per_minute=self.sign_ins.per_minute)
        return False

    def _relying_party(self, conn: WsConnection) -> RelyingParty | None:
        """The passkeys' relying party for this connection (PROTOCOL.md "Accounts")."""
        limits = self.serve_limits
        return relying_party(limits.public_origin, conn.host, sorted(limits.allowed_origins))

    def _may_register(self, conn: WsConnection) -> bool:
        if self.registrations.allow(conn.ip):
            return True
        conn.limit_hit("max_registrations_per_minute", per_minute=self.registrations.per_minute)
        return False

    def closed(self, conn: WsConnection) -> None:
        self.metrics.connections -= 1
        self.fanout.drop(conn)
        self.competition.devices.forget(conn)  # v1.4: signed in no more

    async def on_message(self, conn: WsConnection, session: Session, frame: str | bytes) -> None:
        """Answer one message (or close the connection on sustained abuse)."""
        self.inflight += 1
        try:
            reply = await session.handle(frame)
        except Abuse:
            conn.close(1008, "rate limit abused")
            return
        finally:
            self.inflight -= 1
            if self.inflight == 0 and self.drained is not None and not self.drained.done():
                self.drained.set_result(None)
        if not conn.engaged and (session.player is not None or self._watches(conn)):
            conn.engaged = True  # authenticated or watching: no idle timeout
        conn.send_text(orjson.dumps(reply))

    def _watches(self, conn: WsConnection) -> bool:
        return any(conn in room.subscribers for room in self.fanout.rooms.values())

    async def respond_http(self, conn: WsConnection, request: Request) -> Response | None:
        """HTTP on the WebSocket's port: None lets /ws upgrade; other paths get an answer.
        GET and HEAD (the same head, no body) are answered; OPTIONS says what is
        allowed; any other method is 405. Every answer that is not a page carries one
        Content-Type and the SECURITY_HEADERS."""
        method = request.method
        path = request.path.split("?")[0]
        if conn.proxied and conn.counted_ip is None:
            client = forwarded_for(request.headers.get("X-Forwarded-For"))
            if client is not None and not conn.forwarded(client):
                return _secure(conn.respond(HTTPStatus.SERVICE_UNAVAILABLE, TOO_MANY_TEXT))
        if method == "OPTIONS":
            response = _empty(HTTPStatus.NO_CONTENT)
        elif method not in ("GET", "HEAD") or (method == "HEAD" and path == "/ws"):
            response = _secure(conn.respond(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed\n"))
            response.headers["Allow"] = ALLOW
        elif path == "/ws":
            if not origin_allowed(
                request.headers.get("Origin"),
                request.headers.get("Host"),
                self._own_origins(),
            ):
                conn.limit_hit("origin", origin=_short(request.headers.get("Origin")))
                response = _secure(conn.respond(HTTPStatus.FORBIDDEN, "origin not allowed\n"))
            else:
                conn.host = request.headers.get("Host")  # v1.4: the passkeys' default RP
                return None
        else:
            response = _secure(await self._get(conn, request, path))
        access_log.info(
            "http ip=%s method=%s path=%s status=%d",
            conn.ip,
            method[:10],
            _short(request.path),
            response.status_code,
        )
        if method == "HEAD":
            response = Response(response.status_code, response.reason_phrase, response.headers, b"")
        return response

    def _own_origins(self) -> frozenset[str]:
        """Origins allowed besides the request's own: --allowed-origin, --public-origin."""
        public = self.serve_limits.public_origin
        allowed = self.serve_limits.allowed_origins
        return allowed if public is None else allowed | {public}

    async def _get(self, conn: WsConnection, request: Request, path: str) -> Response:
        if path == "/healthz":
            ok = await self.competition.health.ping()
            status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
            return conn.respond(status, "ok\n" if ok else "database unavailable\n")
        if path == "/metrics":
            try:
                games = await self.competition.health.games_by_status()
            except Exception:
                games = {}
            text = self.metrics.render(games).decode()
            return _typed(conn.respond(HTTPStatus.OK, text), CONTENT_TYPE)
        found = BUNDLE_PATH.match(path)
        if found:
            return await self._bundle(conn, int(found.group(1)), request)
        found = STANDINGS_PATH.match(path)
        if found:
            return await self._standings(conn, int(found.group(1)), request.path)
        series = await schedule_http.respond(self.competition, conn, path, request)
        if series is not None:
            return series
        rated = await self._ratings_http().respond(conn, path, lambda: page_query(request.path))
        if rated is not None:
            return rated
        page = pages.page(path, request.headers.get("If-None-Match"))
        return page or conn.respond(HTTPStatus.NOT_FOUND, "not found\n")

    def _ratings_http(self) -> RatingsHttp:
        if self.ratings_http is None:
            self.ratings_http = RatingsHttp(self.competition, self.response_cache)
        return self.ratings_http

    async def _bundle(self, conn: WsConnection, tournament_id: int, request: Request) -> Response:
        """The bundle's bytes from the cache (built once per closed tournament); gzip
        when the client accepts it."""
        try:
            built = await self.competition.bundles.get(tournament_id)
        except CompetitionError as exc:
            return conn.respond(HTTPStatus.NOT_FOUND, exc.message + "\n")
        gzip = "gzip" in request.headers.get("Accept-Encoding", "").lower()
        body = built.gzip if gzip else built.plain
        headers = Headers(
            [
                ("Content-Type", "application/json"),
                ("Content-Length", str(len(body))),
                ("Vary", "Accept-Encoding"),
                ("Cache-Control", "no-cache"),
            ]
        )
        if gzip:
            headers["Content-Encoding"] = "gzip"
        return Response(HTTPStatus.OK, HTTPStatus.OK.phrase, headers, body)

    async def _standings(self, conn: WsConnection, tournament_id: int, target: str) -> Response:
        """GET /tournaments/ID/standings.json?offset=O&limit=L: a `standings` page as
        JSON, cached for up to a second (ResponseCache)."""
        try:
            offset, limit = page_query(target)
        except ValueError as exc:
            return conn.respond(HTTPStatus.BAD_REQUEST, f"{exc}\n")

        async def page() -> tuple[str, str]:
            view = await self.competition.standings.page(tournament_id, offset, limit)
            body = orjson.dumps(protocol.standings_message(tournament_id, view)).decode()
            return "application/json", body

        try:
            kind, body = await self.response_cache.get(("s", tournament_id, offset, limit), page)
        except CompetitionError as exc:
            return conn.respond(HTTPStatus.NOT_FOUND, exc.message + "\n")
        response = _typed(conn.respond(HTTPStatus.OK, body), kind)
        response.headers["Cache-Control"] = f"max-age={int(self.response_cache.ttl_s)}"
        return response


def _typed(response: Response, content_type: str) -> Response:
    """The response with `content_type` as its only Content-Type."""
    del response.headers["Content-Type"]
    response.headers["Content-Type"] = content_type
    return response


def _secure(response: Response) -> Response:
    """Add the SECURITY_HEADERS a response does not carry already (pages carry theirs)."""
    for name, value in SECURITY_HEADERS:
        if name not in response.headers:
            response.headers[name] = value
    return response


def _empty(status: HTTPStatus) -> Response:
    headers = Headers([("Allow", ALLOW), ("Content-Length", "0")])
    return _secure(Response(status, status.phrase, headers, b""))


def _short(text: str | None) -> str:
    return "-" if text is None else repr(text[:100])


async def open_store(url: str, attempts: int = 30) -> Store:
    """Open (and migrate) the database, waiting for it to come up."""
    for i in range(attempts):
        try:
            return await Store.open(url)
        except Exception as exc:
            away = faults.kind_of(exc) == "database" or "connect" in str(exc).lower()
            if i == attempts - 1 or not away:
                raise
            log.warning("database not ready (%s); retrying", faults.one_line(exc))
            await asyncio.sleep(1)
    raise RuntimeError("unreachable")


async def build_app(
    url: str,
    now: Callable[[], datetime] = utcnow,
    demo: bool = True,
    serve_limits: ServeLimits | None = None,
    beacon: BeaconConfig | None = None,
) -> App:
    store = await open_store(url)
    start_rating_worker()  # ratings at the close run in it (competition/ratings.py)
    for attempt in range(STARTUP_ATTEMPTS):  # PostgreSQL restarting as the node starts
        try:
            return await _assemble(store, now, demo, serve_limits, beacon)
        except Exception as exc:
            if attempt == STARTUP_ATTEMPTS - 1 or faults.kind_of(exc) != "database":
                await store.close()
                raise
            log.warning("database away during start-up (%s); retrying", faults.one_line(exc))
            await asyncio.sleep(1)
    raise RuntimeError("unreachable")


async def _assemble(
    store: Store,
    now: Callable[[], datetime],
    demo: bool,
    serve_limits: ServeLimits | None,
    beacon: BeaconConfig | None,
) -> App:
    """The competition and the app on an open store (everything it reads at start-up)."""
    serve_limits = serve_limits or ServeLimits.none()
    catalogue = Catalogue(store, now, beacon_config=beacon)
    standings = Standings(store, catalogue, now)
    fanout = Fanout(standings)
    competition = Competition.build(
        store,
        fanout,
        now,
        catalogue=catalogue,
        standings=standings,
        link_ttl_s=serve_limits.link_code_ttl_s,  # v1.4 accounts
    )
    competition.lifecycle.enable_par()  # par after each close (competition/par.py)
    await competition.lifecycle.start()
    if demo and (t := await competition.catalogue.create_demo_if_empty()) is not None:
        log.info("empty database: created demo tournament %s (Gaps, open 24 hours)", t.id)
    app = App(store, competition, fanout)
    app.serve_limits = serve_limits
    app.registrations = Registrations(app.serve_limits.max_registrations_per_minute)
    app.sign_ins = Registrations(app.serve_limits.max_sign_ins_per_minute)  # v1.4 passkeys
    app.listener = store.listener(competition.peers)
    if app.listener is not None:  # several nodes may serve this database
        app.listener.start()
    store.writer.on_batch = app.metrics.commit_batch.observe
    app.metrics.statements = store.statements
    return app


async def clock(app: App, scheduler: Scheduler | None = None) -> None:
    """The lifecycle's clock task (competition/ticker.py): on the event loop's time
    unless a test passes the scheduler it drives."""
    await run_ticks(app.competition.lifecycle.tick, scheduler or LoopScheduler())


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
    serve_limits: ServeLimits | None = None,
    beacon: BeaconConfig | None = None,
) -> None:
    """Serve until `stop` resolves (or SIGTERM/SIGINT), then shut down gracefully.
    `serve_limits`: the per-address and server-wide limits (none unless given; the
    command line gives its defaults); the open-files limit is raised to its hard one.
    `beacon`: the beacon networks and relays (--beacon-*)."""
    chosen = serve_limits or ServeLimits.none()
    app = await build_app(url, now, demo, chosen, beacon)
    tune_gc()
    loop = asyncio.get_running_loop()
    if stop is None:
        stop = loop.create_future()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, _resolve, stop)
    server = WsServer(app, transport_limits(chosen))
    bound = await server.listen(host, port, reuse_port)
    log.info("listening on ws://%s:%s/ws", host, bound)
    if ready is not None:
        ready(bound)
    ticker = loop.create_task(clock(app))
    await stop
    await shutdown(server, app, ticker)


def transport_limits(chosen: ServeLimits) -> ConnectionLimits:
    """The transport's limits for `chosen`, after raising the open-files limit: the
    connection cap never lets accept() run out of descriptors."""
    nofile = raise_nofile()
    return dataclasses.replace(
        LIMITS,
        max_connections=connection_cap(chosen.max_connections, nofile),
        max_connections_per_ip=chosen.max_connections_per_ip,
        idle_timeout=chosen.idle_timeout,
        trusted_proxies=chosen.trusted_proxies,
    )


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
        app.drained = asyncio.get_running_loop().create_future()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(app.drained, timeout=10)
    ticker.cancel()
    await server.close(1001)  # going away; waits for the closing handshakes
    if app.listener is not None:
        await app.listener.close()
    await app.competition.lifecycle.stop()
    await app.store.close()
    log.info("stopped")
