"""The interface every game implements, and the typed errors of its actions.

A game is a `GameRules` object (options model, action parser, dealer) plus an
immutable `GameState`. `state.apply(action)` returns the next state and the
events it caused, or raises `ActionError` saying why nothing happened.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

Event = dict[str, Any]
"""A JSON-ready description of something an action did (e.g. a card moved)."""


class Status(StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    RESIGNED = "resigned"
    TIMED_OUT = "timed_out"


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

    def parse_options(self, data: Mapping[str, Any] | None) -> Opts:
        """Options with defaults filled in; raises ValueError with the reason."""
        try:
            return self.options_model.model_validate(dict(data or {}))
        except ValidationError as exc:
            raise ValueError(f"bad {self.name} options: {first_error(exc)}") from None

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
            action = raw if isinstance(raw, BaseModel) else self.parse_action(raw)
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
