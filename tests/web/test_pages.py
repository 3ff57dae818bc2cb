"""The pages on the server's own port, and the static rules of the client's files: no
inline script, style or handler (the CSP forbids them), no HTML built from data, the
WebSocket on the same origin, no token in a URL."""

from __future__ import annotations

import asyncio
import re

from server.net import pages
from tests.support.harness import running_server
from tests.web.support import ROOT

WEB = ROOT / "server" / "web"


async def test_pages_and_static_files_are_served_with_the_csp(sqlite_url: str) -> None:
    from tests.support.harness import http_get

    async with running_server(sqlite_url) as srv:
        for path in (
            "/",
            "/t/3",
            "/t/3/replay/alice_2",
            "/t/3/analysis",
            "/verify",
            "/rules/gaps",
            "/rules/klondike",
        ):
            status, body = await asyncio.to_thread(http_get, srv.http + path)
            assert status == 200 and body.startswith(b"<!doctype html>"), path
        status, body = await asyncio.to_thread(http_get, srv.http + "/static/app.js")
        assert status == 200 and b"import" in body
        bad = (
            "/static/../pyproject.toml",
            "/static/nope.js",
            "/t/x",
            "/t/1/replay/a%20b",
            "/rules/x",
        )
        for path in (*bad, "/t/1/analysis/x"):
            status, _ = await asyncio.to_thread(http_get, srv.http + path)
            assert status == 404, path
    response = pages.page("/static/style.css")
    assert response is not None
    assert response.headers["Content-Type"].startswith("text/css")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe" not in csp and "connect-src 'self'" in csp


def test_html_has_no_inline_script_style_or_handler() -> None:
    html = (WEB / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert " style=" not in html and not re.search(r"\son[a-z]+=", html)
    for module in re.findall(r'src="/static/([^"]+)"|href="/static/([^"]+\.js)"', html):
        assert (WEB / (module[0] or module[1])).is_file()


def test_scripts_build_no_html_from_text_and_hide_no_secret_in_urls() -> None:
    for path in WEB.glob("*.js"):
        text = path.read_text()
        assert "innerHTML" not in text and "outerHTML" not in text, path.name
        assert "insertAdjacentHTML" not in text and "document.write" not in text, path.name
        assert not re.search(r"\beval\(|new Function\(", text), path.name
        assert ".style." not in text and 'setAttribute("style"' not in text, path.name
        assert not re.search(r"[?&]token=", text), path.name
    net = (WEB / "net.js").read_text()
    assert '"wss" : "ws"}://${location.host}/ws' in net
    assert "localStorage" in (WEB / "store.js").read_text()
