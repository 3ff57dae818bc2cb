"""The ORM models' own logic (server/store/models.py): aware UTC datetimes in and out on
every backend, a naive one refused, the seed kept in its own table, and the naming
convention the migrations rely on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from server.store.models import Base, TournamentRow, TournamentSecret, UTCDateTime, utc_naive

PARIS = timezone(timedelta(hours=1))


def test_an_aware_time_is_held_as_naive_utc() -> None:
    assert utc_naive(datetime(2026, 12, 2, 10, 30, tzinfo=PARIS)) == datetime(2026, 12, 2, 9, 30)
    assert utc_naive(datetime(2026, 12, 2, 9, 30, tzinfo=UTC)).tzinfo is None


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        utc_naive(datetime(2026, 12, 2, 9, 30))


@pytest.mark.parametrize("dialect", [sqlite.dialect(), postgresql.dialect()])
def test_the_column_type_binds_naive_utc_and_reads_aware_utc(dialect: object) -> None:
    column = UTCDateTime()
    at = datetime(2026, 12, 2, 10, 30, 15, 250_000, tzinfo=PARIS)
    held = column.process_bind_param(at, dialect)  # type: ignore[arg-type]
    assert held == datetime(2026, 12, 2, 9, 30, 15, 250_000)
    read = column.process_result_value(held, dialect)  # type: ignore[arg-type]
    assert read == at and read is not None and read.tzinfo is UTC
    assert column.process_bind_param(None, dialect) is None  # type: ignore[arg-type]
    assert column.process_result_value(None, dialect) is None  # type: ignore[arg-type]


def test_the_seed_lives_apart_from_the_public_tournament_row() -> None:
    assert "seed" not in {c.name for c in TournamentRow.__table__.columns}
    secret = {c.name for c in TournamentSecret.__table__.columns}
    assert any("seed" in name for name in secret)


def test_constraints_are_named_by_the_convention() -> None:
    players = Base.metadata.tables["players"]
    assert players.primary_key.name == "pk_players"
    unique = {c.name for c in players.constraints if c.name and c.name.startswith("uq_")}
    assert {"uq_players_name_key", "uq_players_token_hash"} <= unique
