"""`samedeal-server`, in process, in the operator's language (issue 37): what the last
pass left in English, now said through the catalogues."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.__main__ import main
from server.i18n import terminal


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    terminal.choose("en")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_no_such_database_names_the_file_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'nada.db'}"
    code, _, err = _run(capsys, "--lang", "es", "--database-url", url, "tournament", "list")
    assert code == 1
    assert err.startswith("samedeal-server: no existe la base de datos: archivo SQLite ")
    assert "SQLite file" not in err
    code, _, err = _run(
        capsys, "--lang", "pt-PT", "--database-url", "sqlite:///nada.db", "tournament", "list"
    )
    assert "/nada.db (sqlite:///NOME é relativo à pasta atual, sqlite:////CAMINHO" in err
    code, _, err = _run(capsys, "--database-url", url, "tournament", "list")
    assert f"no such database: SQLite file {tmp_path / 'nada.db'}" in err  # English as before
