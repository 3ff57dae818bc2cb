"""What the competition tells the outside world: the event sink it is given at construction.

The competition never knows who listens (the fan-out of a server, nothing in a command-line
tool); it calls these methods after the change they describe is durable.
"""

from __future__ import annotations

from typing import Protocol

from server.domain.model import TournamentInfo


class Events(Protocol):
    """A listener to the competition's changes. Calls must not block or raise."""

    def standings_changed(self, tournament_id: int) -> None:
        """An entry's figures or status changed (join, action, timeout, close)."""

    def tournament_changed(self, tournament: TournamentInfo) -> None:
        """A tournament was created or opened (its public facts changed)."""

    def tournament_closed(self, tournament_id: int, seed: str, log_root: str) -> None:
        """Closed: the final standings stand and the seed is revealed."""


class NoEvents:
    """The sink of a process nobody watches (the operator's command line, tests)."""

    def standings_changed(self, tournament_id: int) -> None:
        pass

    def tournament_changed(self, tournament: TournamentInfo) -> None:
        pass

    def tournament_closed(self, tournament_id: int, seed: str, log_root: str) -> None:
        pass
