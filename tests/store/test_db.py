"""Database URLs (db.py `check_url`, `describe`): the async drivers taken for plain
schemes, a relative SQLite file made absolute, and every URL the server cannot use
refused in one line saying why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.store.db import BadDatabaseUrl, check_url, describe


def test_plain_schemes_get_their_async_drivers(tmp_path: Path) -> None:
    assert check_url("postgres://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert check_url("postgresql+psycopg://u:pw@h:5433/db") == "postgresql+asyncpg://u:pw@h:5433/db"
    url = check_url(f"sqlite:///{tmp_path}/x.db")
    assert url == f"sqlite+aiosqlite:///{tmp_path}/x.db"
    assert describe(url, url) == f"SQLite file {tmp_path}/x.db"
    assert describe("postgresql+asyncpg://u@h/db", "postgres://u@h/db") == (
        "PostgreSQL database db on h:5432 as u"
    )


def test_a_relative_sqlite_file_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert check_url("sqlite:///games.db") == f"sqlite+aiosqlite:///{tmp_path}/games.db"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("not a url", "is not a database URL"),
        ("postgresql://u@h", "names no database"),
        ("mysql://u@h/db", "mysql+mysqldb is not supported"),
        ("sqlite://", "in-memory SQLite database loses every game"),
        ("sqlite:////no/such/folder/x.db", "no directory /no/such/folder"),
    ],
)
def test_a_url_the_server_cannot_use_is_refused_saying_why(url: str, says: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=re.escape(says)) as refused:
        check_url(url)
    assert "\n" not in str(refused.value)
