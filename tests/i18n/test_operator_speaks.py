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


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        main(list(argv))
    return " ".join(capsys.readouterr().out.split())  # argparse's line breaks aside


def test_serve_and_create_flags_help_in_the_language(capsys: pytest.CaptureFixture[str]) -> None:
    english = _help(capsys, "serve", "--help")
    assert "TCP port (env SAMEDEAL_PORT" in english and "the address to listen on" in english
    serve = _help(capsys, "--lang", "pt-PT", "serve", "--help")
    assert "porta TCP (env SAMEDEAL_PORT; predefinição 8765" in serve
    assert "ligações abertas a partir de um endereço (predefinição " in serve
    create = _help(capsys, "--lang", "es", "tournament", "create", "--help")
    assert "el nombre del torneo" in create and "condición de entrada: sin bots" in create
    assert "ISO 8601 o una hora del día" in create and "el resultado en JSON" in create
    series = _help(capsys, "--lang", "pt-BR", "schedule", "create", "--help")
    assert "o nome da série" in series and "cada ocorrência tira sua distribuição" in series
    for text in (serve, create, series):  # no sentence of the English help left
        for english_words in (
            "(default",
            "entry condition",
            "open connections",
            "how long",
            "as JSON, for scripts",
            "the game",
            "per-player",
        ):
            assert english_words not in text, english_words


def test_the_flags_checks_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'op.db'}"
    assert main(["--database-url", url, "migrate"]) == 0
    capsys.readouterr()
    code, _, err = _run(
        capsys,
        "--lang",
        "es",
        "--database-url",
        url,
        "tournament",
        "create",
        "--name",
        "x",
        "--duration",
        "zz",
    )
    assert code == 2
    assert (
        err
        == "samedeal-server: --duration es una duración como 1d, 12h, 90m, 60s o 1h30m, no 'zz'\n"
    )
    code, _, err = _run(
        capsys,
        "--lang",
        "pt-PT",
        "--database-url",
        url,
        "schedule",
        "create",
        "--name",
        "s",
        "--at",
        "18:00",
        "--game",
        "klondike",
        "--redeals",
        "2",
    )
    assert (code, err) == (2, "samedeal-server: --redeals é uma opção de gaps, não de klondike\n")
    code, _, err = _run(
        capsys, "--database-url", url, "tournament", "create", "--name", "x", "--options", "[1]"
    )
    assert err == "samedeal-server: --options must be a JSON object, e.g. '{\"redeals\": 2}'\n"
    code, _, err = _run(capsys, "--lang", "es", "--database-url", url, "serve", "--workers", "0")
    assert (code, err) == (2, "samedeal-server: --workers es 1 o más\n")


def test_migrate_says_it_is_done_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    assert _run(capsys, "--lang", "es", "--database-url", url, "migrate") == (
        0,
        "base de datos en la última versión\n",
        "",
    )


def test_an_unknown_beacon_network_in_the_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'op.db'}"
    assert main(["--database-url", url, "migrate"]) == 0
    capsys.readouterr()
    argv = ["--database-url", url, "tournament", "create", "--name", "x", "--beacon", "nada"]
    code, _, err = _run(capsys, "--lang", "es", *argv)
    assert (code, err) == (
        2,
        "samedeal-server: --beacon 'nada' no es una red drand conocida (conocidas: default, "
        "quicknet; otra necesita --beacon-networks FILE)\n",
    )
    code, _, err = _run(capsys, *argv)
    assert "--beacon 'nada' is not a known drand network (known: default, quicknet;" in err
