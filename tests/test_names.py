"""No two classes of server/ and client_cli/ share a name: a reader who meets
`Tournament` or `Limits` knows which one it is without looking at the import. A name
that starts with `_` is its module's own (never imported elsewhere) and may recur.

Read from each module's syntax tree, classes nested in functions or classes counted too."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("server", "client_cli")


def classes_by_name() -> dict[str, list[str]]:
    """Each public class name -> where it is defined (`path:line`)."""
    found: dict[str, list[str]] = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    found[node.name].append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_two_classes_share_a_name() -> None:
    shared = {name: places for name, places in classes_by_name().items() if len(places) > 1}
    assert not shared, shared


def test_the_check_sees_the_classes() -> None:
    """It reads both packages, nested classes too (a check that finds nothing passes)."""
    found = classes_by_name()
    assert [p.split(":")[0] for p in found["TournamentRow"]] == ["server/store/models.py"]
    assert [p.split(":")[0] for p in found["OneLineParser"]] == ["server/i18n/terminal.py"]
    assert len(found) > 200
