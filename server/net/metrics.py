"""The server's Prometheus metrics, exposed through prometheus-client.

The hot path only bumps plain integers (`Metrics`); a collector turns them into metric
families when `/metrics` is scraped, beside the library's process metrics (CPU, memory,
open files), GC and platform collectors. Each server has its own registry.
"""

from __future__ import annotations

import bisect
import os
from collections import Counter
from collections.abc import Iterator, Mapping

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Histogram:
    """Observations counted per bucket (upper bounds), as plain integers."""

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)  # (the last: above every bound)
        self.total = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += 1
        self.total += 1
        self.sum += value

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        cumulative, running = [], 0
        for bound, n in zip(self.buckets, self.counts[:-1], strict=True):
            running += n
            cumulative.append((f"{bound:g}", float(running)))
        cumulative.append(("+Inf", float(self.total)))
        return HistogramMetricFamily(name, documentation, buckets=cumulative, sum_value=self.sum)


class Metrics:
    """Counters the server updates; `render` is the `/metrics` page."""

    def __init__(self) -> None:
        self.connections = 0
        self.actions_accepted = 0
        self.actions_rejected: Counter[str] = Counter()
        self.action_seconds = Histogram(LATENCY_BUCKETS)
        self.commit_batch = Histogram(BATCH_BUCKETS)
        self.games_by_status: dict[str, int] = {}
        self.statements: Mapping[str, int] = {}  # the store's statements by kind
        self.registry = CollectorRegistry(auto_describe=False)
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.registry.register(_ServerCollector(self))

    def render(self, games_by_status: dict[str, int]) -> bytes:
        """The exposition text, with the games-by-status gauge read by the caller."""
        self.games_by_status = games_by_status
        return generate_latest(self.registry)


class _ServerCollector(Collector):
    """samedeal_* metric families from a `Metrics`' plain counters."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        node = GaugeMetricFamily(
            "samedeal_node", "This server process (one node among several).", labels=["pid"]
        )
        node.add_metric([str(os.getpid())], 1)
        yield node
        yield GaugeMetricFamily(
            "samedeal_connections", "Open WebSocket connections.", value=m.connections
        )
        yield CounterMetricFamily(
            "samedeal_actions_accepted", "Actions accepted and stored.", value=m.actions_accepted
        )
        rejected = CounterMetricFamily(
            "samedeal_actions_rejected", "Actions refused, by error code.", labels=["code"]
        )
        for code, n in sorted(m.actions_rejected.items()):
            rejected.add_metric([code], n)
        yield rejected
        yield m.action_seconds.family(
            "samedeal_action_seconds", "Time from an act message to its reply."
        )
        yield m.commit_batch.family("samedeal_commit_batch_size", "Actions per group commit.")
        statements = CounterMetricFamily(
            "samedeal_db_statements",
            "Statements this process sent to the database, by kind.",
            labels=["kind"],
        )
        for kind, n in sorted(m.statements.items()):
            statements.add_metric([kind], n)
        yield statements
        games = GaugeMetricFamily("samedeal_games", "Games by status.", labels=["status"])
        for status, n in sorted(m.games_by_status.items()):
            games.add_metric([status], n)
        yield games
