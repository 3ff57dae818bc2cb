"""Both command lines in the players' languages, as a user meets them (subprocesses):
`LANG=es_ES.UTF-8` and `--lang pt-PT` / `pt-BR` choose the language of help, messages,
refusals (said from their reason) and plurals (pt-BR's 0 is singular, pt-PT's plural).
Babel does the words and dates: no C library locale is needed (docs/I18N.md)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from tests.support.harness import create_msg, running_server

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def _env(tmp: Path, **more: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in LOCALE_VARIABLES}
    base.pop("SAMEDEAL_DATABASE_URL", None)
    return {**base, "XDG_CONFIG_HOME": str(tmp / "home"), **more}


def _run(
    module: str, args: list[str], env: dict[str, str], tmp: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_and_usage_errors_follow_lang(tmp_path: Path) -> None:
    done = _run("client_cli", ["--help"], _env(tmp_path, LANG="es_ES.UTF-8"), tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("uso: samedeal") and "listar torneos" in done.stdout
    assert "argumentos posicionales" in done.stdout and "show this help" not in done.stdout
    # LC_ALL wins over LANG; --lang over both
    env = _env(tmp_path, LC_ALL="pt_PT.UTF-8", LANG="es_ES.UTF-8")
    done = _run("client_cli", ["verify", str(tmp_path / "nada.json")], env, tmp_path)
    assert done.returncode == 2 and done.stdout.startswith("não foi possível abrir:")
    done = _run("client_cli", ["--lang", "es", "play"], env, tmp_path)
    assert done.returncode == 2
    assert "se requieren los siguientes argumentos: id" in done.stderr
    assert "(consulta samedeal play --help)" in done.stderr
    done = _run("server", ["--help"], _env(tmp_path, LANG="pt_BR.UTF-8"), tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("uso: samedeal-server")
    assert "idioma: en, pt-BR, pt-PT ou es" in done.stdout


def test_the_operators_command_line_in_portuguese_with_plurals(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'op.db'}"
    env = _env(tmp_path)
    assert _run("server", ["--database-url", url, "migrate"], env, tmp_path).returncode == 0
    rebuilt = _run(
        "server", ["--lang", "pt-PT", "--database-url", url, "ratings", "rebuild"], env, tmp_path
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    # pt-PT: 0 takes the plural; pt-BR: 0 takes the singular
    assert rebuilt.stdout.startswith("recalculado a partir de 0 torneios encerrados")
    rebuilt = _run(
        "server", ["--lang", "pt-BR", "--database-url", url, "ratings", "rebuild"], env, tmp_path
    )
    assert rebuilt.stdout.startswith("recalculado a partir de 0 torneio encerrado:")
    refused = _run(
        "server",
        ["--database-url", url, "tournament", "close", "999"],
        _env(tmp_path, LANG="es_ES.UTF-8"),
        tmp_path,
    )
    assert refused.returncode == 1
    assert refused.stderr.strip() == "samedeal-server: No existe el torneo 999."
    nobody = _run(
        "server",
        ["--lang", "pt-PT", "--database-url", url, "admin", "grant", "ninguém"],
        env,
        tmp_path,
    )
    assert "nenhum jogador se chama 'ninguém' (registe-o primeiro)" in nobody.stderr


async def test_the_players_command_line_in_spanish_and_portuguese(
    sqlite_url: str, tmp_path: Path
) -> None:
    async with running_server(sqlite_url) as srv:
        server = {"SAMEDEAL_SERVER": srv.ws_url}

        async def samedeal(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
            given = _env(tmp_path, **server, **env)
            return await asyncio.to_thread(_run, "client_cli", list(args), given, tmp_path)

        listed = await samedeal("tournaments", LANG="pt_BR.UTF-8")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.splitlines()[0].split() == [
            "id",
            "nome",
            "jogo",
            "estado",
            "inscritos",
            "quando",
        ]
        assert listed.stdout.splitlines()[-1] == "0 torneio"
        listed = await samedeal("--lang", "pt-PT", "tournaments")
        assert listed.stdout.splitlines()[-1] == "0 torneios"
        op = await srv.admin()
        for name in ("Copa", "Taça"):
            await op.ok(**create_msg(name=name))  # type: ignore[no-untyped-call]
        listed = await samedeal("tournaments", LANG="es_ES.UTF-8")
        lines = listed.stdout.splitlines()
        assert lines[-1] == "2 torneos"
        assert any(word in lines[1] for word in ("abierto", "programado"))
        assert "dentro de" in listed.stdout or "hace" in listed.stdout
        registered = await samedeal("register", "José", LANG="es_ES.UTF-8")
        assert registered.returncode == 0, registered.stderr
        assert registered.stdout.startswith("José registrado (id ")
        taken = await samedeal("register", "josé", "--replace", LANG="es_ES.UTF-8")
        assert taken.returncode == 1
        assert taken.stderr.strip() == "samedeal: El nombre josé ya está en uso."
        bad = await samedeal("--lang", "pt-BR", "register", "a b", "--replace")
        assert (
            "Um nome tem só letras (de um só alfabeto), algarismos, _ ou -: ' ' não" in bad.stderr
        )
        missing = await samedeal("play", "999", LANG="pt_PT.UTF-8")
        assert missing.stderr.strip() == "samedeal: Não existe o torneio 999."
        english = await samedeal("play", "999", LANG="C.UTF-8")
        assert english.stderr.strip() == "samedeal: not_found: no tournament 999"
