"""Record formats (records.py, RECORD.md): a record's `result` is an entry's figures in
RECORD.md's order and reads back as the same figures."""

from __future__ import annotations

from server.audit.records import RecordResult, result_of
from tests.store.test_rows import FIGURES


def test_a_records_result_is_the_figures_in_record_md_order() -> None:
    result = result_of(FIGURES)
    assert list(result) == ["status", "progress", "resets", "time_ms", "score"]
    assert RecordResult.model_validate(result).figures == FIGURES
