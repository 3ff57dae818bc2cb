"""The play TUI driven headless through a whole Gaps game against a real server."""

from __future__ import annotations

from datetime import timedelta

from client_cli.tui.app import PlayApp
from client_cli.tui.render import label
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
