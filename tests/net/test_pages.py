"""The browser client's files (server/net/pages.py): which paths are the page, which are
static files, and the languages' catalogues, each with its type and headers (the page's
Content-Security-Policy; a catalogue's ETag)."""

from __future__ import annotations

import json

import pytest

from server import i18n
from server.net import pages

INDEX = (pages.WEB / "index.html").read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/t/3",
        "/t/3/replay/alice_2",
        "/t/3/replay/jo%C3%A3o",  # a name's other characters percent-encoded
        "/t/3/analysis",
        "/verify",
        "/rules/gaps",
        "/rules/klondike",
        "/leaderboard/gaps",
        "/players/ana-b",
        "/operator",
        "/account",
        "/clubs",
        "/clubs/12",
    ],
)
def test_the_pages_are_the_one_page_with_its_policy(path: str) -> None:
    response = pages.page(path)
    assert response is not None and response.status_code == 200
    assert response.body == INDEX
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["Content-Security-Policy"] == pages.CSP
    assert response.headers["Content-Length"] == str(len(INDEX))
    assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    "path",
    [
        "/t/x",
        "/t/1/analysis/x",
        "/t/1/replay/a%20b",  # a space is never in a name
        "/t/12345678901",
        "/rules/x",
        "/leaderboard/Gaps",
        "/clubs/x",
        "/static/../pyproject.toml",
        "/static/nope.js",
        "/static/app",
        "/healthz",
        "/i18n/fr.json",
    ],
)
def test_other_paths_are_no_page(path: str) -> None:
    assert pages.page(path) is None


def test_static_files_have_their_types_and_the_policy() -> None:
    for name, kind in (
        ("app.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
        ("package.json", "application/json"),
    ):
        response = pages.page(f"/static/{name}")
        assert response is not None, name
        assert response.headers["Content-Type"] == kind
        assert response.body == (pages.WEB / name).read_bytes()
        csp = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe" not in csp and "connect-src 'self'" in csp


def test_the_browsers_catalogue_has_every_key_and_an_etag() -> None:
    response = pages.catalogue("/i18n/pt-PT.json", None)
    assert response is not None and response.status_code == 200
    body = json.loads(response.body)
    assert body["lang"] == "pt-PT" and set(body["messages"]) == set(i18n.catalogue("en"))
    assert body["messages"]["card.AS"] == "ás de espadas"
    etag = response.headers["ETag"]
    again = pages.catalogue("/i18n/pt-PT.json", etag)
    assert again is not None and again.status_code == 304 and again.body == b""
    assert pages.catalogue("/i18n/fr.json", None) is None
    assert pages.catalogue("/i18n/en-XA.json", None) is not None


def test_a_catalogue_is_reached_through_page_and_its_etag_is_one_of_several() -> None:
    response = pages.page("/i18n/es.json")
    assert response is not None and response.status_code == 200
    assert response.headers["Content-Type"] == "application/json; charset=utf-8"
    etag = response.headers["ETag"]
    assert etag != pages.page("/i18n/en.json").headers["ETag"]  # type: ignore[union-attr]
    again = pages.page("/i18n/es.json", f'"other", {etag}')
    assert again is not None and again.status_code == 304
    stale = pages.page("/i18n/es.json", '"other"')
    assert stale is not None and stale.status_code == 200
    assert pages.catalogue("/i18n/es.js", None) is None
