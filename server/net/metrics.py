"""A few Prometheus metrics, rendered as text exposition format 0.0.4."""

from __future__ import annotations

import bisect
from collections import Counter

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


class Histogram:
    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.total = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        i = bisect.bisect_left(self.buckets, value)
        if i < len(self.counts):
            self.counts[i] += 1
        self.total += 1
        self.sum += value

    def render(self, name: str) -> list[str]:
        lines, running = [], 0
        for bound, n in zip(self.buckets, self.counts, strict=True):
            running += n
            lines.append(f'{name}_bucket{{le="{bound:g}"}} {running}')
        lines.append(f'{name}_bucket{{le="+Inf"}} {self.total}')
        lines.append(f"{name}_sum {self.sum:.6f}")
        lines.append(f"{name}_count {self.total}")
        return lines


class Metrics:
    """Counters the transport updates; `render` adds the games-by-status gauge."""

    def __init__(self) -> None:
        self.connections = 0
        self.actions_accepted = 0
        self.actions_rejected: Counter[str] = Counter()
        self.action_seconds = Histogram(LATENCY_BUCKETS)
        self.commit_batch = Histogram(BATCH_BUCKETS)

    def render(self, games_by_status: dict[str, int]) -> str:
        lines = [
            "# HELP samedeal_connections Open WebSocket connections.",
            "# TYPE samedeal_connections gauge",
            f"samedeal_connections {self.connections}",
            "# HELP samedeal_actions_accepted_total Actions accepted and stored.",
            "# TYPE samedeal_actions_accepted_total counter",
            f"samedeal_actions_accepted_total {self.actions_accepted}",
            "# HELP samedeal_actions_rejected_total Actions refused, by error code.",
            "# TYPE samedeal_actions_rejected_total counter",
        ]
        lines += [
            f'samedeal_actions_rejected_total{{code="{code}"}} {n}'
            for code, n in sorted(self.actions_rejected.items())
        ]
        lines += [
            "# HELP samedeal_action_seconds Time from an act message to its reply.",
            "# TYPE samedeal_action_seconds histogram",
            *self.action_seconds.render("samedeal_action_seconds"),
            "# HELP samedeal_commit_batch_size Actions per group commit.",
            "# TYPE samedeal_commit_batch_size histogram",
            *self.commit_batch.render("samedeal_commit_batch_size"),
            "# HELP samedeal_games Games by status.",
            "# TYPE samedeal_games gauge",
        ]
        lines += [f'samedeal_games{{status="{s}"}} {n}' for s, n in sorted(games_by_status.items())]
        return "\n".join(lines) + "\n"
