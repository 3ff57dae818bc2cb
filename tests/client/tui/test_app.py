"""client_cli/tui/app.py: the play TUI driven headless through a whole Gaps game against
a real server; in process, what a typed line means (parse_command) in Gaps and Klondike,
the resign confirmation, and the gap selection."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from client_cli.tui.app import PlayApp
from client_cli.tui.render import label
from server.i18n.terminal import t
from tests.support.harness import T0, create_msg, running_server
from tests.support.tui import settle, shown


async def test_whole_gaps_game_in_the_tui(sqlite_url) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        t = await op.ok(
            **create_msg(options={"redeals": 1}, ends_at=(T0 + timedelta(hours=2)).isoformat())
        )
        tid = t["tournament"]["id"]
        async with srv.client() as c:
            token = (await c.ok(type="register", name="tui_player"))["token"]
        app = PlayApp(srv.ws_url, token, tid)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            board = shown(app, "board")
            assert "··" in board or "××" in board  # gaps are marked
            assert "tui_player" in shown(app, "side")
            # a card that fits no gap is refused by the client itself, with the reason
            legal_cards = {m["card"] for m in app.state["view"]["legal"]}
            stuck = next(
                code
                for row in app.state["view"]["grid"]
                for code in row
                if code and code not in legal_cards
            )
            await pilot.press(*stuck, "enter")
            await pilot.pause()
            assert "fits no gap" in shown(app, "message")
            # an action the server refuses shows the server's reason
            if not app.state["view"]["blocked"]:
                await pilot.press(*"redeal", "enter")
                for _ in range(40):
                    await pilot.pause()
                    if "only when no move" in shown(app, "message"):
                        break
                assert "only when no move is legal" in shown(app, "message")
            # select a gap with the keys, see the card that fits, confirm with Enter
            moves = 0
            redealt = False
            while app.state["status"] == "playing" and moves < 120:
                view = app.state["view"]
                if view["blocked"]:
                    assert "blocked" in shown(app, "status")
                    await pilot.press(*"redeal", "enter")
                    await settle(pilot, lambda: app.state["progress"]["redeals_used"] == 1)
                    redealt = True
                    continue
                move = next((m for m in view["legal"] if m["to"][1] != 0), view["legal"][0])
                target = tuple(move["to"])
                seq = app.state["seq"]
                if moves < 15:  # select the gap with the keys, read the fitting card, Enter
                    for _ in range(8):
                        if app.selected == target:
                            break
                        await pilot.press("right")
                    assert f"takes {label(move['card'])}" in shown(app, "status")
                    await pilot.press("enter")
                else:  # type the card code
                    await pilot.press(*move["card"], "enter")
                await settle(pilot, lambda seq=seq: app.state["seq"] == seq + 1)
                moves += 1
            if app.state["status"] == "playing":  # a long shuffle of 2s: resign, with confirmation
                await pilot.press(*"resign", "enter")
                await pilot.pause()
                assert "confirm" in shown(app, "message")
                await pilot.press(*"yes", "enter")
                await settle(pilot, lambda: app.state["status"] == "resigned")
            assert app.state["status"] in ("won", "lost", "resigned")
            assert "game over" in shown(app, "status")
            assert redealt or app.state["status"] != "lost"
        await op.close()


async def test_the_tui_saves_the_receipt_of_its_last_state(sqlite_url) -> None:
    from client_cli import config

    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        tid = (await op.ok(**create_msg()))["tournament"]["id"]
        async with srv.client() as c:
            token = (await c.ok(type="register", name="tui_keeper"))["token"]
        book = config.ReceiptBook(clock=lambda: 0.0)  # its clock stands still: no
        # write falls due during play, however slow the machine
        app = PlayApp(srv.ws_url, token, tid, receipts=book)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "in place" in shown(app, "status"))
            for seq in range(3):
                move = app.state["view"]["legal"][0]
                await pilot.press(*move["card"], "enter")
                await settle(pilot, lambda seq=seq: app.state["seq"] == seq + 1)
            last = app.state
            assert book.writes == 0  # not a write per action: at most one per interval
        saved = config.receipt_for(srv.ws_url, "tui_keeper", tid)  # written on exit
        assert saved is not None and saved.seq == 3
        assert (saved.seq, saved.log_hash) == (last["seq"], last["log_hash"])
        await op.close()


# -- typed commands, in process (no screen: the app's messages kept in a list) --------------
def typing_app(game: str, view: dict[str, Any]) -> tuple[PlayApp, list[str]]:
    app = PlayApp("ws://127.0.0.1:9/ws", "tok", 1)
    said: list[str] = []
    app.message = said.append  # type: ignore[method-assign]
    app.refresh_view = lambda: None  # type: ignore[method-assign]
    app.state, app.game = {"game": game, "view": view, "seq": 4}, game
    return app, said


def gaps_view(gaps: list[tuple[int, int]], legal: list[dict[str, Any]]) -> dict[str, Any]:
    grid: list[list[str | None]] = [["2C"] * 13 for _ in range(4)]
    for r, c in gaps:
        grid[r][c] = None
    return {"grid": grid, "legal": legal}


def test_klondike_lines_are_its_actions_or_say_why_not() -> None:
    view = {"waste": ["KH"], "tableau": [{"up": []} for _ in range(7)]}
    app, said = typing_app("klondike", view)
    assert app.parse_command("d") == {"kind": "draw"}
    assert app.parse_command("A") == {"kind": "auto"}
    assert app.parse_command("w f") == {"kind": "move", "from": "waste", "to": "fH"}
    assert app.parse_command("t2 t5 3") == {"kind": "move", "from": "t2", "to": "t5", "count": 3}
    assert app.parse_command("t9 t1") is None and "'t9'" in said[-1]
    assert app.parse_command("fly") is None and said[-1].startswith("'fly'? ")


def test_resign_asks_first() -> None:
    app, said = typing_app("klondike", {"waste": [], "tableau": []})
    assert app.parse_command("resign") is None and said[-1]
    assert app.parse_command("n") is None and app.confirming_resign is False
    assert app.parse_command("resign") is None
    assert app.parse_command("y") == {"kind": "resign"}


def test_a_gaps_card_goes_to_the_selected_gap_it_fits() -> None:
    legal = [{"card": "TS", "to": [0, 3]}, {"card": "TS", "to": [2, 5]}]
    app, said = typing_app("gaps", gaps_view([(0, 3), (1, 0), (2, 5)], legal))
    app._select_default()
    assert app.selected == (0, 3)  # the first gap a card fits
    app.action_select(2)
    assert app.selected == (2, 5)
    assert app.parse_command("TS") == {"kind": "move", "card": "TS", "to": [2, 5]}
    assert app.parse_command("") == {"kind": "move", "card": "TS", "to": [2, 5]}
    app.action_select(-1)
    assert app.parse_command("") is None and said == [t("cli.play.gap_takes_nothing")]
    assert app.parse_command("QH") is None and said[-1] == "queen of hearts fits no gap"
    assert app.parse_command("zz") is None and "'zz'" in said[-1]
    assert app.parse_command("redeal") == {"kind": "redeal"}
