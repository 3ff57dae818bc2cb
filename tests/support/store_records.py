"""Records the store's tests write (the store's own, so that they follow its Summary)."""

from __future__ import annotations

from server.domain.model import Status, Summary
from tests.support.factories import NOW, figures, new_tournament

__all__ = ["NOW", "new_tournament", "playing", "summary"]


def summary(
    status: Status = Status.PLAYING, seq: int = 0, progress: int = 0, log_hash: str = ""
) -> Summary:
    return Summary(figures(status, progress, 0, progress), seq, log_hash)


def playing(seq: int = 0, progress: int = 0) -> Summary:
    return summary(Status.PLAYING, seq, progress, f"{seq:064x}")
