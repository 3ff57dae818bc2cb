"""Limits against hostile clients that are not one connection's business: connections
per address and in all, registrations per address, browsers' origins, the open-files
limit, and the log line a limit writes when it is hit (one per limit and address a
minute, so an attack cannot fill the log).

Every count here is bounded: tables keyed by address are swept when they grow past
`MAX_ADDRESSES`, so a flood of addresses cannot grow them without end either.
"""

from __future__ import annotations

import ipaddress
import logging
import resource
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger("samedeal.limits")

MAX_ADDRESSES = 100_000  # addresses a table keeps before it forgets the quiet ones
LOG_EVERY_S = 60.0  # one warning per limit and address this often, at most
NOFILE_RESERVE = 256  # file descriptors kept for the database, logs and /healthz


@dataclass(frozen=True, slots=True)
class ServeLimits:
    """The per-address and server-wide limits of `serve` (docs/LIMITS.md); 0 lifts
    one. The defaults are those of the command line; a server built in-process (tests,
    benches) gets `ServeLimits.none()` unless it asks."""

    max_connections: int = 10_000  # open connections in all (clamped to the fd limit)
    max_connections_per_ip: int = 64
    max_registrations_per_minute: int = 10  # per address
    idle_timeout: float = 60.0  # an unauthenticated connection silent this long closes
    allowed_origins: frozenset[str] = frozenset()  # besides the server's own origin
    trusted_proxies: tuple[str, ...] = ()  # networks whose X-Forwarded-For is believed
    link_code_ttl_s: int = 600  # v1.4: a device link's life (not a limit: never 0)
    max_sign_ins_per_minute: int = 60  # v1.4: passkey sign-ins per address (a classroom)
    public_origin: str | None = None  # v1.4: the passkeys' relying party (behind a proxy)

    @classmethod
    def none(cls) -> ServeLimits:
        return cls(0, 0, 0, 0.0, max_sign_ins_per_minute=0)


class TokenBucket:
    """`rate` per second with bursts of `burst`; `take` spends one token if there is one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        tokens = self.tokens + (now - self.stamp) * self.rate
        if tokens > self.burst:  # (not min(): one call less per message)
            tokens = self.burst
        self.stamp = now
        if tokens >= 1:
            self.tokens = tokens - 1
            return True
        self.tokens = tokens
        return False


class LimitLog:
    """One structured WARNING per (limit, address) per LOG_EVERY_S; the hits in between
    are counted and reported with the next line (`suppressed=N`)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._last: dict[tuple[str, str], tuple[float, int]] = {}
        self.hits = 0  # every hit, logged or not (for tests and /metrics)

    def hit(self, limit: str, ip: str, **fields: object) -> None:
        self.hits += 1
        now = self.clock()
        key = (limit, ip)
        last = self._last.get(key)
        if last is not None and now - last[0] < LOG_EVERY_S:
            self._last[key] = (last[0], last[1] + 1)
            return
        if len(self._last) >= MAX_ADDRESSES:
            self._last.clear()
        suppressed = 0 if last is None else last[1]
        self._last[key] = (now, 0)
        extra = "".join(f" {k}={v}" for k, v in fields.items())
        log.warning("limit_hit limit=%s ip=%s%s suppressed=%d", limit, ip, extra, suppressed)


class Connections:
    """Open connections per address and in all, and new connections per address: twice
    `max_per_ip` at once, then a tenth of it a second (at least one): a client closed
    for abuse that reconnects at once would cost a handshake each time."""

    def __init__(self, max_total: int, max_per_ip: int) -> None:
        self.max_total, self.max_per_ip = max_total, max_per_ip
        self.total = 0
        self.by_ip: dict[str, int] = {}
        self._new: dict[str, TokenBucket] = {}

    def admit(self, ip: str | None) -> str | None:
        """Count a new connection (from `ip`, unless None: a trusted proxy's, counted
        under its client by `admit_ip` once known); or the name of the limit it hits."""
        if self.max_total and self.total >= self.max_total:
            return "max_connections"
        if ip is not None and (refused := self.admit_ip(ip)) is not None:
            return refused
        self.total += 1
        return None

    def admit_ip(self, ip: str) -> str | None:
        held = self.by_ip.get(ip, 0)
        if self.max_per_ip and held >= self.max_per_ip:
            return "max_connections_per_ip"
        if self.max_per_ip:
            bucket = self._new.get(ip)
            if bucket is None:
                if len(self._new) >= MAX_ADDRESSES:
                    self._new.clear()
                rate = max(1.0, self.max_per_ip / 10)
                bucket = self._new[ip] = TokenBucket(rate, 2 * self.max_per_ip)
            if not bucket.take():
                return "new_connections_per_ip"
        self.by_ip[ip] = held + 1
        return None

    def release(self, ip: str | None) -> None:
        self.total -= 1
        if ip is None:
            return
        held = self.by_ip.get(ip, 1) - 1
        if held > 0:
            self.by_ip[ip] = held
        else:
            self.by_ip.pop(ip, None)


class Registrations:
    """At most `per_minute` registrations per address in any 60 s (0: no limit)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._times: dict[str, deque[float]] = {}

    def allow(self, ip: str) -> bool:
        """Count one registration from `ip` if it is within the limit."""
        if not self.per_minute:
            return True
        now = self.clock()
        times = self._times.get(ip)
        if times is None:
            if len(self._times) >= MAX_ADDRESSES:
                self._sweep(now)
            times = self._times[ip] = deque()
        while times and now - times[0] >= 60.0:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        return True

    def _sweep(self, now: float) -> None:
        for ip in [ip for ip, t in self._times.items() if not t or now - t[-1] >= 60.0]:
            del self._times[ip]


def origin_allowed(origin: str | None, host: str | None, allowed: Iterable[str]) -> bool:
    """A browser's WebSocket may come only from the server's own pages (the `Origin`'s
    host and port are the request's `Host`) or from an origin in `allowed`. A client
    that sends no Origin is not a browser, and no page can make a browser omit it."""
    if origin is None:
        return True
    if origin in allowed:
        return True
    parts = urllib.parse.urlsplit(origin)
    if parts.scheme not in ("http", "https") or host is None:
        return False
    own = host.lower()
    netloc = parts.netloc.lower()
    default = {"http": ":80", "https": ":443"}[parts.scheme]
    return netloc == own or netloc + default == own or netloc == own + default


def networks(texts: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Networks from addresses or CIDR texts; ValueError on a bad one."""
    return tuple(ipaddress.ip_network(t.strip(), strict=False) for t in texts if t.strip())


def trusted(ip: str, among: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]) -> bool:
    """Whether `ip` is in one of the trusted proxies' networks."""
    if not among:
        return False
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return any(address in net for net in among)


def forwarded_for(header: str | None) -> str | None:
    """The client a trusted proxy names: the last address of X-Forwarded-For (the one
    the proxy itself saw; those before it are the client's own word), or None."""
    if not header:
        return None
    last = header.rsplit(",", 1)[-1].strip()
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return None


def raise_nofile() -> int:
    """Raise the soft open-files limit to the hard limit; the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # a platform that refuses: keep what we have
            pass
    return soft


def connection_cap(wanted: int, nofile: int) -> int:
    """The server-wide connection cap: `wanted` (0: only the fd limit), never more than
    the open-files limit leaves after NOFILE_RESERVE, so accept() never fails for want
    of a descriptor (which would stop new players and /healthz alike)."""
    room = max(1, nofile - NOFILE_RESERVE)
    return room if wanted == 0 else min(wanted, room)
