"""The terminal client's last English lines, now in the user's language (issue 37): the
leaderboard's table and a player's ratings (with a sentence saying what the figures
mean), and the live standings viewer's head, lines and key help."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

import pytest

from client_cli.commands import ratings
from server.i18n import terminal
from tests.support.harness import create_msg, running_server
from tests.support.standings_field import entrant
from tests.support.tui import settle_within, shown


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    terminal.choose("en")


ROW = {
    "rank": 1,
    "player": "joão",
    "rating": 3.5,
    "mu": 27.1,
    "sigma": 7.87,
    "tournaments": 2,
    "provisional": True,
}
BOARD: dict[str, Any] = {"game": "gaps", "total": 1, "rows": [ROW]}


def test_the_leaderboard_and_a_players_ratings_in_each_language() -> None:
    english = ratings.leaderboard_text(BOARD)
    assert english.startswith("gaps leaderboard — 1 rated player\n")
    assert "provisional" in english and "sigma" in english and "3 sigma" in english
    said = {
        "pt-BR": ("ranking de gaps — 1 jogador com rating", "provisório", "palpite"),
        "pt-PT": (
            "classificação geral de gaps — 1 jogador classificado",
            "provisório",
            "estimativa",
        ),
        "es": ("clasificación de gaps — 1 jugador puntuado", "provisional", "estimación"),
    }
    for lang, (title, provisional, explained) in said.items():
        terminal.choose(lang)
        text = ratings.leaderboard_text(BOARD)
        assert text.startswith(title + "\n"), text
        assert provisional in text and explained in text and "3σ" in text
        for word in ("leaderboard", "rated", "player ", "sigma", "nobody"):
            assert word not in text, (lang, word)
        assert "(ninguém aqui)" in ratings.leaderboard_text({**BOARD, "rows": []}) or lang == "es"
        page = ratings.player_text(
            {
                "player": {"name": "joão", "bot": False, "created_at": "2026-12-01T10:00:00+00:00"},
                "ratings": {"gaps": ROW},
                "streak": {},
                "recent": [
                    {
                        "tournament": 4,
                        "name": "Sexta",
                        "game": "gaps",
                        "rank": 1,
                        "entrants": 3,
                        "percentile": 100.0,
                        "status": "won",
                    }
                ],
            }
        )
        for word in (" rated", "tournament", "status", " mu ", "sigma", "registered"):
            assert word not in page, (lang, word, page)
        assert ", provisional" not in page or lang == "es"  # the Spanish word is the same
    terminal.choose("es")
    assert "(nadie aquí)" in ratings.leaderboard_text({**BOARD, "rows": []})


async def test_the_live_standings_viewer_in_spanish(sqlite_url: str) -> None:
    terminal.choose("es")
    from client_cli.tui import standings

    viewer = importlib.reload(standings)  # its key help is made when it is imported
    try:
        async with running_server(sqlite_url) as srv:
            op = await srv.admin()
            tid = (await op.ok(**create_msg()))["tournament"]["id"]  # type: ignore[no-untyped-call]
            token = await entrant(srv, tid, "muñoz", 2)
            app = viewer.StandingsApp(srv.ws_url, tid, token=token, page_size=10)
            async with app.run_test(size=(180, 40)) as pilot:
                await settle_within(
                    pilot, lambda: app.page is not None and "filas 1–1" in shown(app, "page")
                )
                head = shown(app, "head")
                assert head.startswith(f"torneo {tid} — en directo — 1 participante — versión ")
                assert head.endswith("eres muñoz")
                assert "en directo: la cabeza y las filas alrededor de la tuya" in shown(
                    app, "live"
                )
                keys = {b.description for b in app.BINDINGS if hasattr(b, "description")}
                assert {"página siguiente", "mi página", "salir"} <= keys
                await pilot.press("q")
    finally:
        terminal.choose("en")
        importlib.reload(standings)


def test_receipt_lines_in_the_language(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from client_cli import config
    from client_cli.commands.records import receipt_holds

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no token saved: not mine
    receipt = config.Receipt("ws://x", "ana", 3, 8, "ab" * 32)
    for lang, said in {
        "en": "receipt: DIFFERS: ana's log acknowledged at seq 8 (8:abab",
        "pt-BR": "recibo: DIFERE: o log de ana confirmado no seq 8 (8:abab",
        "pt-PT": "recibo: DIFERE: o registo de ana confirmado no seq 8 (8:abab",
        "es": "recibo: DIFIERE: el registro de jugadas de ana confirmado en el seq 8 (8:abab",
    }.items():
        terminal.choose(lang)
        assert receipt_holds("ws://x", receipt, None, "bundle") is False
        err = capsys.readouterr().err
        assert err.startswith(said), err
        if lang != "en":
            assert "bundle" not in err and "record of" not in err, err


async def test_the_bots_refusal_in_the_language(sqlite_url: str) -> None:
    import argparse

    from client_cli.commands.bot import bot
    from client_cli.commands.common import CliError

    terminal.choose("es")
    async with running_server(sqlite_url) as srv:
        args = argparse.Namespace(
            server=srv.ws_url, tournament=999, players=1, think_ms=0, strategy="first"
        )
        with pytest.raises(CliError) as refused:
            await bot(args, None)  # type: ignore[arg-type]
        assert str(refused.value) == "los bots no pueden jugar el torneo 999: no existe ese torneo"
