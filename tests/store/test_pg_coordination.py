"""PostgreSQL's side of coordinating nodes (pg_coordination.py): a notice line carries an
entry's figures and reads back equal (its listener and locks run against PostgreSQL in
test_dead_connections.py and tests/e2e/)."""

from __future__ import annotations

from server.domain.model import EntryNotice
from server.store import pg_coordination
from tests.store.test_rows import FIGURES, SUMMARY


def test_a_notice_line_carries_the_figures_and_reads_back_equal() -> None:
    line = pg_coordination.entry_line(7, 9, SUMMARY.seq, FIGURES)
    assert line == "a 7 9 91 won 48 2 57 123456"  # the line other nodes parse, unchanged
    assert pg_coordination.parse(line) == [EntryNotice(7, 9, 91, FIGURES)]
