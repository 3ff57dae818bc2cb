"""The terminal apps show none of Textual's own English: no command palette, no ctrl+c notice."""

from textual.binding import Binding

from client_cli.tui.app import PlayApp
from client_cli.tui.standings import StandingsApp


def test_the_apps_have_no_command_palette_and_ctrl_c_quits() -> None:
    for app in (PlayApp, StandingsApp):
        assert app.ENABLE_COMMAND_PALETTE is False
        keys = {
            key: b.action
            for b in app.BINDINGS
            if isinstance(b, Binding)
            for key in b.key.split(",")
        }
        assert keys["ctrl+c"] == "quit"  # not Textual's English "Do you want to quit?"
