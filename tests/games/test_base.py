"""The games' declared interface: prepare_deal and hint defaults, statuses as enums, and an
import graph without cycles (the Klondike engine and its search share klondike_core)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from server.games import RULES, klondike
from server.games.base import (
    GameRules,
    GameState,
    PreparedDeal,
    Status,
)
from server.games.gaps import GAPS, GapsOptions
from server.games.klondike import KLONDIKE, Draw, KlondikeOptions, Move

ROOT = Path(__file__).parents[2]
GAMES = ROOT / "server" / "games"
SEED = bytes(range(32))


# -- prepare_deal ------------------------------------------------------------
def test_prepared_deal_defaults_and_shape() -> None:
    d = PreparedDeal()
    assert (d.deal_attempt, d.guaranteed, d.solution) == (0, False, None)
    attempt, guaranteed, solution = PreparedDeal(3, True, [{"kind": "draw"}])
    assert (attempt, guaranteed, solution) == (3, True, [{"kind": "draw"}])
    with pytest.raises(AttributeError):
        d.deal_attempt = 1  # type: ignore[misc]


class _Opts(BaseModel):
    pass


class _Bare(GameRules[Any, _Opts]):
    """A game that declares only what it must."""

    name = "bare"
    options_model = _Opts

    def parse_action(self, data: Any) -> Any:
        raise NotImplementedError

    def new_game(self, seed: bytes, options: _Opts, *, player_id: int, deal_attempt: int = 0):
        raise NotImplementedError


def test_prepare_deal_default_is_attempt_0_unproven() -> None:
    assert _Bare().prepare_deal(SEED, _Opts()) == PreparedDeal(0, False, None)
    assert _Bare().hints_allowed(_Opts()) is False
    assert GAPS.prepare_deal(SEED, GapsOptions()) == PreparedDeal()
    assert KLONDIKE.prepare_deal(SEED, KlondikeOptions()) == PreparedDeal()
    for rules in RULES.values():  # declared, never looked up by name
        assert isinstance(rules.prepare_deal(SEED, rules.parse_options({})), PreparedDeal)


def test_klondike_prepare_deal_replays_the_search_line_before_trusting_it(monkeypatch) -> None:
    monkeypatch.setattr(
        klondike, "guaranteed_deal", lambda seed, options: PreparedDeal(0, True, [{"kind": "draw"}])
    )
    with pytest.raises(AssertionError, match="non-winning"):
        KLONDIKE.prepare_deal(SEED, KlondikeOptions(guaranteed=True))
    monkeypatch.setattr(klondike, "guaranteed_deal", lambda seed, options: PreparedDeal(59))
    assert KLONDIKE.prepare_deal(SEED, KlondikeOptions(guaranteed=True)) == (59, False, None)


# -- hint ----------------------------------------------------------------------
def test_hint_is_declared_with_a_none_default() -> None:
    assert "hint" in GameState.__dict__ and "prepare_deal" in GameRules.__dict__
    gaps = GAPS.new_game(SEED, GapsOptions(), player_id=1)
    assert gaps.legal_moves()  # moves exist, yet Gaps gives no hints:
    assert gaps.hint() is None and not GAPS.hints_allowed(GapsOptions())
    k = KLONDIKE.new_game(SEED, KlondikeOptions(), player_id=1)
    assert isinstance(k.hint(), Move | Draw)
    assert KLONDIKE.hints_allowed(KlondikeOptions(hints=True))
    assert not KLONDIKE.hints_allowed(KlondikeOptions())


# -- statuses --------------------------------------------------------------------
STATUS_TEXTS = {s.value for s in Status}


def _bare_status_strings(path: Path) -> list[str]:
    """A status text used as a value: compared, or stored under a "status" key."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def is_status_text(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and node.value in STATUS_TEXTS

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            is_status_text(o) for o in (node.left, *node.comparators)
        ):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == "status" and is_status_text(v):
                    found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
        if isinstance(node, ast.Return) and node.value is not None and is_status_text(node.value):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_bare_status_strings_in_the_games() -> None:
    for path in sorted(GAMES.glob("*.py")):
        assert _bare_status_strings(path) == [], path.name


def test_the_status_scan_catches_bare_strings(tmp_path: Path) -> None:
    old = tmp_path / "old.py"
    old.write_text('ev = {"type": "ended", "status": "won"}\nif s == "playing":\n    pass\n')
    assert len(_bare_status_strings(old)) == 2


def test_statuses_are_members_and_events_carry_their_text() -> None:
    k = KLONDIKE.new_game(SEED, KlondikeOptions(), player_id=1)
    g = GAPS.new_game(SEED, GapsOptions(), player_id=1)
    for state, rules in ((k, KLONDIKE), (g, GAPS)):
        assert state.status is Status.PLAYING
        gone, events = state.apply(rules.parse_action({"kind": "resign"}))
        assert gone.status is Status.RESIGNED and events == [{"type": "resigned"}]
    assert Status.WON == "won" and Status("won") is Status.WON


# -- imports ---------------------------------------------------------------------
def _games_imports(path: Path) -> set[str]:
    """server.games modules this file imports, at module or function level."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "server.games":
                out.update(a.name for a in node.names if (GAMES / f"{a.name}.py").exists())
            elif node.module.startswith("server.games."):
                out.add(node.module.removeprefix("server.games."))
        elif isinstance(node, ast.Import):
            out.update(
                a.name.removeprefix("server.games.")
                for a in node.names
                if a.name.startswith("server.games.")
            )
    return out


def _graph() -> dict[str, set[str]]:
    return {p.stem: _games_imports(p) for p in GAMES.glob("*.py") if p.stem != "__init__"}


KLONDIKE_ENGINE = ("klondike", "klondike_actions", "klondike_state", "klondike_view")
"""The Klondike modules above klondike_core that the search must never load."""


def test_klondike_engine_and_search_do_not_import_each_other() -> None:
    graph = _graph()
    assert not set(KLONDIKE_ENGINE) & graph["klondike_search"]
    assert graph["klondike_core"] <= {"base", "cards"}  # below the engine and the search
    assert {"klondike_core"} <= graph["klondike"] & graph["klondike_search"]
    assert {"klondike_core"} <= graph["klondike_state"]


def _cycle(graph: dict[str, set[str]]) -> tuple[str, ...] | None:
    """The first import cycle found (depth first), or None."""
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if module in path:
            return (*path[path.index(module) :], module)
        if module in done:
            return None
        for dep in sorted(graph.get(module, ())):
            cycle = visit(dep, (*path, module))
            if cycle:
                return cycle
        done.add(module)
        return None

    return next((c for m in sorted(graph) if (c := visit(m, ()))), None)


def test_the_games_import_graph_has_no_cycle() -> None:
    assert _cycle(_graph()) is None


def test_cycle_finder_finds_the_old_cycle() -> None:
    old = _graph()
    old["klondike_search"] = old["klondike_search"] | {"klondike"}  # the former _wins()
    assert _cycle(old) == ("klondike", "klondike_search", "klondike")


def test_the_search_imports_alone_in_a_fresh_interpreter() -> None:
    """Import klondike_search without the package's __init__ (which loads every game): the
    engine must not come along."""
    code = (
        "import sys, types\n"
        "pkg = types.ModuleType('server.games')\n"
        f"pkg.__path__ = [{str(GAMES)!r}]\n"
        "sys.modules['server.games'] = pkg\n"
        "import server.games.klondike_search as s\n"
        f"for m in {KLONDIKE_ENGINE!r}:\n"
        "    assert 'server.games.' + m not in sys.modules, 'the search loaded ' + m\n"
        "assert 'server.games.gaps' not in sys.modules\n"
        "print(s.POSITION_BUDGET)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "5000"
