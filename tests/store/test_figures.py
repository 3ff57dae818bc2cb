"""An entry's figures (domain.model.Figures) through the store's layouts: the columns both
writers' SQL takes (rows.summary_columns), an entry row read back (rows.figures_of), a
notice line (pg_coordination), and a record's `result` (audit.records)."""

from __future__ import annotations

import re

import pytest

from server.audit.records import RecordResult, result_of
from server.domain.model import EntryNotice, Figures, Status, Summary
from server.store import pg_coordination, pg_writer, sqlite_process
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


def test_a_notice_line_carries_the_figures_and_reads_back_equal() -> None:
    line = pg_coordination.entry_line(7, 9, SUMMARY.seq, FIGURES)
    assert line == "a 7 9 91 won 48 2 57 123456"  # the line other nodes parse, unchanged
    assert pg_coordination.parse(line) == [EntryNotice(7, 9, 91, FIGURES)]


def test_a_records_result_is_the_figures_in_record_md_order() -> None:
    result = result_of(FIGURES)
    assert list(result) == ["status", "progress", "resets", "time_ms", "score"]
    assert RecordResult.model_validate(result).figures == FIGURES
