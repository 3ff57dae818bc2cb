"""An entry's figures (domain.model.Figures) through the store's layouts: the columns both
writers' SQL takes (rows.summary_columns) and an entry row read back (rows.figures_of);
a notice line is test_pg_coordination.py's, a record's `result` tests/audit/
test_records.py's."""

from __future__ import annotations

import re

import pytest

from server.domain.model import Figures, Status, Summary
from server.store import pg_writer, sqlite_process
from server.store.models import Entry
from server.store.rows import figures_of, summary_columns

FIGURES = Figures(status=Status.WON, progress=48, resets=2, score=57, time_ms=123_456)
SUMMARY = Summary(FIGURES, seq=91, log_hash="ab" * 32)
COLUMNS = ("status", "progress", "resets", "score", "time_ms", "seq", "log_hash")


@pytest.mark.parametrize("sql", [pg_writer._UPDATE_ENTRY, sqlite_process.UPDATE_ENTRY])
def test_each_writer_updates_the_columns_in_summary_columns_order(sql: str) -> None:
    placed = dict(re.findall(r"(\w+) = (?:CASE )?[$?](\d+)", sql))
    assert [placed[c] for c in COLUMNS] == [str(i) for i in range(1, 8)]


@pytest.mark.parametrize("sql", [pg_writer._INSERT_ENTRIES, sqlite_process.INSERT_ENTRY])
def test_each_writer_inserts_the_summary_after_the_entrys_own_columns(sql: str) -> None:
    named = re.search(r"INSERT INTO entries \(([^)]*)\)", sql)
    assert named is not None
    columns = [c.strip() for c in named.group(1).split(",")]
    assert columns[4:11] == list(COLUMNS)


def test_a_row_written_from_summary_columns_reads_back_as_the_same_figures() -> None:
    row = Entry(**dict(zip(COLUMNS, summary_columns(SUMMARY), strict=True)))
    assert summary_columns(SUMMARY) == ("won", 48, 2, 57, 123_456, 91, "ab" * 32)
    assert figures_of(row) == FIGURES
    assert type(figures_of(row).status) is Status
