"""bench.rss_series --wire in miniature: the server a process of its own on a fresh
SQLite file, the players, the watcher and the operator real WebSocket connections; one
Gaps tournament of two players, the server's process tree read before and after it. The
long run (1,000 tournaments a game): docs/BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path

from bench.rss_series import summary, wire_series


async def test_one_tournament_over_the_wire_reads_the_servers_tree(tmp_path: Path) -> None:
    readings = await wire_series("gaps", 1, 2, tmp_path, 1)
    assert [r["n"] for r in readings] == [0, 1]
    end = readings[-1]["tree"]
    assert end["event loop"][0] == 1 and end["SQLite writer"][0] == 1, end
    assert all(pss > 0 and rss >= pss for _, pss, rss in end.values()), end
    row = summary("gaps", readings, 1, 1)[0]
    assert row.startswith("| gaps |") and "event loop ×1" in row, row
