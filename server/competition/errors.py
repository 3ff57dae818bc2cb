"""The one error type the competition layer raises; `code` is a protocol error code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class CompetitionError(Exception):
    """A refused request. Nothing changed. `reason` is a stable key a client says in its
    language with `params` (docs/I18N.md; the code when no finer one is given); `extra`
    goes into the error message as fields."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        reason: str | None = None,
        params: Mapping[str, Any] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or code
        self.params: dict[str, Any] = dict(params or {})
        self.extra = extra
