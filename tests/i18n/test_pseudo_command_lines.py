"""Both command lines' help in the pseudo-language en-XA (issue 37): every sentence a
person reads comes from the catalogue, so no plain English word is left: a word of four
or more unaccented letters is a flag, a metavar, a product or a program name, or it was
forgotten. Catches a help text, or a help's default, written in the code."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from client_cli.__main__ import main as samedeal
from server.__main__ import main as samedeal_server
from server.i18n import terminal

NAMES = {  # names, not words: programs, products, formats, networks, units
    "samedeal",
    "public",  # --visibility's choices
    "unlisted",
    "gaps",
    "klondike",
    "json",
    "drand",
    "quicknet",
    "default",
    "sqlite",
    "postgresql",
    "asyncpg",
    "aiosqlite",
    "http",
    "https",
    "host",
    "port",
    "websocket",
    "cidr",
    "samedeal_port",
    "docs",
    "generator",
    "montana",
    "addiction",
    "free_parking",
    "utf",
    "name",
    "file",
    "path",
    "seed",
    "hash",
    "tournament",
    "player",
    "game",  # positional arguments, named in the usage line
}
WORD = re.compile(r"(?<![-\w])[A-Za-z]{4,}(?![\w-])")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    yield
    terminal.choose("en")


def plain_english(text: str) -> list[str]:
    """The words of `text` that are unaccented, neither flags nor metavars (upper case),
    nor names."""
    text = re.sub(r"\{[a-z_]+\}|\S*[/.:]\S*", " ", text)  # placeholders, paths, URLs
    return sorted({w for w in WORD.findall(text) if not w.isupper() and w.lower() not in NAMES})


HELPS: list[tuple[Callable[[list[str]], int], list[str]]] = [
    (samedeal_server, ["serve", "--help"]),
    (samedeal_server, ["tournament", "create", "--help"]),
    (samedeal_server, ["schedule", "create", "--help"]),
    (samedeal_server, ["fairplay", "report", "--help"]),
    (samedeal, ["leaderboard", "--help"]),
    (samedeal, ["verify", "--help"]),
    (samedeal, ["standings", "--help"]),
    (samedeal, ["create", "--help"]),
]


@pytest.mark.parametrize(("program", "argv"), HELPS, ids=[" ".join(a) for _, a in HELPS])
def test_help_in_the_pseudo_language_has_no_plain_english(
    program: Callable[[list[str]], int], argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        program(["--lang", "en-XA", *argv])
    out = capsys.readouterr().out
    assert "[" in out and "]" in out
    commands = {a for a in argv if not a.startswith("-")}  # the usage line names them
    assert [w for w in plain_english(out) if w not in commands] == [], out
