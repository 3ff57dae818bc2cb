"""The browser client's files, served on the server's own port with a strict
Content-Security-Policy (no inline script, same-origin WebSocket only).

Files live in the package (`server/web/`); pages are `index.html` for `/`, `/t/ID`,
`/t/ID/replay/NAME`, `/t/ID/analysis`, `/verify`, `/rules/gaps`, `/rules/klondike`,
`/leaderboard/G`, `/players/NAME`, `/clubs`, `/clubs/ID` and `/operator` (the page's
script routes by path), and every other file under `/static/`.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from http import HTTPStatus
from importlib import resources
from typing import Final

from websockets.datastructures import Headers
from websockets.http11 import Response

from server import i18n

WEB = resources.files("server") / "web"
NAME_SEGMENT = r"(?:[A-Za-z0-9_-]|%[89A-Fa-f][0-9A-Fa-f]){1,384}"
"""A player's name in a path: its ASCII letters, digits, `_` and `-` as they are, every other
character as UTF-8, percent-encoded (32 code points of 4 bytes at most)."""
PAGE_PATHS = re.compile(
    r"^/(?:|t/\d{1,10}|t/\d{1,10}/replay/" + NAME_SEGMENT + r"|t/\d{1,10}/analysis|verify"
    r"|leaderboard/[a-z]{1,16}|players/"
    + NAME_SEGMENT  # a player's ratings page
    + r"|operator"  # the operator's page (server/web/operator.js)
    r"|account"  # the account page: devices, links (server/web/account.js)
    r"|clubs|clubs/\d{1,10}"  # the clubs pages (server/web/clubs.js)
    r"|rules/gaps|rules/klondike)$"  # the rules of each game (server/web/rulespage.js)
)
STATIC_PATH = re.compile(r"^/static/([A-Za-z0-9_-]{1,64}(?:/[A-Za-z0-9_-]{1,64})*\.[a-z0-9]{1,8})$")
TYPES: Final = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "json": "application/json",
    "png": "image/png",
    "svg": "image/svg+xml",
    "txt": "text/plain; charset=utf-8",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def page(path: str, if_none_match: str | None = None) -> Response | None:
    """The file for `path` (or a language's catalogue, `catalogue`), or None when no page,
    static file or catalogue has that path."""
    if path.startswith("/i18n/"):
        return catalogue(path, if_none_match)
    if PAGE_PATHS.match(path):
        return _file("index.html")
    found = STATIC_PATH.match(path)
    return _file(found.group(1)) if found else None


CATALOGUE_PATH = re.compile(r"^/i18n/([A-Za-z]{2}(?:-[A-Za-z]{2})?)\.json$")


def catalogue(path: str, if_none_match: str | None) -> Response | None:
    """`GET /i18n/<lang>.json`: a language's messages for the browser (server/i18n), built
    once per process, with an ETag (a matching If-None-Match gets 304). None when `path`
    is not such a path or names no language (the caller answers 404)."""
    found = CATALOGUE_PATH.match(path)
    if not found or found.group(1) not in (*i18n.languages(), i18n.PSEUDO):
        return None
    body, etag = _catalogue(found.group(1))
    headers = Headers(
        [
            ("Content-Type", "application/json; charset=utf-8"),
            ("ETag", etag),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    if if_none_match is not None and etag in (t.strip() for t in if_none_match.split(",")):
        return Response(HTTPStatus.NOT_MODIFIED, HTTPStatus.NOT_MODIFIED.phrase, headers, b"")
    headers["Content-Length"] = str(len(body))
    return Response(HTTPStatus.OK, HTTPStatus.OK.phrase, headers, body)


@cache
def _catalogue(lang: str) -> tuple[bytes, str]:
    body = i18n.messages_json(lang)
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _file(name: str) -> Response | None:
    target = WEB.joinpath(*name.split("/"))
    if not target.is_file():
        return None
    body = target.read_bytes()
    kind = TYPES.get(name.rsplit(".", 1)[-1], "application/octet-stream")
    headers = Headers(
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(body))),
            ("Content-Security-Policy", CSP),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-cache"),
        ]
    )
    return Response(HTTPStatus.OK, HTTPStatus.OK.phrase, headers, body)
