"""The server's metrics (server/net/metrics.py): plain counters bumped on the hot path,
turned into Prometheus families only when `/metrics` is read."""

from __future__ import annotations

import os

from prometheus_client.parser import text_string_to_metric_families

from server.net.metrics import BATCH_BUCKETS, Histogram, Metrics


def samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
    }


def test_a_histogram_counts_each_observation_in_its_bucket_and_above_them_all() -> None:
    h = Histogram((1.0, 2.0, 4.0))
    for value in (0.5, 1.0, 1.5, 3.0, 9.0, 10.0):
        h.observe(value)
    assert h.counts == [2, 1, 1, 2]  # a value on a bound counts in that bound's bucket
    assert (h.total, h.sum) == (6, 25.0)
    family = h.family("x_seconds", "X.")
    buckets = {s.labels["le"]: s.value for s in family.samples if s.name == "x_seconds_bucket"}
    assert buckets == {"1": 2.0, "2": 3.0, "4": 4.0, "+Inf": 6.0}  # cumulative


def test_the_page_carries_the_servers_counters_and_the_games_read_for_it() -> None:
    m = Metrics()
    m.connections = 3
    m.actions_accepted = 7
    m.actions_rejected["illegal_action"] += 2
    m.action_seconds.observe(0.004)
    m.commit_batch.observe(5)
    m.statements = {"insert": 11, "select": 4}
    got = samples(m.render({"playing": 2, "won": 1}))
    assert got[("samedeal_node", (("pid", str(os.getpid())),))] == 1
    assert got[("samedeal_connections", ())] == 3
    assert got[("samedeal_actions_accepted_total", ())] == 7
    assert got[("samedeal_actions_rejected_total", (("code", "illegal_action"),))] == 2
    assert got[("samedeal_action_seconds_bucket", (("le", "0.005"),))] == 1
    assert got[("samedeal_action_seconds_bucket", (("le", "0.0025"),))] == 0
    assert got[("samedeal_action_seconds_count", ())] == 1
    assert got[("samedeal_commit_batch_size_bucket", (("le", "8"),))] == 1
    assert got[("samedeal_db_statements_total", (("kind", "insert"),))] == 11
    assert got[("samedeal_games", (("status", "playing"),))] == 2
    assert got[("samedeal_games", (("status", "won"),))] == 1
    assert any(name.startswith("process_") for name, _ in got)  # the library's own
    again = samples(m.render({}))  # the caller's reading replaces the last one
    assert not [key for key in again if key[0] == "samedeal_games"]


def test_each_server_has_its_own_registry() -> None:
    one, two = Metrics(), Metrics()
    one.connections = 5
    assert samples(two.render({}))[("samedeal_connections", ())] == 0
    assert len(two.commit_batch.counts) == len(BATCH_BUCKETS) + 1
