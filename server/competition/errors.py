"""The one error type the competition layer raises; `code` is a protocol error code."""

from __future__ import annotations

from typing import Any


class CompetitionError(Exception):
    """A refused request. Nothing changed. `extra` goes into the error message as fields."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra
