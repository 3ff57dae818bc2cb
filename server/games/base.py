"""The interface every game implements, and the typed errors of its actions.

A game is a `GameRules` object (options model, action parser, dealer) plus an
immutable `GameState`. `state.apply(action)` returns the next state and the
events it caused, or raises `ActionError` saying why nothing happened.

Optional capabilities are declared here with a default, never looked up by name:
`GameRules.prepare_deal` (a searched, proven deal; default: attempt 0, unproven),
`GameRules.hints_allowed` and `GameState.hint` (default: no hints).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Final, Generic, NamedTuple, TypeVar, cast

from pydantic import BaseModel, ValidationError

Event = dict[str, Any]
"""A JSON-ready description of something an action did (e.g. a card moved)."""


class Status(StrEnum):
    """How an entry's game stands. Compare members with `is`; `.value` is the protocol text."""

    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    RESIGNED = "resigned"
    TIMED_OUT = "timed_out"


# The members bound to plain names once. `Status.PLAYING` is an attribute lookup on an Enum
# class (about 70 ns on CPython 3.11, ten times the `is` itself; bench/engine.py measures
# it side by side), so the engines' per-action checks read `status is PLAYING`.
PLAYING: Final = Status.PLAYING
WON: Final = Status.WON
LOST: Final = Status.LOST
RESIGNED: Final = Status.RESIGNED
TIMED_OUT: Final = Status.TIMED_OUT


class ActionError(Exception):
    """An action that changed nothing. `reason` is a stable machine word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class MalformedAction(ActionError):
    """Not an action of this game at all: unknown kind, bad card code, bad cell."""


class IllegalAction(ActionError):
    """A well-formed action the rules forbid in this position."""


A = TypeVar("A", bound=BaseModel)
Opts = TypeVar("Opts", bound=BaseModel)


class PreparedDeal(NamedTuple):
    """The deal a tournament will use, fixed when it is created.

    `deal_attempt` numbers the shuffle (RNG.md's deal label), `guaranteed` says a
    search proved it winnable and `solution` is that proof: the winning actions in
    their JSON form (what records store), None when not guaranteed. A NamedTuple,
    so `attempt, guaranteed, solution = rules.prepare_deal(...)` also works.
    """

    deal_attempt: int = 0
    guaranteed: bool = False
    solution: list[dict[str, Any]] | None = None


class GameState(ABC, Generic[A]):
    """One position of one game. Immutable: `apply` returns a new state."""

    __slots__ = ()

    @property
    @abstractmethod
    def status(self) -> Status: ...

    @property
    @abstractmethod
    def progress(self) -> int:
        """The ranked completion figure (Gaps cards_in_place, Klondike cards home)."""

    @property
    @abstractmethod
    def resets(self) -> int:
        """Resets used (Gaps redeals, Klondike recycles): fewer ranks higher."""

    @property
    @abstractmethod
    def score(self) -> int:
        """The shown score of the rules; never ranked on."""

    @abstractmethod
    def apply(self, action: A) -> tuple[GameState[A], list[Event]]:
        """The next state and its events; raises ActionError and changes nothing."""

    @abstractmethod
    def progress_view(self) -> dict[str, int]:
        """PROTOCOL.md STATE `progress`."""

    @abstractmethod
    def view(self) -> dict[str, Any]:
        """PROTOCOL.md STATE `view`: only what the player may see."""

    def hint(self) -> A | None:
        """The rules' suggested next action, or None.

        For a game whose rules define hints (Klondike), None means "no moves": no
        suggestion is left in this position. This default, for games without hints,
        always answers None; ask `GameRules.hints_allowed(options)` first to tell
        the two apart.
        """
        return None


class GameRules(ABC, Generic[A, Opts]):
    """A game's dealer, option model and action parser."""

    name: str
    options_model: type[Opts]

    @abstractmethod
    def parse_action(self, data: Any) -> A:
        """A typed action from JSON-like data; raises MalformedAction."""

    @abstractmethod
    def new_game(
        self, seed: bytes, options: Opts, *, player_id: int, deal_attempt: int = 0
    ) -> GameState[A]:
        """The dealt position every entrant starts from."""

    def prepare_deal(self, seed: bytes, options: Opts) -> PreparedDeal:
        """The deal attempt a new tournament uses, and its proof when one is searched.

        Synchronous and possibly slow (Klondike's guaranteed deals search up to 60
        attempts of 5,000 positions: seconds of CPU), so when `searches` says so the
        server runs it in a worker process of its compute pool (`competition/compute.py`,
        by game name and plain options), never on the event loop.
        This default, for games that search nothing: attempt 0, not guaranteed, no
        solution.
        """
        return PreparedDeal()

    def searches(self, options: Opts) -> bool:
        """Whether `prepare_deal` searches under these options (then it runs off the
        event loop's process); by default, whether the game has its own prepare_deal."""
        return type(self).prepare_deal is not GameRules.prepare_deal

    def hints_allowed(self, options: Opts) -> bool:
        """Whether `GameState.hint` gives advice under these options (default: never)."""
        return False

    def parse_options(self, data: Mapping[str, Any] | None) -> Opts:
        """Options with defaults filled in; raises ValueError with the reason."""
        try:
            return self.options_model.model_validate(dict(data or {}))
        except ValidationError as exc:
            err = exc.errors()[0]
            if err["type"] == "extra_forbidden":
                known = ", ".join(self.options_model.model_fields)
                problem = f"{err['loc'][0]}: not a {self.name} option; allowed: {known}"
            else:
                problem = first_error(exc)
            raise ValueError(f"bad {self.name} options: {problem}") from None

    def replay(
        self,
        seed: bytes,
        options: Opts,
        actions: Iterable[Any],
        *,
        player_id: int,
        deal_attempt: int = 0,
    ) -> GameState[A]:
        """The state after applying every action (raw or typed) from the deal."""
        state = self.new_game(seed, options, player_id=player_id, deal_attempt=deal_attempt)
        for raw in actions:
            # A model given here is taken to be this game's action (A is erased at run time).
            action = cast(A, raw) if isinstance(raw, BaseModel) else self.parse_action(raw)
            state, _ = state.apply(action)
        return state


def action_data(action: BaseModel) -> dict[str, Any]:
    """An action as JSON data (aliases, JSON types): what records store and hints send."""
    data: dict[str, Any] = type(action).__pydantic_serializer__.to_python(
        action, mode="json", by_alias=True
    )
    return data


def first_error(exc: ValidationError) -> str:
    """One readable line from a pydantic error: where and what."""
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])
