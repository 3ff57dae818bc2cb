"""Every documentation file a person is pointed to exists: the help of every command and
subcommand of both command lines, the browser's texts (string literals in server/web,
not comments), the README and docs/ themselves. A name like `docs/X.md` must be a file of
the repository; a bare `X.md` in a help text or page must be one of docs/ (or the README)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from client_cli.commands.registry import build_parser as client_parser
from server.cli.registry import build_parser as server_parser

ROOT = Path(__file__).resolve().parents[1]
MENTION = re.compile(r"(?<![\w/.-])((?:docs/|deploy/)?[A-Za-z0-9_-]+\.md)\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
LITERAL = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`")


def exists(name: str) -> bool:
    return (ROOT / name).is_file() or (ROOT / "docs" / name).is_file()


def help_texts(parser: argparse.ArgumentParser) -> Iterator[str]:
    """The help of `parser` and of every subcommand under it, however deep."""
    yield parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from help_texts(sub)


def test_every_help_text_names_files_that_exist() -> None:
    missing = set()
    for parser in (client_parser(), server_parser()):
        for text in help_texts(parser):
            missing |= {m for m in MENTION.findall(text) if not exists(m)}
    assert not missing, missing


def test_the_pages_name_files_that_exist() -> None:
    missing = set()
    for path in [*sorted((ROOT / "server" / "web").glob("*.js")), ROOT / "server/web/index.html"]:
        code = re.sub(r"^\s*(//|\*|/\*).*$", "", path.read_text(encoding="utf-8"), flags=re.M)
        for literal in LITERAL.findall(code):
            missing |= {f"{path.name}: {m}" for m in MENTION.findall(literal) if not exists(m)}
    assert not missing, missing


def test_readme_and_docs_link_to_files_that_exist() -> None:
    missing = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                missing.add(f"{doc.relative_to(ROOT)} -> {target}")
    assert not missing, missing


def test_the_code_names_docs_that_exist() -> None:
    """A `docs/X.md` named in the code (docstrings, comments, messages) is a file."""
    missing = set()
    for folder in ("server", "client_cli", "migrations"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for m in re.findall(r"\b(?:docs|deploy)/[A-Za-z0-9_-]+\.md", path.read_text("utf-8")):
                if not exists(m):
                    missing.add(f"{path.relative_to(ROOT)}: {m}")
    assert not missing, missing
