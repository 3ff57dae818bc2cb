"""HTTP of ratings (PROTOCOL.md): `GET /leaderboard/G.json?offset=O&limit=L`,
`GET /players/NAME.json`, `GET /tournaments/ID/results.csv` (after the reveal).

Anonymous, and cached as standings.json is, in the same ResponseCache."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from urllib.parse import unquote

import orjson
from websockets.http11 import Response

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.competition.standings.reading import MAX_PAGE
from server.domain.names import name_key
from server.net import replies
from server.net.connection import WsConnection
from server.net.pages import NAME_SEGMENT
from server.net.response_cache import ResponseCache

LEADERBOARD_PATH = re.compile(r"^/leaderboard/([a-z]{1,16})\.json$")
PLAYER_PATH = re.compile(r"^/players/(" + NAME_SEGMENT + r")\.json$")
RESULTS_PATH = re.compile(r"^/tournaments/(\d{1,10})/results\.csv$")
JSON = "application/json"
CSV = "text/csv; charset=utf-8"
STATUS = {"not_found": HTTPStatus.NOT_FOUND, "not_revealed": HTTPStatus.NOT_FOUND}


class RatingsHttp:
    """The three routes with their cache of bodies."""

    def __init__(self, competition: Competition, cache: ResponseCache) -> None:
        self.competition = competition
        self.cache = cache  # shared with standings.json

    async def respond(
        self,
        conn: WsConnection,
        path: str,
        query: Callable[[], tuple[int, int]],
    ) -> Response | None:
        """The answer for one of the routes; None for any other path. `query` parses the
        request's offset and limit (ValueError saying what is wrong)."""
        parts = self.competition
        found = LEADERBOARD_PATH.match(path)
        if found:
            try:
                offset, limit = query()
            except ValueError as exc:
                return conn.respond(HTTPStatus.BAD_REQUEST, f"{exc}\n")
            game = found.group(1)
            return await self._cached(
                conn,
                f"l/{game}/{offset}/{limit}",
                JSON,
                lambda: _leaderboard(parts, game, offset, limit),
            )
        found = PLAYER_PATH.match(path)
        if found:
            try:
                name = unquote(found.group(1), errors="strict")
            except UnicodeDecodeError:
                return conn.respond(HTTPStatus.BAD_REQUEST, "a name is UTF-8, percent-encoded\n")
            return await self._cached(
                conn, f"p/{name_key(name)}", JSON, lambda: _player(parts, name)
            )
        found = RESULTS_PATH.match(path)
        if found:
            tid = int(found.group(1))
            return await self._cached(
                conn, f"r/{tid}", CSV, lambda: parts.standings.results_csv(tid)
            )
        return None

    async def _cached(
        self, conn: WsConnection, key: str, kind: str, make: Callable[[], Awaitable[str]]
    ) -> Response:
        async def typed() -> tuple[str, str]:
            return kind, await make()

        try:
            kind, body = await self.cache.get(key, typed)
        except CompetitionError as exc:
            return conn.respond(STATUS.get(exc.code, HTTPStatus.BAD_REQUEST), exc.message + "\n")
        response = conn.respond(HTTPStatus.OK, body)
        response.headers["Content-Type"] = kind
        response.headers["Cache-Control"] = f"max-age={int(self.cache.ttl_s)}"
        return response


async def _leaderboard(competition: Competition, game: str, offset: int, limit: int) -> str:
    page = await competition.ratings.leaderboard(game, offset, limit)
    return orjson.dumps(replies.leaderboard_message(page)).decode()


async def _player(competition: Competition, name: str) -> str:
    page = await competition.ratings.player(name)
    return orjson.dumps(replies.player_message(page)).decode()


def page_query(target: str) -> tuple[int, int]:
    """(offset, limit) from a request target's query string (standings.json and the
    ratings' pages); ValueError saying what is wrong."""
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query, max_num_fields=8)
    try:
        offset = int(query.get("offset", ["0"])[-1])
        limit = int(query.get("limit", [str(MAX_PAGE)])[-1])
    except ValueError:
        raise ValueError("offset and limit are whole numbers") from None
    if not 0 <= offset <= 2**31 - 1 or not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"offset is 0 or more; limit is 1 to {MAX_PAGE}")
    return offset, limit
