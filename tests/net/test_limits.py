"""The limits that are not one connection's business (server/net/limits.py): token
buckets, connections per address and in all, registrations per address a minute, the
rate-limited log of hits, browsers' origins, trusted proxies and the descriptors' cap.
Time is driven (a clock passed in, or a bucket's stamp moved back), never waited for."""

from __future__ import annotations

import ipaddress
import logging
import resource
from types import SimpleNamespace

import pytest

from server.net import limits
from server.net.limits import (
    Connections,
    LimitLog,
    Registrations,
    ServeLimits,
    TokenBucket,
    connection_cap,
    forwarded_for,
    networks,
    origin_allowed,
    trusted,
)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The monotonic clock the module's token buckets read, moved by the test."""
    clock = Clock()
    monkeypatch.setattr(limits, "time", SimpleNamespace(monotonic=clock))
    return clock


def test_in_process_servers_have_every_limit_lifted() -> None:
    none = ServeLimits.none()
    assert (none.max_connections, none.max_connections_per_ip) == (0, 0)
    assert (none.max_registrations_per_minute, none.max_sign_ins_per_minute) == (0, 0)
    assert none.idle_timeout == 0.0 and none.link_code_ttl_s == 600  # a life, not a limit
    assert ServeLimits().max_connections_per_ip == 64  # the command line's defaults


def test_a_bucket_spends_its_burst_then_refills_at_its_rate_up_to_the_burst(
    clock: Clock,
) -> None:
    bucket = TokenBucket(rate=2.0, burst=3.0)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.t += 0.25  # half a token
    assert not bucket.take()
    clock.t += 0.25  # a whole one now
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.t += 100.0  # long quiet: no more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_connections_in_all_and_per_address_are_counted_and_released() -> None:
    counts = Connections(max_total=3, max_per_ip=2)
    assert [counts.admit("10.0.0.1") for _ in range(3)] == [None, None, "max_connections_per_ip"]
    assert counts.admit(None) is None  # a trusted proxy's: counted in all only
    assert counts.admit("10.0.0.2") == "max_connections"
    assert (counts.total, counts.by_ip) == (3, {"10.0.0.1": 2})
    counts.release("10.0.0.1")
    counts.release(None)
    assert (counts.total, counts.by_ip) == (1, {"10.0.0.1": 1})
    counts.release("10.0.0.1")
    assert (counts.total, counts.by_ip) == (0, {})  # an address with none is forgotten


def test_new_connections_per_address_are_rate_limited_beyond_twice_the_cap(
    clock: Clock,
) -> None:
    counts = Connections(max_total=0, max_per_ip=2)
    for _ in range(4):  # 2 x max_per_ip at once, each closed again
        assert counts.admit("10.0.0.1") is None
        counts.release("10.0.0.1")
    assert counts.admit("10.0.0.1") == "new_connections_per_ip"
    assert counts.admit("10.0.0.2") is None  # another address has its own bucket
    clock.t += 1.0  # then a tenth of the cap a second, at least one
    assert counts.admit("10.0.0.1") is None and counts.admit("10.0.0.1") is not None
    assert Connections(0, 0).admit_ip("10.0.0.1") is None  # 0: no limit at all


def test_registrations_per_address_in_any_sixty_seconds() -> None:
    clock = Clock()
    registrations = Registrations(per_minute=2, clock=clock)
    assert [registrations.allow("10.0.0.1") for _ in range(3)] == [True, True, False]
    assert registrations.allow("10.0.0.2")
    clock.t += 59.9
    assert not registrations.allow("10.0.0.1")
    clock.t += 0.1  # the first two are a minute old now
    assert [registrations.allow("10.0.0.1") for _ in range(3)] == [True, True, False]
    unlimited = Registrations(per_minute=0, clock=clock)
    assert all(unlimited.allow("10.0.0.1") for _ in range(100))


def test_a_flood_of_addresses_forgets_the_quiet_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_ADDRESSES", 2)
    clock = Clock()
    registrations = Registrations(per_minute=1, clock=clock)
    assert registrations.allow("10.0.0.1") and registrations.allow("10.0.0.2")
    clock.t += 60.0
    assert registrations.allow("10.0.0.3")  # the table was full: the quiet two swept
    assert set(registrations._times) == {"10.0.0.3"}
    assert not registrations.allow("10.0.0.3")  # what it still holds still counts


def test_the_limit_log_says_once_a_minute_per_address_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    limit_log = LimitLog(clock=lambda: now[0])
    caplog.set_level(logging.WARNING, "samedeal.limits")
    for _ in range(5):
        limit_log.hit("rate", "10.0.0.1", frame="ping")
    limit_log.hit("rate", "10.0.0.2", frame="ping")
    now[0] = 61.0
    limit_log.hit("rate", "10.0.0.1", frame="ping")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "limit_hit limit=rate ip=10.0.0.1 frame=ping suppressed=0",
        "limit_hit limit=rate ip=10.0.0.2 frame=ping suppressed=0",
        "limit_hit limit=rate ip=10.0.0.1 frame=ping suppressed=4",
    ]
    assert limit_log.hits == 7


@pytest.mark.parametrize(
    ("origin", "host", "allowed", "ok"),
    [
        (None, "play.example", (), True),  # not a browser
        ("https://play.example", "play.example", (), True),
        ("http://127.0.0.1:8765", "127.0.0.1:8765", (), True),
        ("https://play.example:443", "play.example", (), True),
        ("https://play.example", "play.example:443", (), True),
        ("https://PLAY.example", "play.EXAMPLE", (), True),
        ("https://evil.example", "play.example", (), False),
        ("https://play.example.evil.example", "play.example", (), False),
        ("null", "play.example", (), False),
        ("ftp://play.example", "play.example", (), False),
        ("https://play.example", None, (), False),
        ("http://127.0.0.1:9999", "127.0.0.1:8765", (), False),
        ("https://friend.example", "play.example", ("https://friend.example",), True),
    ],
)
def test_origins(origin: str | None, host: str | None, allowed: tuple[str, ...], ok: bool) -> None:
    assert origin_allowed(origin, host, allowed) is ok


def test_trusted_proxies_and_the_client_they_name() -> None:
    proxies = networks(["10.0.0.0/8", " 192.168.1.7 ", "", "::1"])
    assert proxies == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("192.168.1.7/32"),
        ipaddress.ip_network("::1/128"),
    )
    assert trusted("10.1.2.3", proxies) and trusted("::1", proxies)
    assert not trusted("192.168.1.8", proxies) and not trusted("unix", proxies)
    assert not trusted("10.1.2.3", ())
    with pytest.raises(ValueError):
        networks(["not-an-address"])
    assert forwarded_for("1.2.3.4, 5.6.7.8") == "5.6.7.8"  # the one the proxy saw
    assert forwarded_for(" 2001:db8::1 ") == "2001:db8::1"
    assert forwarded_for("1.2.3.4, junk") is None
    assert forwarded_for("") is None and forwarded_for(None) is None


def test_the_connection_cap_leaves_descriptors_for_the_rest() -> None:
    assert connection_cap(0, 10_000) == 10_000 - limits.NOFILE_RESERVE
    assert connection_cap(500, 10_000) == 500
    assert connection_cap(50_000, 10_000) == 10_000 - limits.NOFILE_RESERVE
    assert connection_cap(0, 100) == 1  # never none at all
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert limits.raise_nofile() >= before[0]
    assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= before[0]
