"""client_cli/commands/registry.py: every `samedeal` command reaches its group's `run`,
the same way (what each does over a server: tests/client, tests/e2e)."""

from __future__ import annotations

import argparse

import pytest

from client_cli.commands import (
    account,
    bot,
    club,
    delete_account,
    fairplay,
    login,
    operator,
    play,
    ratings,
    records,
    schedule,
    standings,
    tournaments,
    verify,
)
from client_cli.commands.registry import GROUPS, build_parser

COMMANDS = {
    ("register", "ann"): account.run,
    ("tournaments",): tournaments.run,
    ("play", "1"): play.run,
    ("standings", "1", "--follow"): standings.run,
    ("record", "1", "ann"): records.run,
    ("bundle", "1"): records.run,
    ("verify", "x.json"): verify.run,
    ("create", "--name", "Cup"): operator.run,
    ("close", "1"): operator.run,
    ("bot", "--tournament", "1"): bot.run,
    ("leaderboard", "gaps"): ratings.run,
    ("player", "ann"): ratings.run,
    ("disqualify", "1", "ann", "--reason", "r"): fairplay.run,
    ("fairplay", "1"): fairplay.run,
    ("schedule", "list"): schedule.run,
    ("club", "list"): club.run,
    ("login",): login.run,
    ("delete-account",): delete_account.run,
}


@pytest.mark.parametrize("argv", list(COMMANDS), ids=" ".join)
def test_each_command_names_its_groups_run(argv: tuple[str, ...]) -> None:
    assert build_parser().parse_args(argv).run is COMMANDS[argv]


def test_every_command_is_listed_and_every_group_has_the_two_hooks() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {argv[0] for argv in COMMANDS}
    assert {group.run for group in GROUPS} == set(COMMANDS.values())
    for group in GROUPS:
        assert callable(group.add_parser)


def test_only_verify_is_offline() -> None:
    offline = {
        argv[0] for argv in COMMANDS if getattr(build_parser().parse_args(argv), "offline", False)
    }
    assert offline == {"verify"}


def test_create_takes_the_server_command_lines_flags() -> None:
    """`samedeal create` and `samedeal-server tournament create` parse the same flags."""
    from server.cli.registry import build_parser as server_parser

    argv = ["--name", "Cup", "--hours", "2", "--min-rated", "1", "--unrated"]
    ours = vars(build_parser().parse_args(["create", *argv]))
    theirs = vars(server_parser().parse_args(["tournament", "create", *argv]))
    shared = {"name", "game", "options", "hours", "time_limit_s", "min_rated", "unrated"}
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}
