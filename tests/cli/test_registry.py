"""server/cli/registry.py: every command reaches its group's `run`, the same way."""

from __future__ import annotations

import argparse

import pytest

from server.cli import fairplay, migrate, operator, schedule, serve
from server.cli.registry import GROUPS, build_parser

COMMANDS = {
    ("serve",): serve.run,
    ("migrate",): migrate.run,
    ("admin", "grant", "ann"): operator.run,
    ("tournament", "create", "--name", "x"): operator.run,
    ("tournament", "close", "1"): operator.run,
    ("tournament", "list"): operator.run,
    ("ratings", "rebuild"): operator.run,
    ("disqualify", "1", "ann", "--reason", "r"): fairplay.run,
    ("fairplay", "report", "1"): fairplay.run,
    ("schedule", "create", "--name", "x", "--at", "18:00Z"): schedule.run,
    ("schedule", "list"): schedule.run,
    ("schedule", "cancel", "1"): schedule.run,
}


@pytest.mark.parametrize("argv", list(COMMANDS), ids=" ".join)
def test_each_command_names_its_groups_run(argv: tuple[str, ...]) -> None:
    args = build_parser().parse_args(argv)
    assert args.run is COMMANDS[argv]


def test_every_command_is_listed_and_every_group_has_the_two_hooks() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {argv[0] for argv in COMMANDS}
    for group in GROUPS:
        assert callable(group.add_parser) and callable(group.run)


@pytest.mark.parametrize("argv", list(COMMANDS), ids=" ".join)
def test_the_database_url_may_follow_the_subcommand(argv: tuple[str, ...]) -> None:
    args = build_parser().parse_args([*argv, "--database-url", "sqlite:///x.db"])
    assert args.database_url == "sqlite:///x.db"


def test_a_usage_error_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["tournament", "open"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "see samedeal-server" in err
